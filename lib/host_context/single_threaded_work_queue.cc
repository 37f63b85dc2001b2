// The single-threaded work queue: tasks wait in one FIFO and run on whichever
// thread calls Await() or Quiesce().
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/types/span.h"
#include "lib/host_context/task_deque.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/run_when_ready.h"

namespace sluice {
namespace {

using internal::TaskRing;

// The queue whose tasks this thread is draining, if any. Saved and restored
// around each drain so that draining another queue from inside a task does
// not confuse IsInWorkerThread() of the outer one.
thread_local const ConcurrentWorkQueue* draining_queue = nullptr;

class ScopedDrainer {
 public:
  explicit ScopedDrainer(const ConcurrentWorkQueue* queue)
      : previous_(draining_queue) {
    draining_queue = queue;
  }
  ~ScopedDrainer() { draining_queue = previous_; }
  ScopedDrainer(const ScopedDrainer&) = delete;
  ScopedDrainer& operator=(const ScopedDrainer&) = delete;

 private:
  const ConcurrentWorkQueue* previous_;
};

// What both the queue and pending Await() waiters touch. Waiters hold it by
// shared_ptr because a value may resolve after Await() returned, or even
// after the queue is gone: they must not reach into a dead stack frame or
// queue.
struct SharedState {
  std::mutex mu;
  // Signalled when a task arrives or an awaited set of values resolves.
  std::condition_variable cv;
  TaskRing pending;  // Guarded by `mu`.
  int sleepers = 0;  // Threads blocked on `cv`; guarded by `mu`.
  // Batches taken out of `pending` and not yet finished; guarded by `mu`.
  int draining = 0;
  // An empty ring kept for the next drainer's batch. Without it, each
  // Quiesce() of a big burst would free the ring and the next burst would
  // grow a new one, page-faulting it in again.
  TaskRing spare;  // Guarded by `mu`.
};

// Lends `shared.spare` to `batch` and takes it back, both with `shared.mu`
// held. Only the larger of two rings is kept.
void BorrowSpare(SharedState& shared, TaskRing& batch) {
  batch.Swap(shared.spare);
}
void ReturnSpare(SharedState& shared, TaskRing& batch) {
  if (batch.empty() && batch.capacity() > shared.spare.capacity()) {
    batch.Swap(shared.spare);
  }
}

// Called with `shared.mu` held once a drainer is done with its batch: a
// sleeper may be waiting for tasks put back or for the last batch to end.
void FinishBatch(SharedState& shared) {
  --shared.draining;
  if (shared.sleepers > 0 &&
      (!shared.pending.empty() || shared.draining == 0)) {
    shared.cv.notify_all();
  }
}

struct AwaitState {
  explicit AwaitState(std::shared_ptr<SharedState> shared)
      : shared(std::move(shared)) {}
  std::shared_ptr<SharedState> shared;
  // Written under `shared->mu` so that a sleeper cannot miss it; read without
  // the lock between tasks, hence atomic.
  std::atomic<bool> done{false};
};

class SingleThreadedWorkQueue final : public ConcurrentWorkQueue {
 public:
  SingleThreadedWorkQueue() : shared_(std::make_shared<SharedState>()) {}
  ~SingleThreadedWorkQueue() override { Quiesce(); }

  std::string name() const override { return "s"; }

  void AddTask(TaskFunction task) override {
    bool wake;
    {
      std::lock_guard<std::mutex> lock(shared_->mu);
      shared_->pending.PushBack(std::move(task));
      wake = shared_->sleepers > 0;
    }
    if (wake) shared_->cv.notify_one();
  }

  void AddBlockingTask(TaskFunction task) override { AddTask(std::move(task)); }

  void Await(absl::Span<const RCReference<AsyncValue>> values) override;
  void Quiesce() override;

  int GetParallelismLevel() const override { return 1; }
  bool IsInWorkerThread() const override { return draining_queue == this; }

 private:
  const std::shared_ptr<SharedState> shared_;
};

bool AllAvailable(absl::Span<const RCReference<AsyncValue>> values) {
  for (const RCReference<AsyncValue>& value : values) {
    if (value->IsUnavailable()) return false;
  }
  return true;
}

void SingleThreadedWorkQueue::Await(
    absl::Span<const RCReference<AsyncValue>> values) {
  if (AllAvailable(values)) return;
  ScopedDrainer drainer(this);
  auto state = std::make_shared<AwaitState>(shared_);
  RunWhenReady(values, [state] {
    std::lock_guard<std::mutex> lock(state->shared->mu);
    state->done.store(true, std::memory_order_release);
    // Every sleeper, because the one waiting for these values may not be the
    // one a notify_one() would pick.
    state->shared->cv.notify_all();
  });

  SharedState& shared = *shared_;
  TaskRing batch;
  std::unique_lock<std::mutex> lock(shared.mu);
  BorrowSpare(shared, batch);
  while (!state->done.load(std::memory_order_relaxed)) {
    if (shared.pending.empty()) {
      ++shared.sleepers;
      shared.cv.wait(lock);
      --shared.sleepers;
      continue;
    }
    // Tasks run in batches taken under one lock, so that each task costs one
    // lock (in AddTask) instead of two.
    batch.Swap(shared.pending);
    ++shared.draining;
    lock.unlock();
    while (!batch.empty()) {
      batch.PopFront()();
      if (state->done.load(std::memory_order_acquire)) break;
    }
    lock.lock();
    if (!batch.empty()) {
      // What is left of the batch is older than anything queued since, so
      // it goes back in front to keep FIFO order.
      batch.AppendAll(shared.pending);
      batch.Swap(shared.pending);
    }
    FinishBatch(shared);
  }
  ReturnSpare(shared, batch);
}

void SingleThreadedWorkQueue::Quiesce() {
  ScopedDrainer drainer(this);
  SharedState& shared = *shared_;
  TaskRing batch;
  std::unique_lock<std::mutex> lock(shared.mu);
  BorrowSpare(shared, batch);
  while (true) {
    if (!shared.pending.empty()) {
      batch.Swap(shared.pending);
      ++shared.draining;
      lock.unlock();
      while (!batch.empty()) batch.PopFront()();
      lock.lock();
      FinishBatch(shared);
      continue;
    }
    // Another thread may still be running a batch that holds tasks queued
    // before this call.
    if (shared.draining == 0) break;
    ++shared.sleepers;
    shared.cv.wait(lock);
    --shared.sleepers;
  }
  ReturnSpare(shared, batch);
}

}  // namespace

std::unique_ptr<ConcurrentWorkQueue> CreateSingleThreadedWorkQueue() {
  return std::make_unique<SingleThreadedWorkQueue>();
}

}  // namespace sluice
