#include "lib/monitor/straggler_detector.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::monitor {
namespace {

template <typename Durations>
absl::Duration Median(const Durations& durations) {
  std::vector<absl::Duration> sorted(durations.begin(), durations.end());
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  if (n % 2 == 1) return sorted[n / 2];
  return (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

// The median of `sorted` less one element equal to `*own` (none when
// null): a rank's peers without the rank, since with few ranks a slow rank
// would pull its own reference up (with two, halfway). None when nothing is
// left.
std::optional<absl::Duration> MedianWithout(
    const std::vector<absl::Duration>& sorted, const absl::Duration* own) {
  const size_t size = sorted.size();
  size_t skip = size;
  if (own != nullptr) {
    skip =
        std::lower_bound(sorted.begin(), sorted.end(), *own) - sorted.begin();
  }
  const size_t peers = skip < size ? size - 1 : size;
  if (peers == 0) return std::nullopt;
  auto at = [&](size_t k) { return sorted[k < skip ? k : k + 1]; };
  if (peers % 2 == 1) return at(peers / 2);
  return (at(peers / 2 - 1) + at(peers / 2)) / 2;
}

// "412 ms"; sub-10 ms steps keep a decimal, long ones read in seconds.
std::string StepTime(absl::Duration d) {
  const double ms = absl::ToDoubleMilliseconds(d);
  if (ms < 10) return absl::StrFormat("%.1f ms", ms);
  if (ms < 10'000) return absl::StrFormat("%.0f ms", ms);
  return absl::StrFormat("%.1f s", ms / 1000);
}

std::string Ratio(absl::Duration of, absl::Duration to) {
  return absl::StrFormat("%.1fx", absl::FDivDuration(of, to));
}

// "its last 5 steps took a median 412 ms", or "its last step took 412 ms".
std::string LastSteps(const std::vector<absl::Duration>& run) {
  if (run.size() == 1) {
    return absl::StrCat("its last step took ", StepTime(run[0]));
  }
  return absl::StrCat("its last ", run.size(), " steps took a median ",
                      StepTime(Median(run)));
}

// How often per round of steps (one step of every rank) the peers' pace is
// taken anew: every step up to this many ranks.
constexpr int64_t kSnapshotsPerRound = 64;

}  // namespace

StragglerDetector::StragglerDetector(int world_size, double threshold,
                                     int steps)
    : world_size_(world_size),
      threshold_(threshold),
      steps_(steps),
      ranks_(world_size),
      snapshot_of_(world_size) {}

void StragglerDetector::Forget(int rank) {
  ranks_[rank] = Rank();
  snapshot_stale_ = true;
}

void StragglerDetector::TakeSnapshot() {
  snapshot_recent_.clear();
  snapshot_latest_.clear();
  for (int index = 0; index < world_size_; ++index) {
    const Rank& rank = ranks_[index];
    snapshot_of_[index].reset();
    if (rank.steps_timed < kMinPacedSteps) continue;
    snapshot_recent_.push_back(rank.recent_median);
    snapshot_latest_.push_back(rank.latest);
    snapshot_of_[index] = Paced{rank.recent_median, rank.latest};
  }
  std::sort(snapshot_recent_.begin(), snapshot_recent_.end());
  std::sort(snapshot_latest_.begin(), snapshot_latest_.end());
  steps_since_snapshot_ = 0;
  snapshot_stale_ = false;
}

std::optional<absl::Duration> StragglerDetector::PeerRecentPace(
    int rank) const {
  const std::optional<Paced>& own = snapshot_of_[rank];
  return MedianWithout(snapshot_recent_,
                       own.has_value() ? &own->recent_median : nullptr);
}

std::optional<absl::Duration> StragglerDetector::PeerPace(int rank) const {
  const std::optional<Paced>& own = snapshot_of_[rank];
  const std::optional<absl::Duration> recent = PeerRecentPace(rank);
  const std::optional<absl::Duration> latest =
      MedianWithout(snapshot_latest_, own.has_value() ? &own->latest : nullptr);
  if (!recent.has_value() || !latest.has_value()) return std::nullopt;
  return std::max(*recent, *latest);
}

std::optional<absl::Duration> StragglerDetector::Baseline(
    const Rank& rank) const {
  if (rank.baseline.size() < static_cast<size_t>(kMinPacedSteps)) {
    return std::nullopt;
  }
  return rank.baseline_median;
}

std::optional<absl::Duration> StragglerDetector::Reference(int rank) const {
  if (world_size_ > 1) return PeerPace(rank);
  // Alone in its job a rank has only its own past to go by.
  const Rank& own = ranks_[rank];
  if (own.baseline.size() < static_cast<size_t>(kMinSoloBaselineSteps)) {
    return std::nullopt;
  }
  return Baseline(own);
}

void StragglerDetector::StepTimed(int index, int64_t step, absl::Duration took,
                                  absl::Time begun, absl::Time ended) {
  Rank& rank = ranks_[index];
  rank.recent.push_back(took);
  if (rank.recent.size() > static_cast<size_t>(kRecentSteps)) {
    rank.recent.pop_front();
  }
  rank.recent_median = Median(rank.recent);
  rank.latest = took;
  if (++rank.steps_timed == kMinPacedSteps) snapshot_stale_ = true;
  if (snapshot_stale_ || ++steps_since_snapshot_ * kSnapshotsPerRound >=
                             static_cast<int64_t>(snapshot_recent_.size())) {
    TakeSnapshot();
  }
  const std::optional<absl::Duration> reference = Reference(index);
  bool slow = false;
  if (reference.has_value() && *reference > absl::ZeroDuration()) {
    slow = absl::FDivDuration(took, *reference) > threshold_ &&
           took - *reference >= kMinSlowExcess;
    if (steps_ > 0) Judge(index, step, took, *reference, slow, begun, ended);
  }
  // Only healthy steps make the baseline, so that it keeps the rank's pace
  // from before it slowed down.
  if (!slow) {
    rank.baseline.push_back(took);
    if (rank.baseline.size() > static_cast<size_t>(kBaselineSteps)) {
      rank.baseline.pop_front();
    }
    rank.baseline_median = Median(rank.baseline);
  }
}

void StragglerDetector::Judge(int index, int64_t step, absl::Duration took,
                              absl::Duration reference, bool slow,
                              absl::Time begun, absl::Time ended) {
  Rank& rank = ranks_[index];
  // While healthy the run counts slow steps; while straggling, healthy ones.
  if (slow == rank.straggling) {
    rank.run.clear();
    return;
  }
  if (rank.run.empty()) {
    rank.run_first_step = step;
    rank.run_begun = begun;
  }
  rank.run.push_back(took);
  if (rank.run.size() < static_cast<size_t>(steps_)) return;

  const std::optional<absl::Duration> baseline = Baseline(rank);
  const absl::Duration median = Median(rank.run);
  std::string compared;
  if (world_size_ > 1) {
    compared = absl::StrCat(Ratio(median, reference), " its peers' ",
                            StepTime(reference));
    if (baseline.has_value()) {
      absl::StrAppend(&compared, " (and ", Ratio(median, *baseline),
                      " its own earlier ", StepTime(*baseline), ")");
    }
  } else {
    compared = absl::StrCat(Ratio(median, reference), " its own earlier ",
                            StepTime(reference));
  }
  const std::string who = absl::StrCat("rank ", index);
  if (!rank.straggling) {
    rank.straggling = true;
    rank.straggled_from = rank.run_first_step;
    rank.verdict.set_rank(index);
    rank.verdict.set_kind(proto::Verdict::STRAGGLER);
    rank.verdict.set_message(
        absl::StrCat(who, " straggles: ", LastSteps(rank.run), ", ", compared,
                     ", since step ", rank.run_first_step, " at ",
                     absl::FormatTime("%Y-%m-%d %H:%M:%E3S UTC", rank.run_begun,
                                      absl::UTCTimeZone())));
    rank.verdict.set_time_us(absl::ToUnixMicros(ended));
  } else {
    rank.straggling = false;
    rank.recovered = absl::StrCat(
        who, " no longer straggles: ", LastSteps(rank.run), ", ", compared,
        ", since step ", rank.run_first_step, "; it straggled from step ",
        rank.straggled_from, " to step ", rank.run_first_step - 1);
    rank.verdict.Clear();
  }
  rank.run.clear();
}

std::optional<proto::Verdict> StragglerDetector::VerdictOf(int rank) const {
  if (!ranks_[rank].straggling) return std::nullopt;
  return ranks_[rank].verdict;
}

proto::StepTimes StragglerDetector::Stats(int index) const {
  const Rank& rank = ranks_[index];
  proto::StepTimes stats;
  stats.set_steps(rank.steps_timed);
  if (rank.steps_timed == 0) return stats;
  stats.set_recent_median_us(absl::ToInt64Microseconds(rank.recent_median));
  if (const std::optional<absl::Duration> baseline = Baseline(rank)) {
    stats.set_baseline_median_us(absl::ToInt64Microseconds(*baseline));
    if (*baseline > absl::ZeroDuration()) {
      stats.set_individual(absl::FDivDuration(rank.recent_median, *baseline));
    }
  }
  if (rank.steps_timed >= kMinPacedSteps) {
    const std::optional<absl::Duration> peers = PeerRecentPace(index);
    if (peers.has_value() && *peers > absl::ZeroDuration()) {
      stats.set_relative(absl::FDivDuration(rank.recent_median, *peers));
    }
  }
  stats.set_straggling(rank.straggling);
  return stats;
}

}  // namespace sluice::monitor
