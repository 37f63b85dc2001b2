#include "lib/distributed/call_executor.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <utility>

namespace sluice::dist::internal {

CallExecutor::CallExecutor(int max_threads, absl::Duration spin)
    : max_threads_(std::max(max_threads, 1)), spin_(spin) {}

CallExecutor::~CallExecutor() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  wake_.notify_all();
  for (std::thread& thread : threads) thread.join();
}

void CallExecutor::Add(absl::AnyInvocable<void() &&> task) {
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.push_back(std::move(task));
  queued_.store(tasks_.size(), std::memory_order_release);
  WakeLocked();
}

void CallExecutor::WakeLocked() {
  if (spinning_) return;
  if (parked_ > tokens_) {
    ++tokens_;
    wake_.notify_one();
    return;
  }
  // Starting a thread costs more than waking one, but a busy thread may stay
  // busy for as long as its call runs.
  if (!stopping_ && static_cast<int>(threads_.size()) < max_threads_) {
    threads_.emplace_back([this] { Loop(); });
  }
}

void CallExecutor::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (!tasks_.empty()) {
      absl::AnyInvocable<void()&&> task = std::move(tasks_.front());
      tasks_.pop_front();
      queued_.store(tasks_.size(), std::memory_order_release);
      // The rest must not wait for this task, which may run for long.
      if (!tasks_.empty()) WakeLocked();
      lock.unlock();
      std::move(task)();
      // Whatever the task captured goes before the lock is taken again: its
      // destructors may add tasks.
      task = nullptr;
      lock.lock();
      continue;
    }
    if (stopping_) return;
    if (!spinning_ && spin_ > absl::ZeroDuration()) {
      spinning_ = true;
      lock.unlock();
      const auto end =
          std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(spin_);
      // Yielding lets a thread that shares this core run: on a machine with
      // few cores, that thread may be the one about to send the next call.
      while (queued_.load(std::memory_order_acquire) == 0 &&
             std::chrono::steady_clock::now() < end) {
        sched_yield();
      }
      lock.lock();
      spinning_ = false;
      if (!tasks_.empty() || stopping_) continue;
    }
    ++parked_;
    wake_.wait(lock, [this] { return tokens_ > 0 || stopping_; });
    --parked_;
    if (tokens_ > 0) --tokens_;
  }
}

}  // namespace sluice::dist::internal
