// The work queues a HostContext runs tasks on.
#ifndef SLUICE_HOST_CONTEXT_CONCURRENT_WORK_QUEUE_H_
#define SLUICE_HOST_CONTEXT_CONCURRENT_WORK_QUEUE_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sluice/host_context/async_value.h"
#include "sluice/support/ref_count.h"

namespace sluice {

// A unit of work. Small callables are stored inline (no allocation).
using TaskFunction = absl::AnyInvocable<void() &&>;

class ConcurrentWorkQueue {
 public:
  virtual ~ConcurrentWorkQueue();

  // "s" or "mstd:N,M": the spec CreateWorkQueue() understands.
  virtual std::string name() const = 0;

  // Runs `task` soon on a worker thread; for the single-threaded queue, on
  // the thread that next waits in Await() or Quiesce(). Never runs it inline.
  virtual void AddTask(TaskFunction task) = 0;

  // Runs `task`, which may block (I/O, sleeps, waiting on other processes),
  // where it cannot hold up non-blocking work: a separate pool of threads
  // for the multi-threaded queue.
  virtual void AddBlockingTask(TaskFunction task) = 0;

  // Blocks the calling thread until every value is available. The
  // single-threaded queue runs queued tasks on the caller meanwhile. Must
  // not be called from a worker thread of this queue.
  virtual void Await(absl::Span<const RCReference<AsyncValue>> values) = 0;

  // Returns when no task is queued or running, blocking work included. The
  // single-threaded queue runs the queued tasks on the caller.
  virtual void Quiesce() = 0;

  // How many tasks may run at the same time (1 for the single-threaded
  // queue).
  virtual int GetParallelismLevel() const = 0;

  // Whether a worker is looking for work right now: a hint, for callers
  // that could split what they are doing into tasks (the executor shares
  // ready kernels this way). False on the single-threaded queue.
  virtual bool HasIdleWorker() const { return false; }

  // True on a thread that runs this queue's non-blocking tasks (a worker,
  // or the single-threaded queue's thread while it waits). Blocking-pool
  // threads are not workers: blocking tasks may call Await().
  virtual bool IsInWorkerThread() const = 0;
};

// Tasks run on the thread that waits, in the order they were added (FIFO);
// blocking tasks run there too, in the same order.
std::unique_ptr<ConcurrentWorkQueue> CreateSingleThreadedWorkQueue();

// `num_threads` workers, each with its own queue, stealing from each other
// when idle; blocking tasks go to a pool of up to `max_blocking_threads`
// threads started on demand.
std::unique_ptr<ConcurrentWorkQueue> CreateMultiThreadedWorkQueue(
    int num_threads, int max_blocking_threads);

// Parses a work-queue spec: "s" (single-threaded), "mstd" (hardware
// concurrency workers, 256 blocking threads), "mstd:N", "mstd:N,M".
absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> CreateWorkQueue(
    std::string_view spec);

}  // namespace sluice

#endif  // SLUICE_HOST_CONTEXT_CONCURRENT_WORK_QUEUE_H_
