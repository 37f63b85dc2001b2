// StragglerDetector: per-rank step-time statistics, and the straggler
// verdict of a rank whose steps take much longer than its peers' (or, alone
// in its job, than its own earlier ones). MonitorState feeds it the time of
// each step; see docs/monitor.md#stragglers.
#ifndef SLUICE_LIB_MONITOR_STRAGGLER_DETECTOR_H_
#define SLUICE_LIB_MONITOR_STRAGGLER_DETECTOR_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "lib/monitor/monitor_service.pb.h"

namespace sluice::monitor {

// The steps of a rank's recent pace. Its median is what the rank's peers
// compare against: long enough that one slow step of a peer does not move
// it, short enough that a job's new pace shows within a few rounds.
inline constexpr int kRecentSteps = 16;
// The healthy steps of a rank's own baseline (its earlier pace).
inline constexpr int kBaselineSteps = 64;
// Fewer steps than this tell nothing of a pace: a rank is nobody's peer,
// and has no baseline, until it has timed as many.
inline constexpr int kMinPacedSteps = 3;
// A baseline judges a rank alone in its job only once it holds this many
// healthy steps, so that a slow start is not taken for its normal pace.
inline constexpr int kMinSoloBaselineSteps = 8;
// A step is slow only if it also exceeds its reference by this much: at
// shorter scales a step's time is the scheduler's noise (a rank preempted
// for a few hundred microseconds looks many times slower than its peers),
// and a delay this small costs the job nothing worth a verdict.
inline constexpr absl::Duration kMinSlowExcess = absl::Milliseconds(1);
// The most consecutive steps a verdict may wait for: the detector keeps
// that many step times per rank.
inline constexpr int kMaxStragglerSteps = 1000;

// Not thread-safe: MonitorState serializes all calls.
class StragglerDetector {
 public:
  // `threshold` > 1: a step slower than that many times its reference is
  // slow. `steps`: consecutive slow steps that make a straggler, and
  // consecutive healthy ones that clear it; 0 keeps statistics only.
  StragglerDetector(int world_size, double threshold, int steps);

  // Step `step` of `rank` took `took` (on the rank's clock, begin to end),
  // begun at `begun` and ended at `ended` on the monitor's clock.
  void StepTimed(int rank, int64_t step, absl::Duration took, absl::Time begun,
                 absl::Time ended);

  // The rank's process was replaced, or the job reset: its times and
  // verdicts go.
  void Forget(int rank);

  // The straggler verdict of `rank` while it holds.
  std::optional<proto::Verdict> VerdictOf(int rank) const;

  // The rank's statistics as GetState shows them.
  proto::StepTimes Stats(int rank) const;

  // What the rank's last straggler verdict became when it cleared; "" when
  // none cleared since the rank's process started.
  const std::string& Recovered(int rank) const {
    return ranks_[rank].recovered;
  }

 private:
  struct Rank {
    std::deque<absl::Duration> recent;    // the last kRecentSteps
    std::deque<absl::Duration> baseline;  // the last healthy steps
    // Of `baseline`, kept as it changes so that reading the state (every
    // 200 ms, for every rank) sorts nothing.
    absl::Duration baseline_median;
    absl::Duration recent_median;  // of `recent`
    absl::Duration latest;         // the last step's time
    int64_t steps_timed = 0;
    // Consecutive slow steps, or healthy ones while straggling: the run
    // whose length decides a verdict or its end.
    std::vector<absl::Duration> run;
    int64_t run_first_step = -1;
    absl::Time run_begun;
    bool straggling = false;
    int64_t straggled_from = -1;  // the first step of the slow run
    proto::Verdict verdict;       // while straggling
    std::string recovered;
  };

  // What a step of `rank` is compared with: its peers' pace, or with no
  // peers in a one-rank job its own baseline; none while neither is known.
  std::optional<absl::Duration> Reference(int rank) const;
  // The peers' pace: the larger of the median of the other ranks' recent
  // medians and the median of their latest steps. The recent medians lag
  // when the whole job changes pace (a larger batch, a slower file system),
  // which would make every rank look slow for a few steps; the latest steps
  // follow at once but are noisy alone. From a snapshot taken at most
  // 1/64 of a round of steps ago, so that a step costs O(64 log ranks)
  // amortized rather than a pass over every rank.
  std::optional<absl::Duration> PeerPace(int rank) const;
  // The median of the other ranks' recent medians alone: the relative
  // score's denominator.
  std::optional<absl::Duration> PeerRecentPace(int rank) const;
  void TakeSnapshot();
  std::optional<absl::Duration> Baseline(const Rank& rank) const;
  // Counts the step into the rank's run and starts or ends its verdict
  // once the run is long enough.
  void Judge(int index, int64_t step, absl::Duration took,
             absl::Duration reference, bool slow, absl::Time begun,
             absl::Time ended);

  const int world_size_;
  const double threshold_;
  const int steps_;
  std::vector<Rank> ranks_;
  // The paced ranks' recent medians and latest step times at the last
  // snapshot, each sorted; snapshot_of_[rank] holds the rank's two values
  // in them (none: the rank was not paced yet).
  struct Paced {
    absl::Duration recent_median;
    absl::Duration latest;
  };
  std::vector<absl::Duration> snapshot_recent_;
  std::vector<absl::Duration> snapshot_latest_;
  std::vector<std::optional<Paced>> snapshot_of_;
  int64_t steps_since_snapshot_ = 0;
  bool snapshot_stale_ = true;
};

}  // namespace sluice::monitor

#endif  // SLUICE_LIB_MONITOR_STRAGGLER_DETECTOR_H_
