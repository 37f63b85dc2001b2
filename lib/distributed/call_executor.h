// CallExecutor: the threads a worker runs its calls on, so that gRPC's
// threads, which also answer the status RPC and deliver cancellations, never
// run a program. Kernels cannot be preempted: a call that started on a gRPC
// thread would hold it until its last synchronous kernel returned.
//
// The pool grows on demand up to a maximum, so a call never waits behind
// long-running ones while a thread may still be started, and one idle thread
// spins for a while before it parks: a parked thread takes tens of
// microseconds to wake, which would be most of the cost of a remote call that
// does little.
#ifndef SLUICE_LIB_DISTRIBUTED_CALL_EXECUTOR_H_
#define SLUICE_LIB_DISTRIBUTED_CALL_EXECUTOR_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/time/time.h"

namespace sluice::dist::internal {

class CallExecutor {
 public:
  // At most `max_threads` (at least 1) run calls at a time; the first idle
  // thread spins for `spin` before it parks.
  CallExecutor(int max_threads, absl::Duration spin);
  // Runs what is queued, then joins the threads.
  ~CallExecutor();
  CallExecutor(const CallExecutor&) = delete;
  CallExecutor& operator=(const CallExecutor&) = delete;

  // Runs `task` soon on one of the executor's threads, never inline.
  void Add(absl::AnyInvocable<void() &&> task);

 private:
  void Loop();
  // Gets a thread to take queued work: wakes a parked one, or starts one
  // while below the maximum. No-op while a thread spins: it takes the work.
  void WakeLocked();

  const int max_threads_;
  const absl::Duration spin_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<absl::AnyInvocable<void() &&>> tasks_;  // guarded by mu_
  // tasks_.size(), readable without the lock by the spinning thread.
  std::atomic<size_t> queued_{0};
  std::vector<std::thread> threads_;  // guarded by mu_
  int parked_ = 0;                    // guarded by mu_
  // Wake-ups sent and not yet taken by a parked thread; a thread parks
  // until there is one, so none is lost and spurious wake-ups are harmless.
  int tokens_ = 0;         // guarded by mu_
  bool spinning_ = false;  // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
};

}  // namespace sluice::dist::internal

#endif  // SLUICE_LIB_DISTRIBUTED_CALL_EXECUTOR_H_
