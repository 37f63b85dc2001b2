#include "sluice/host_context/timer_queue.h"

namespace sluice {

TimerQueue::~TimerQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

TimerQueue::TimerId TimerQueue::ScheduleAt(
    absl::Time when, absl::AnyInvocable<void() &&> callback) {
  TimerId id;
  bool earlier;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_id_++;
    timers_.emplace(std::make_pair(when, id), std::move(callback));
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
    earlier = when < wake_at_;
  }
  // A timer due after the thread wakes anyway needs no wake-up: deadlines
  // set per request (RequestContext) would otherwise wake the thread once
  // each, only for it to sleep again.
  if (earlier) cv_.notify_all();
  return id;
}

bool TimerQueue::Cancel(TimerId id) {
  std::unique_lock<std::mutex> lock(mu_);
  for (auto it = timers_.begin(); it != timers_.end(); ++it) {
    if (it->first.second == id) {
      timers_.erase(it);
      return true;
    }
  }
  // A callback may cancel its own timer (or free what owns it): waiting for
  // itself would never end.
  if (std::this_thread::get_id() != thread_.get_id()) {
    cv_.wait(lock, [&] { return running_id_ != id; });
  }
  return false;
}

void TimerQueue::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (timers_.empty()) {
      wake_at_ = absl::InfiniteFuture();
      cv_.wait(lock);
      continue;
    }
    auto first = timers_.begin();
    const absl::Time when = first->first.first;
    const absl::Time now = absl::Now();
    if (when > now) {
      // A timer cancelled meanwhile only makes this wake-up early.
      wake_at_ = when;
      cv_.wait_for(lock, absl::ToChronoNanoseconds(when - now));
      continue;
    }
    running_id_ = first->first.second;
    absl::AnyInvocable<void() &&> callback = std::move(first->second);
    timers_.erase(first);
    lock.unlock();
    std::move(callback)();
    // Captured state dies outside the lock: its destructor may cancel timers.
    callback = nullptr;
    lock.lock();
    running_id_ = 0;
    cv_.notify_all();
  }
}

}  // namespace sluice
