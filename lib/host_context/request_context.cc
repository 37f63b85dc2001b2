#include "sluice/host_context/request_context.h"

#include <utility>

#include "sluice/host_context/async_value_ref.h"

namespace sluice {

RCReference<RequestContext> RequestContext::Create(
    HostContext* host, std::optional<absl::Time> deadline) {
  RCReference<RequestContext> request =
      TakeRef(new RequestContext(host, deadline));
  if (deadline.has_value()) {
    // The timer holds a plain pointer: the destructor cancels the timer and
    // waits for a callback in flight, so the pointer never dangles.
    RequestContext* raw = request.get();
    raw->deadline_timer_ = host->timer_queue().ScheduleAt(*deadline, [raw] {
      raw->Cancel(absl::DeadlineExceededError("deadline exceeded"));
    });
  }
  return request;
}

RequestContext::~RequestContext() {
  if (deadline_timer_ != 0) host_->timer_queue().Cancel(deadline_timer_);
  if (AsyncValue* cancel = cancel_value_.load(std::memory_order_acquire)) {
    cancel->DropRef();
  }
}

void RequestContext::Cancel(absl::Status status) {
  std::vector<absl::AnyInvocable<void(const absl::Status&) &&>> callbacks;
  AsyncValue* error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancel_value_.load(std::memory_order_relaxed) != nullptr) return;
    error = MakeErrorAsyncValueRef(std::move(status)).release();
    cancel_value_.store(error, std::memory_order_release);
    callbacks.swap(on_cancel_);
  }
  // A callback may drop the last reference to this request: from here on
  // only locals are touched. `error` stays alive through a reference of its
  // own.
  RCReference<AsyncValue> keep = FormRef(error);
  for (auto& callback : callbacks) std::move(callback)(keep->GetError());
}

void RequestContext::OnCancel(
    absl::AnyInvocable<void(const absl::Status&) &&> callback) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancel_value_.load(std::memory_order_relaxed) == nullptr) {
      on_cancel_.push_back(std::move(callback));
      return;
    }
  }
  std::move(callback)(GetCancelAsyncValue()->GetError());
}

}  // namespace sluice
