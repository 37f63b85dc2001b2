// MonitorState: the step monitor's bookkeeping and verdicts, free of gRPC
// and of the clock, so that every verdict can be tested with a fake clock.
// MonitorServer (sluice/monitor/monitor.h) serves it. See docs/monitor.md.
#ifndef SLUICE_LIB_MONITOR_MONITOR_STATE_H_
#define SLUICE_LIB_MONITOR_MONITOR_STATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "lib/monitor/monitor_service.pb.h"
#include "lib/monitor/straggler_detector.h"
#include "sluice/monitor/monitor.h"

namespace sluice::monitor {

// How long a broken report stream must have carried nothing (not even the
// heartbeats, every 50 ms) for its end to count as silence rather than
// death: half of kLivenessPingTimeout (sluice/support/liveness.h), as a
// ping in flight when the network went away may have left just before the
// rank's last data.
inline constexpr absl::Duration kSilentBeforeBreak = absl::Milliseconds(500);

// An error naming the first option that cannot work (a world size below 1,
// a timeout that is not positive, a straggler threshold not above 1).
absl::Status ValidateMonitorOptions(const MonitorOptions& options);

// The job's state as MonitorServer::State answers it, from GetState's
// message.
JobState JobStateFromProto(const proto::JobState& state);

// Not thread-safe: the caller serializes all calls. `now` is the monitor's
// clock; signal times are taken relative to the newest signal of their
// batch, so the ranks' clocks need not agree with the monitor's.
class MonitorState {
 public:
  // `options` must pass ValidateMonitorOptions.
  explicit MonitorState(MonitorOptions options);

  // Applies one batch received on the report stream `stream` (an id unique
  // per stream, chosen by the caller). The stream's first batch makes it
  // its rank's current stream; a new incarnation of a rank replaces the old
  // process's steps, exit and verdicts. Errors (the stream should then be
  // ended with them): a rank outside the job, a batch naming another rank
  // or incarnation than the stream's first one, a stream opened before the
  // last Reset.
  absl::Status Apply(uint64_t stream, const proto::SignalBatch& batch,
                     absl::Time now);

  // The stream ended; `broken` when the rank did not close it (its process
  // died, or liveness gave its connection up). If it was its rank's current
  // stream and the rank had not finished, the rank is dead; or silent when
  // the stream broke kSilentBeforeBreak or more after the rank last spoke:
  // a process that dies resets its connection at once, while liveness gives
  // a connection up only after a ping went unanswered for its whole
  // timeout, so what went quiet first was the rank's host, the network or
  // the stopped process.
  void StreamEnded(uint64_t stream, absl::Time now, bool broken = false);

  // A launcher saw the rank's process end. An error for a rank outside the
  // job.
  absl::Status ApplyExit(const proto::ExitReport& exit, absl::Time now);

  // All ranks were restarted: forgets each rank's steps, contacts, exit and
  // streams (batches of streams opened before now are refused), keeps its
  // finished epochs, raised to at least `min_finished_epoch_floor`.
  void Reset(int64_t min_finished_epoch_floor);

  // Every rank's state and the verdicts that hold at `now`.
  proto::JobState Evaluate(absl::Time now) const;

  const MonitorOptions& options() const { return options_; }

 private:
  // What a rank last signalled, for the silent verdict's message.
  struct LastSignal {
    bool any = false;
    proto::Signal::Kind kind = proto::Signal::STEP_BEGIN;
    int64_t value = 0;  // the step or the epoch
  };
  // What a rank last did that counts as progress between steps, which the
  // idle time counts from.
  enum class Progress { kContact, kStepEnded, kPhaseEnded };
  struct Rank {
    uint64_t stream = 0;  // the current report stream; 0: none
    uint64_t incarnation = 0;
    bool contacted = false;
    absl::Time last_contact;
    LastSignal last_signal;
    int64_t last_begin_step = -1;
    int64_t last_end_step = -1;
    bool in_step = false;
    // The rank's own time (time_us) of last_begin_step's begin: a step's
    // time is measured on the rank's clock, free of the network's delays.
    int64_t step_begin_sent_us = 0;
    absl::Time step_begun;
    std::string step_kind;
    absl::Time step_ended;  // when last_end_step ended
    std::string phase;      // the open phase; "": none
    absl::Time phase_begun;
    // The rank's own times (time_us) of last_end_step's end and of the open
    // phase's begin: a new stream of the same process repeats both, and a
    // repeat is no new progress.
    int64_t step_end_sent_us = 0;
    int64_t phase_begin_sent_us = 0;
    Progress progress = Progress::kContact;
    absl::Time progress_at;
    std::string ended_phase;  // the phase that ended, for kPhaseEnded
    int64_t finished_epochs = 0;
    bool finished = false;
    absl::Time finished_at;
    std::optional<proto::ExitReport> exit;
    absl::Time exited_at;
    bool dropped = false;  // the current stream ended before TRAIN_END
    absl::Time dropped_at;
    std::string dropped_where;  // "in step 12"
    // The stream broke after this long without a word: it went silent.
    std::optional<absl::Duration> dropped_silent;
  };
  struct Stream {
    int rank = 0;
    uint64_t incarnation = 0;
  };

  // Forgets what the rank's previous process did; keeps finished_epochs.
  static void ForgetProcess(Rank& rank);
  void ApplySignal(int index, Rank& rank, const proto::Signal& signal,
                   absl::Time at);
  static void MarkProgress(Rank& rank, Progress what, absl::Time at);
  std::optional<proto::Verdict> VerdictOf(int index, const Rank& rank,
                                          absl::Time now) const;
  // The stuck limit of a step of `kind`, and why it applies when the kind
  // has no limit of its own.
  absl::Duration StepLimit(const std::string& kind, std::string* note) const;
  // The limit of the rank's time between steps: its phase's, or the
  // progress limit; zero when none applies.
  absl::Duration BetweenStepsLimit(const Rank& rank) const;
  // The stuck verdict of a rank that is between steps, if it has been for
  // longer than BetweenStepsLimit.
  std::optional<proto::Verdict> BetweenStepsVerdict(int index, const Rank& rank,
                                                    absl::Time now) const;

  const MonitorOptions options_;
  std::vector<Rank> ranks_;
  std::map<uint64_t, Stream> streams_;
  std::set<uint64_t> retired_streams_;  // opened before the last Reset
  StragglerDetector stragglers_;
};

}  // namespace sluice::monitor

#endif  // SLUICE_LIB_MONITOR_MONITOR_STATE_H_
