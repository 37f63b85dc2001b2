// A queue of callbacks to run at given times, on one thread of its own.
#ifndef SLUICE_HOST_CONTEXT_TIMER_QUEUE_H_
#define SLUICE_HOST_CONTEXT_TIMER_QUEUE_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/functional/any_invocable.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace sluice {

class TimerQueue {
 public:
  using TimerId = uint64_t;

  TimerQueue() = default;
  // Drops the callbacks that have not run.
  ~TimerQueue();
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  // Runs `callback` on the timer thread at `when` (at once if it has
  // passed). The thread starts on first use.
  TimerId ScheduleAt(absl::Time when, absl::AnyInvocable<void() &&> callback);

  // Removes the timer. Returns true if its callback will never run. If the
  // callback is running on another thread, waits until it returns, so that
  // whatever the callback uses may be freed once Cancel() returns.
  bool Cancel(TimerId id);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  // Keyed by (deadline, id) so that equal deadlines run in schedule order.
  std::map<std::pair<absl::Time, TimerId>, absl::AnyInvocable<void() &&>>
      timers_;
  TimerId next_id_ = 1;
  TimerId running_id_ = 0;
  // When the thread wakes at the latest: infinite while it waits for a
  // first timer. Only a timer due before it needs to wake the thread.
  absl::Time wake_at_ = absl::InfiniteFuture();
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_TIMER_QUEUE_H_
