// The process's one thread that waits for GPU events. Work enqueued on a
// CUDA stream completes on the device; the host learns of it by querying an
// event recorded after that work. Rather than blocking a work-queue thread
// in cudaStreamSynchronize, every event is handed to this poller, which
// queries all pending events in turn, sleeping with a short backoff while
// none completes, and calls each event's callback once it completes or
// fails.
//
// The event is behind the PolledEvent interface so that the poller's logic
// (ordering, backoff, errors, shutdown) is tested without a GPU.
#ifndef SLUICE_GPU_EVENT_POLLER_H_
#define SLUICE_GPU_EVENT_POLLER_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"

namespace sluice {
namespace gpu {

// Something that completes later: a CUDA event, or a fake in tests.
class PolledEvent {
 public:
  enum class State { kPending, kComplete };
  virtual ~PolledEvent();
  // Must not block. kComplete once the work before the event is done; an
  // error when it failed (the stream's sticky error, say). Called only from
  // the poller thread, one call at a time.
  virtual absl::StatusOr<State> Query() = 0;
};

struct EventPollerOptions {
  // The sleep between rounds of queries grows from min_backoff, doubling
  // while no event completes, up to max_backoff; a completion resets it.
  absl::Duration min_backoff = absl::Microseconds(10);
  absl::Duration max_backoff = absl::Milliseconds(1);
};

class EventPoller {
 public:
  // Called once, on the poller thread, with OK when the event completed or
  // its error. Must be short: hand real work to a work queue.
  using Callback = absl::AnyInvocable<void(absl::Status) &&>;

  // Starts the poller thread.
  explicit EventPoller(EventPollerOptions options = {});
  // Stops the thread; events still pending get their callback with a
  // Cancelled error ("event poller stopped before the event completed").
  ~EventPoller();
  EventPoller(const EventPoller&) = delete;
  EventPoller& operator=(const EventPoller&) = delete;

  // The process's poller, started on first use and stopped at exit.
  static EventPoller& Process();

  // Calls `done` once `event` completes or fails. After the poller has
  // begun stopping, calls `done` at once (on the caller) with the Cancelled
  // error.
  void Watch(std::unique_ptr<PolledEvent> event, Callback done);

  // A chain that becomes available (or an error, prefixed with `what`) when
  // `event` completes. The chain is set by a task on `host`'s work queue,
  // so that what waits on it never runs on the poller thread. `host` must
  // outlive the event.
  AsyncValueRef<Chain> WatchOnHost(std::unique_ptr<PolledEvent> event,
                                   HostContext* host, std::string what);

  // Events being watched now.
  int64_t num_pending() const;
  // Rounds of queries made so far (for tests of the backoff).
  int64_t num_rounds() const;

 private:
  struct Watched {
    std::unique_ptr<PolledEvent> event;
    Callback done;
  };

  void Run();

  const EventPollerOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  // Events handed in since the poller thread last looked.
  std::vector<Watched> incoming_;
  int64_t num_pending_ = 0;
  int64_t num_rounds_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace gpu
}  // namespace sluice

#endif  // SLUICE_GPU_EVENT_POLLER_H_
