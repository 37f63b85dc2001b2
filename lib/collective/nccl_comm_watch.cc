#include "lib/collective/nccl_comm_watch.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lib/collective/group_error.h"
#include "sluice/support/error_util.h"
#include "sluice/support/exit_codes.h"
#include "sluice/support/logging.h"

namespace sluice::ccl {
namespace {

// How often a finalizing communicator's async error is read.
constexpr absl::Duration kFinalizePoll = absl::Milliseconds(1);

}  // namespace

void EscalateByExit(const absl::Status& reason) {
  SLUICE_LOG(ERROR) << "nccl watchdog: " << reason.message()
                    << "; exiting with code " << kRestartableExitCode
                    << " so that the launcher restarts this rank";
  // Not exit(): static destructors and atexit handlers may call into the
  // CUDA runtime or NCCL, which is what hangs.
  std::_Exit(kRestartableExitCode);
}

NcclCommWatch::NcclCommWatch(NcclApi* api, ncclComm_t comm, cudaStream_t stream,
                             NcclCommWatchOptions options)
    : api_(api), comm_(comm), stream_(stream), options_(std::move(options)) {}

NcclCommWatch::~NcclCommWatch() {
  if (release_thread_.joinable()) release_thread_.join();
  SetDevice();
  for (cudaEvent_t event : free_events_) api_->EventDestroy(event);
  for (InFlight& flight : in_flight_) {
    if (flight.event != nullptr) api_->EventDestroy(flight.event);
  }
  if (options_.destroy_stream) api_->StreamDestroy(stream_);
}

void NcclCommWatch::SetWake(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(mu_);
  wake_ = std::move(wake);
}

void NcclCommWatch::SetDevice() {
  if (options_.device >= 0) api_->SetDevice(options_.device);
}

void NcclCommWatch::KeepUntilReleased(std::shared_ptr<void> keep) {
  std::lock_guard<std::mutex> lock(mu_);
  graveyard_.push_back(std::move(keep));
}

void NcclCommWatch::Wake() {
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake = wake_;
  }
  if (wake) wake();
}

void NcclCommWatch::Submit(NcclOp op) {
  std::lock_guard<std::mutex> issue(issue_mu_);
  std::vector<Finished> finished;
  {
    std::unique_lock<std::mutex> lock(mu_);
    // NCCL takes no call on a communicator whose last call is in progress.
    changed_.wait_until(lock, absl::ToChronoTime(op.deadline), [this] {
      return state_ != CommState::kHealthy || !LastIsPendingLocked();
    });
    absl::Status refused;
    if (state_ == CommState::kHealthy && close_requested_) {
      refused = absl::FailedPreconditionError(
          absl::StrCat(op.what, " refused: the communicator is closed"));
    } else if (state_ != CommState::kHealthy) {
      refused = RefusedError(broken_, op.what);
    } else if (LastIsPendingLocked()) {
      Break(absl::DeadlineExceededError(absl::StrCat(
                "no result within ", absl::FormatDuration(op.timeout),
                ": the collective before it was still being enqueued")),
            nullptr, finished);
      refused = WithMessagePrefix(broken_, absl::StrCat(op.what, ": "));
    }
    if (!refused.ok()) {
      lock.unlock();
      for (Finished& f : finished) f.done(std::move(f.status));
      op.done(std::move(refused));
      return;
    }
  }
  // Outside mu_: the watchdog keeps polling while NCCL takes the call.
  // Only now that the previous call has left ncclInProgress may stream
  // work go to the communicator's stream.
  ncclResult_t result = ncclSuccess;
  absl::Status ordered;
  {
    std::lock_guard<std::mutex> nccl(nccl_mu_);
    SetDevice();
    if (op.prologue) {
      ordered = CudaStatus(*api_, op.prologue(),
                           "ordering it after the work before it");
    }
    if (ordered.ok()) result = op.enqueue();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_.push_back(InFlight{std::move(op), OpState::kPending});
    InFlight& flight = in_flight_.back();
    if (state_ != CommState::kHealthy) {
      // Aborted while NCCL took the call: it fails with the rest.
      std::string what = flight.op.what;
      finished.push_back(
          {std::move(flight.op.done), WithMessagePrefix(broken_, what + ": ")});
      graveyard_.push_back(std::move(flight.op.buffers));
      in_flight_.pop_back();
    } else if (!ordered.ok()) {
      Break(ordered, &flight, finished);
    } else if (result != ncclSuccess && result != ncclInProgress) {
      Break(NcclStatus(*api_, result, "the nccl call", comm_), &flight,
            finished);
    } else if (result == ncclSuccess) {
      flight.state = OpState::kInProgress;
      absl::Status started = Start(flight);
      if (!started.ok()) Break(started, &flight, finished);
    }
  }
  for (Finished& f : finished) f.done(std::move(f.status));
  Wake();
}

absl::Status NcclCommWatch::Start(InFlight& flight) {
  if (flight.op.epilogue) {
    absl::Status copied =
        CudaStatus(*api_, flight.op.epilogue(), "queueing the copies after it");
    if (!copied.ok()) return copied;
  }
  if (free_events_.empty()) {
    cudaEvent_t event = nullptr;
    absl::Status created =
        CudaStatus(*api_, api_->EventCreate(&event), "cudaEventCreate");
    if (!created.ok()) return created;
    free_events_.push_back(event);
  }
  flight.event = free_events_.back();
  free_events_.pop_back();
  return CudaStatus(*api_, api_->EventRecord(flight.event, stream_),
                    "cudaEventRecord");
}

void NcclCommWatch::Abort(absl::Status reason) {
  if (reason.ok()) reason = absl::CancelledError("aborted with no reason");
  std::vector<Finished> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Break(WithMessagePrefix(reason, "aborted: "), nullptr, finished);
  }
  for (Finished& f : finished) f.done(std::move(f.status));
  Wake();
}

void NcclCommWatch::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    close_requested_ = true;
  }
  Wake();
}

absl::Status NcclCommWatch::health() const {
  std::lock_guard<std::mutex> lock(mu_);
  return broken_;
}

void NcclCommWatch::Break(const absl::Status& cause, const InFlight* culprit,
                          std::vector<Finished>& finished) {
  if (state_ != CommState::kHealthy) return;
  broken_ = GroupError(
      cause,
      culprit != nullptr
          ? absl::StrCat(culprit->op.what, ": ")
          : absl::StrCat("nccl communicator of ", options_.name, ": "),
      options_.generation);
  state_ = CommState::kBroken;
  for (InFlight& flight : in_flight_) {
    absl::Status error =
        &flight == culprit
            ? broken_
            : WithMessagePrefix(broken_, absl::StrCat(flight.op.what, ": "));
    finished.push_back({std::move(flight.op.done), std::move(error)});
    graveyard_.push_back(std::move(flight.op.buffers));
    // Its event may still be recorded on the stream: destroyed once the
    // abort has returned.
    if (flight.event != nullptr) free_events_.push_back(flight.event);
  }
  in_flight_.clear();
  changed_.notify_all();
}

void NcclCommWatch::StartRelease(bool abort, absl::Time now) {
  state_ = abort ? CommState::kAborting : CommState::kClosing;
  // A close may spend one abort_timeout finalizing before it aborts: the
  // abort then gets the whole of a second one.
  release_deadline_ = now + (abort ? 1 : 2) * options_.abort_timeout;
  // Poll joins the thread with mu_ held, so it must not take mu_ to wake.
  release_thread_ = std::thread(&NcclCommWatch::Release, this, abort,
                                absl::Now() + options_.abort_timeout, wake_);
}

void NcclCommWatch::Release(bool abort, absl::Time finalize_deadline,
                            std::function<void()> wake) {
  {
    // Waits for a caller inside NCCL on the communicator to come out: an
    // abort under its feet is what NCCL forbids. One that never comes out
    // is escalated at the deadline.
    std::lock_guard<std::mutex> nccl(nccl_mu_);
    SetDevice();
    if (!abort) {
      // Flush and free; a finalize that fails or outlasts its deadline
      // turns into an abort.
      ncclResult_t result = api_->CommFinalize(comm_);
      while (result == ncclInProgress && absl::Now() < finalize_deadline) {
        absl::SleepFor(kFinalizePoll);
        ncclResult_t async = ncclSuccess;
        result = api_->CommGetAsyncError(comm_, &async);
        if (result == ncclSuccess) result = async;
      }
      abort = result != ncclSuccess || api_->CommDestroy(comm_) != ncclSuccess;
    }
    if (abort) {
      // How long NCCL takes to abort is what abort_timeout is set from.
      const absl::Time start = absl::Now();
      api_->CommAbort(comm_);
      SLUICE_LOG(INFO) << "ncclCommAbort of " << options_.name
                       << " returned in "
                       << absl::FormatDuration(absl::Now() - start);
    }
  }
  released_.store(true);
  if (wake) wake();
}

void NcclCommWatch::Poll(absl::Time now) {
  std::vector<Finished> finished;
  std::vector<std::shared_ptr<void>> released_buffers;
  absl::Status escalation;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // A caller inside NCCL holds the communicator: its async error is read
    // on a later poll, and until then no collective is taken as enqueued.
    std::unique_lock<std::mutex> nccl(nccl_mu_, std::try_to_lock);
    if (state_ == CommState::kHealthy) {
      ncclResult_t async = ncclInProgress;
      if (nccl.owns_lock()) {
        ncclResult_t read = api_->CommGetAsyncError(comm_, &async);
        if (read != ncclSuccess) async = read;
      }
      if (async != ncclSuccess && async != ncclInProgress) {
        std::string last = api_->GetLastError(comm_);
        Break(absl::UnavailableError(absl::StrCat(
                  "nccl reported an asynchronous error (a peer or the "
                  "network failed): ",
                  api_->GetErrorString(async),
                  last.empty() ? "" : absl::StrCat(": ", last))),
              nullptr, finished);
      }
      // Collectives finish in stream order: past the first that is not
      // done, only deadlines need a look.
      bool later_not_done = false;
      for (auto it = in_flight_.begin();
           state_ == CommState::kHealthy && it != in_flight_.end();) {
        InFlight& flight = *it;
        if (flight.state == OpState::kPending && async == ncclSuccess) {
          flight.state = OpState::kInProgress;
          changed_.notify_all();
          // The watchdog's thread: its current device is whichever
          // communicator it served last (Submit has set it already).
          SetDevice();
          absl::Status started = Start(flight);
          if (!started.ok()) {
            Break(started, &flight, finished);
            break;
          }
        }
        if (flight.state == OpState::kInProgress && !later_not_done) {
          cudaError_t query = api_->EventQuery(flight.event);
          if (query == cudaSuccess) {
            finished.push_back({std::move(flight.op.done), absl::OkStatus()});
            released_buffers.push_back(std::move(flight.op.buffers));
            free_events_.push_back(flight.event);
            it = in_flight_.erase(it);
            continue;
          }
          if (query != cudaErrorNotReady) {
            Break(CudaStatus(*api_, query, "cudaEventQuery"), &flight,
                  finished);
            break;
          }
        }
        later_not_done = true;
        if (now >= flight.op.deadline) {
          Break(
              absl::DeadlineExceededError(absl::StrCat(
                  "no result within ", absl::FormatDuration(flight.op.timeout),
                  flight.state == OpState::kPending
                      ? " (nccl was still enqueuing it)"
                      : "")),
              &flight, finished);
          break;
        }
        ++it;
      }
    }
    if (nccl.owns_lock()) nccl.unlock();
    if (state_ == CommState::kBroken) {
      StartRelease(/*abort=*/true, now);
    } else if (state_ == CommState::kHealthy && close_requested_ &&
               in_flight_.empty()) {
      StartRelease(/*abort=*/false, now);
    }
    if (state_ == CommState::kAborting || state_ == CommState::kClosing) {
      if (released_.load()) {
        release_thread_.join();
        state_ = state_ == CommState::kAborting ? CommState::kAborted
                                                : CommState::kClosed;
        released_buffers.insert(released_buffers.end(),
                                std::make_move_iterator(graveyard_.begin()),
                                std::make_move_iterator(graveyard_.end()));
        graveyard_.clear();
      } else if (now >= release_deadline_ && !escalated_) {
        escalated_ = true;
        escalation = absl::DeadlineExceededError(absl::StrCat(
            state_ == CommState::kAborting ? "ncclCommAbort"
                                           : "destroying the communicator",
            " of ", options_.name, " did not return within ",
            absl::FormatDuration(options_.abort_timeout),
            broken_.ok()
                ? ""
                : absl::StrCat(" (it broke with: ", broken_.message(), ")")));
      }
    }
  }
  for (Finished& f : finished) f.done(std::move(f.status));
  released_buffers.clear();
  if (!escalation.ok()) options_.escalate(escalation);
}

bool NcclCommWatch::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !in_flight_.empty() || state_ == CommState::kBroken ||
         state_ == CommState::kAborting || state_ == CommState::kClosing ||
         (state_ == CommState::kHealthy && close_requested_);
}

bool NcclCommWatch::releasing() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_ == CommState::kBroken || state_ == CommState::kAborting ||
         state_ == CommState::kClosing ||
         (state_ == CommState::kHealthy && close_requested_);
}

bool NcclCommWatch::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_ == CommState::kAborted || state_ == CommState::kClosed;
}

NcclCommWatch::CommState NcclCommWatch::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

int NcclCommWatch::CountInFlight(OpState state) const {
  std::lock_guard<std::mutex> lock(mu_);
  return CountInFlightLocked(state);
}

bool NcclCommWatch::LastIsPendingLocked() const {
  return !in_flight_.empty() && in_flight_.back().state == OpState::kPending;
}

int NcclCommWatch::CountInFlightLocked(OpState state) const {
  int count = 0;
  for (const InFlight& flight : in_flight_) count += flight.state == state;
  return count;
}

}  // namespace sluice::ccl
