// RequestContext: the state of one top-level call: cancellation, an optional
// deadline, and resources that live as long as the request.
#ifndef SLUICE_HOST_CONTEXT_REQUEST_CONTEXT_H_
#define SLUICE_HOST_CONTEXT_REQUEST_CONTEXT_H_

#include <atomic>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/resource_context.h"
#include "sluice/host_context/timer_queue.h"
#include "sluice/support/ref_count.h"

namespace sluice {

struct RequestObservers;

class RequestContext : public ReferenceCounted<RequestContext> {
 public:
  // A request on `host`. With a deadline, the request cancels itself with
  // DeadlineExceeded when the deadline passes.
  static RCReference<RequestContext> Create(
      HostContext* host, std::optional<absl::Time> deadline = std::nullopt);

  HostContext* host() const { return host_; }
  std::optional<absl::Time> deadline() const { return deadline_; }

  // Cancels the request: from now on GetCancelAsyncValue() is an error value
  // holding `status`, and the OnCancel() callbacks run (on this thread). Only
  // the first call has an effect.
  void Cancel(absl::Status status = absl::CancelledError("Cancelled"));

  bool IsCancelled() const { return GetCancelAsyncValue() != nullptr; }

  // The cancellation error as a value, or nullptr if not cancelled. Kernels
  // not yet started take it as their input (see docs/async_values.md).
  AsyncValue* GetCancelAsyncValue() const {
    return cancel_value_.load(std::memory_order_acquire);
  }

  // Runs `callback(status)` once when the request is cancelled: at once if it
  // already is. Callbacks of a request that is never cancelled are dropped
  // unrun with it.
  void OnCancel(absl::AnyInvocable<void(const absl::Status&) &&> callback);

  ResourceContext& resources() { return resources_; }

  // Who watches this request (sluice/host_context/trace_activity.h): null,
  // the default, costs one pointer test per kernel. Set before the request
  // runs anything; `observers` must outlive the request.
  const RequestObservers* observers() const { return observers_; }
  void set_observers(const RequestObservers* observers) {
    observers_ = observers;
  }

 private:
  friend class ReferenceCounted<RequestContext>;
  RequestContext(HostContext* host, std::optional<absl::Time> deadline)
      : host_(host), deadline_(deadline) {}
  ~RequestContext();

  HostContext* const host_;
  const std::optional<absl::Time> deadline_;
  TimerQueue::TimerId deadline_timer_ = 0;
  std::atomic<AsyncValue*> cancel_value_{nullptr};
  const RequestObservers* observers_ = nullptr;
  std::mutex mu_;
  std::vector<absl::AnyInvocable<void(const absl::Status&) &&>> on_cancel_;
  ResourceContext resources_;
};

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_REQUEST_CONTEXT_H_
