#include "lib/host_context/blocking_pool.h"

#include <algorithm>
#include <utility>

namespace sluice {
namespace internal {

BlockingPool::BlockingPool(int max_threads,
                           std::chrono::milliseconds idle_timeout,
                           std::function<void()> on_idle,
                           std::chrono::nanoseconds spin)
    : max_threads_(max_threads),
      idle_timeout_(idle_timeout),
      on_idle_(std::move(on_idle)),
      spin_(spin) {
  assert(max_threads_ >= 1);
}

BlockingPool::~BlockingPool() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    threads = std::move(threads_);
    threads_.clear();
  }
  cv_.notify_all();
  // Threads that see `stopping_` still drain the queue before they leave.
  for (std::thread& thread : threads) thread.join();
}

void BlockingPool::Add(TaskFunction task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    assert(!stopping_ && "blocking task added to a pool being destroyed");
    queue_.PushBack(std::move(task));
    queued_.store(queue_.size(), std::memory_order_release);
    added_.store(added_.load(std::memory_order_relaxed) + 1,
                 std::memory_order_release);
    // An idle thread that was notified still counts as idle until it wakes,
    // so comparing with the queue length (not just `num_idle_ > 0`) starts a
    // thread for the second of two tasks added back to back. Otherwise the
    // second would wait behind the first, which may block on it.
    if (queue_.size() > static_cast<size_t>(num_idle_) &&
        num_threads_ < max_threads_) {
      ++num_threads_;
      threads_.emplace_back([this] { ThreadLoop(); });
    } else if (num_idle_ > (spinning_ ? 1 : 0) &&
               queue_.size() > (spinning_ ? 1u : 0u)) {
      // A spinning thread takes one task without being woken.
      cv_.notify_one();
    }
  }
  JoinExited();
}

int BlockingPool::num_threads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return num_threads_;
}

void BlockingPool::ThreadLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (!queue_.empty()) {
      TaskFunction task = queue_.PopFront();
      queued_.store(queue_.size(), std::memory_order_release);
      lock.unlock();
      std::move(task)();
      task = nullptr;
      lock.lock();
      finished_.store(finished_.load(std::memory_order_relaxed) + 1,
                      std::memory_order_release);
      if (queue_.empty() && on_idle_) {
        lock.unlock();
        on_idle_();
        lock.lock();
      }
      continue;
    }
    if (stopping_) break;
    // A spinning thread counts as idle: Add() neither starts a thread nor
    // needs to wake one for the task it will take.
    ++num_idle_;
    if (spin_.count() > 0 && !spinning_) {
      spinning_ = true;
      lock.unlock();
      const auto end = std::chrono::steady_clock::now() + spin_;
      // Yielding lets a thread that shares this core run: on a machine with
      // few cores, that may be the one about to add the next task.
      while (queued_.load(std::memory_order_acquire) == 0 &&
             std::chrono::steady_clock::now() < end) {
        std::this_thread::yield();
      }
      lock.lock();
      spinning_ = false;
      if (!queue_.empty() || stopping_) {
        --num_idle_;
        continue;
      }
    }
    const bool woken = cv_.wait_for(
        lock, idle_timeout_, [this] { return !queue_.empty() || stopping_; });
    --num_idle_;
    if (!woken) break;  // Idle for too long.
  }
  --num_threads_;
  // The destructor joins everything it finds in `threads_`; a thread that
  // retires on its own asks the next Add() to join it instead.
  if (!stopping_) exited_.push_back(std::this_thread::get_id());
}

void BlockingPool::JoinExited() {
  std::vector<std::thread> to_join;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (exited_.empty()) return;
    for (const std::thread::id id : exited_) {
      auto it =
          std::find_if(threads_.begin(), threads_.end(),
                       [id](const std::thread& t) { return t.get_id() == id; });
      if (it == threads_.end()) continue;
      to_join.push_back(std::move(*it));
      threads_.erase(it);
    }
    exited_.clear();
  }
  for (std::thread& thread : to_join) thread.join();
}

}  // namespace internal
}  // namespace sluice
