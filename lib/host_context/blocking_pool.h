// A pool of threads that grows on demand: the blocking tasks of the
// multi-threaded work queue, and the calls a worker runs (lib/distributed),
// where one idle thread spins before it parks so back-to-back calls find it
// awake. Internal: not part of the public API.
#ifndef SLUICE_LIB_HOST_CONTEXT_BLOCKING_POOL_H_
#define SLUICE_LIB_HOST_CONTEXT_BLOCKING_POOL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/host_context/task_deque.h"
#include "sluice/host_context/concurrent_work_queue.h"

namespace sluice {
namespace internal {

// Starts threads on demand, up to `max_threads`; a thread idle for
// `idle_timeout` exits, so a burst of blocking work does not pin hundreds of
// threads for the life of the process. Tasks start in FIFO order.
class BlockingPool {
 public:
  // `on_idle` runs on a pool thread (without any pool lock held) each time
  // the last queued task has finished, so that a Quiesce() waiter can look
  // again instead of polling. With a non-zero `spin`, one idle thread at a
  // time spins that long for the next task before it waits: waking a parked
  // thread costs tens of microseconds, the whole cost of a small task.
  BlockingPool(int max_threads, std::chrono::milliseconds idle_timeout,
               std::function<void()> on_idle,
               std::chrono::nanoseconds spin = std::chrono::nanoseconds(0));
  // Runs what is still queued, then joins every thread.
  ~BlockingPool();
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  void Add(TaskFunction task);

  // Counters for the owner's quiescence check: tasks ever added, and tasks
  // that have finished (and been destroyed). A task is counted as added
  // before any thread can see it, and as finished only after it is gone.
  uint64_t added() const { return added_.load(std::memory_order_acquire); }
  uint64_t finished() const {
    return finished_.load(std::memory_order_acquire);
  }

  // For tests and diagnostics: threads alive now.
  int num_threads() const;

 private:
  void ThreadLoop();
  // Joins the threads that have exited. Called with `mu_` not held.
  void JoinExited();

  const int max_threads_;
  const std::chrono::milliseconds idle_timeout_;
  const std::function<void()> on_idle_;
  const std::chrono::nanoseconds spin_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  TaskRing queue_;         // Guarded by `mu_`.
  int num_threads_ = 0;    // Alive, busy or idle; guarded by `mu_`.
  int num_idle_ = 0;       // Waiting on `cv_`; guarded by `mu_`.
  bool stopping_ = false;  // Guarded by `mu_`.
  bool spinning_ = false;  // Guarded by `mu_`.
  // queue_.size(), for the spinning thread to read without the lock.
  std::atomic<size_t> queued_{0};
  std::vector<std::thread> threads_;     // Guarded by `mu_`.
  std::vector<std::thread::id> exited_;  // Guarded by `mu_`.
  // Written under `mu_`, read without it.
  std::atomic<uint64_t> added_{0};
  std::atomic<uint64_t> finished_{0};
};

}  // namespace internal
}  // namespace sluice

#endif  // SLUICE_LIB_HOST_CONTEXT_BLOCKING_POOL_H_
