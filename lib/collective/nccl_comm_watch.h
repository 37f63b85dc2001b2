// The state machine of one NCCL communicator and its collectives in flight,
// which the process's watchdog (nccl_watchdog.h) polls off the hot path.
//
// A collective is submitted on the caller's thread, which makes the NCCL
// call on the communicator's stream. NCCL takes one thread at a time on a
// communicator (calls, ncclCommGetAsyncError and ncclCommAbort alike), so
// every call goes through one lock (LockNccl); the watchdog only tries it
// and reads the async error on a later poll when a caller holds it. Every
// thread that touches CUDA for the communicator first makes its device
// current, since events and streams belong to the device current when they
// are made. A non-blocking communicator may answer
// ncclInProgress: the collective is then *pending* (not yet on the stream),
// and no other NCCL call may go to the communicator until
// ncclCommGetAsyncError stops saying ncclInProgress; the next Submit waits
// for that, and Poll moves the collective on. Once on the stream, the
// collective is *in progress*: the copies that follow it (its epilogue) and
// a CUDA event are queued behind it, and Poll finds it *done* when the
// event is. Poll also reads the communicator's async error and every
// collective's deadline.
//
// Any failure (an async error, a deadline, a failed call, Abort) breaks the
// communicator for good: every collective in flight and every later one
// fails with the error, which records the generation, and the next Poll
// starts ncclCommAbort on a thread of its own with a deadline of its own.
// The buffers of the collectives in flight stay alive until the abort
// returns, since the device may still write to them. An abort that does not
// return by its deadline is escalated (the watchdog of the watchdog): the
// hook, by default, logs the reason and exits the process with the
// launcher's restartable code, because a communicator stuck in abort holds
// the GPU and only a new process frees it. A communicator that is closed
// gets `abort_timeout` to finalize and then, when that fails, another to
// abort, so a slow clean close is never escalated.
#ifndef SLUICE_LIB_COLLECTIVE_NCCL_COMM_WATCH_H_
#define SLUICE_LIB_COLLECTIVE_NCCL_COMM_WATCH_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/collective/nccl_api.h"

namespace sluice::ccl {

// Called once, on the watchdog's thread, when a communicator's abort (or
// destroy) has not returned within its deadline.
using EscalateFn = std::function<void(const absl::Status& reason)>;

// Logs `reason` and exits the process with kRestartableExitCode.
void EscalateByExit(const absl::Status& reason);

struct NcclCommWatchOptions {
  // Names the communicator in messages: "rank 0 of 2 (generation 3)".
  std::string name;
  int64_t generation = 0;
  // How long ncclCommAbort (or the destroy of a communicator that is no
  // longer used) may take before `escalate` is called.
  absl::Duration abort_timeout = absl::Seconds(10);
  EscalateFn escalate = EscalateByExit;
  // Whether the watch destroys the stream once the communicator is
  // released (the group that made it may be gone by then).
  bool destroy_stream = false;
  // The CUDA device of the communicator and its stream, made current on
  // every thread before it touches them; -1: left as it is (tests).
  int device = -1;
};

// One collective.
struct NcclOp {
  // "allreduce (sum) of f32[1024] on rank 0 of 2 (generation 3)".
  std::string what;
  absl::Duration timeout;
  absl::Time deadline;
  // Stream work the collective must follow (the communicator's stream
  // waiting for the caller's), queued once the communicator takes calls,
  // just before `enqueue`; may be empty.
  std::function<cudaError_t()> prologue;
  // The NCCL call(s) that put the collective on the communicator's stream.
  std::function<ncclResult_t()> enqueue;
  // Stream work behind the collective (copies back to the host); may be
  // empty.
  std::function<cudaError_t()> epilogue;
  // Called once with OK when the collective and its epilogue are done, or
  // with the error.
  std::function<void(absl::Status)> done;
  // What the device may still read or write (the collective's buffers):
  // released when it is done, or once its communicator is aborted.
  std::shared_ptr<void> buffers;
};

class NcclCommWatch {
 public:
  enum class OpState { kPending, kInProgress };
  enum class CommState {
    kHealthy,
    kBroken,    // failed; the abort starts at the next Poll
    kAborting,  // ncclCommAbort runs
    kAborted,
    kClosing,  // no longer used: finalize and destroy run
    kClosed,
  };

  // Takes `comm`, used on `stream` (which the caller owns and keeps until
  // the watch is finished()).
  NcclCommWatch(NcclApi* api, ncclComm_t comm, cudaStream_t stream,
                NcclCommWatchOptions options);
  // Waits for an abort or destroy in progress.
  ~NcclCommWatch();

  // On the caller's thread; reports the outcome through `op.done`, maybe
  // before it returns (a refused or failed call).
  void Submit(NcclOp op);

  // Breaks the communicator from any thread: the collectives in flight and
  // every later one fail with `reason` (CANCELLED when OK). The first
  // failure wins.
  void Abort(absl::Status reason);

  // The communicator is no longer used: once nothing is in flight, the
  // next Polls destroy it.
  void Close();

  // OK while the communicator works; the error that broke it after.
  absl::Status health() const;

  // The watchdog's step: moves every collective on and fails, aborts or
  // escalates as above, taking `now` as the time.
  void Poll(absl::Time now);

  // Whether Poll has work: collectives in flight, or an abort or destroy to
  // start or to watch.
  bool busy() const;
  // Whether an abort or destroy is to start or runs.
  bool releasing() const;
  // Aborted or closed: the watchdog drops it.
  bool finished() const;

  // Called by Submit and Abort so that the watchdog polls soon.
  void SetWake(std::function<void()> wake);

  CommState state() const;
  // How many collectives are in flight in `state`.
  int CountInFlight(OpState state) const;

  // Held around every NCCL call on the communicator made outside the
  // watch (a split of it, and the polls that wait for the split).
  std::unique_lock<std::mutex> LockNccl() {
    return std::unique_lock<std::mutex>(nccl_mu_);
  }
  // Keeps `keep` (memory NCCL may still write, such as the slot of a split
  // that was given up) until the communicator is released.
  void KeepUntilReleased(std::shared_ptr<void> keep);

  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }
  const std::string& name() const { return options_.name; }

 private:
  struct InFlight {
    NcclOp op;
    OpState state;
    cudaEvent_t event = nullptr;
  };
  struct Finished {
    std::function<void(absl::Status)> done;
    absl::Status status;
  };

  // With mu_ held and the communicator's device current: queues
  // `flight`'s epilogue and event behind it.
  absl::Status Start(InFlight& flight);
  // With mu_ held: makes `cause` (of `culprit`, when one collective caused
  // it) the communicator's error unless it is broken already, and fails
  // every collective in flight into `finished`.
  void Break(const absl::Status& cause, const InFlight* culprit,
             std::vector<Finished>& finished);
  int CountInFlightLocked(OpState state) const;
  // With mu_ held: whether a call is pending. Only the newest can be, since
  // Submit waits for none before it calls NCCL.
  bool LastIsPendingLocked() const;
  // With mu_ held: starts the thread that aborts (or finalizes and
  // destroys) the communicator.
  void StartRelease(bool abort, absl::Time now);
  // The release thread: finalizes and destroys the communicator by
  // `finalize_deadline`, or aborts it; then calls `wake`.
  void Release(bool abort, absl::Time finalize_deadline,
               std::function<void()> wake);
  void SetDevice();
  void Wake();

  NcclApi* const api_;
  const ncclComm_t comm_;
  const cudaStream_t stream_;
  const NcclCommWatchOptions options_;

  // One collective submitted at a time.
  std::mutex issue_mu_;
  // One thread inside NCCL on the communicator at a time. Taken after
  // issue_mu_, and only tried while mu_ is held.
  std::mutex nccl_mu_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  CommState state_ = CommState::kHealthy;
  absl::Status broken_;
  bool close_requested_ = false;
  std::deque<InFlight> in_flight_;
  std::vector<cudaEvent_t> free_events_;
  // Buffers of failed collectives, kept until the abort returns.
  std::vector<std::shared_ptr<void>> graveyard_;
  std::function<void()> wake_;
  std::thread release_thread_;
  std::atomic<bool> released_{false};
  absl::Time release_deadline_;
  bool escalated_ = false;
};

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_NCCL_COMM_WATCH_H_
