#include "lib/monitor/monitor_state.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::monitor {
namespace {

// "12.4" for elapsed times, "10" or "0.5" for limits.
std::string Elapsed(absl::Duration d) {
  return absl::StrFormat("%.1f s", absl::ToDoubleSeconds(d));
}
std::string Limit(absl::Duration d) {
  return absl::StrFormat("%g s", absl::ToDoubleSeconds(d));
}

std::string ExitDescription(const proto::ExitReport& exit) {
  if (exit.signal() != 0 && exit.exit_code() != 0) {
    return absl::StrCat("exited with code ", exit.exit_code(),
                        " (killed by signal ", exit.signal(), ")");
  }
  if (exit.signal() != 0) {
    return absl::StrCat("killed by signal ", exit.signal());
  }
  return absl::StrCat("exited with code ", exit.exit_code());
}

// "step 40 ended 3.1 s ago", for what a rank between steps last did.
std::string StepEndedAgo(int64_t step, absl::Duration ago) {
  return absl::StrCat("step ", step, " ended ", Elapsed(ago), " ago");
}

proto::Verdict MakeVerdict(int rank, proto::Verdict::Kind kind,
                           std::string message, absl::Time at) {
  proto::Verdict verdict;
  verdict.set_rank(rank);
  verdict.set_kind(kind);
  verdict.set_message(std::move(message));
  verdict.set_time_us(absl::ToUnixMicros(at));
  return verdict;
}

}  // namespace

absl::Status ValidateMonitorOptions(const MonitorOptions& options) {
  if (options.world_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "monitor: world size must be at least 1, not ", options.world_size));
  }
  if (options.stuck_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("monitor: the stuck timeout must be positive, not ",
                     absl::FormatDuration(options.stuck_timeout)));
  }
  if (options.silent_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("monitor: the silent timeout must be positive, not ",
                     absl::FormatDuration(options.silent_timeout)));
  }
  if (options.progress_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "monitor: the progress timeout must not be negative (zero: none), "
        "not ",
        absl::FormatDuration(options.progress_timeout)));
  }
  for (const auto& [phase, timeout] : options.phase_timeouts) {
    if (phase.empty()) {
      return absl::InvalidArgumentError(
          "monitor: a phase limit needs the phase's name");
    }
    if (timeout <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "monitor: the limit of phase '", phase, "' must be positive, not ",
          absl::FormatDuration(timeout)));
    }
  }
  for (const auto& [kind, timeout] : options.step_kind_timeouts) {
    if (kind.empty()) {
      return absl::InvalidArgumentError(
          "monitor: a step kind needs a name (the empty kind is the normal "
          "step, limited by the stuck timeout)");
    }
    if (timeout <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "monitor: the limit of step kind '", kind, "' must be positive, not ",
          absl::FormatDuration(timeout)));
    }
  }
  // Written so that nan fails too.
  if (!(options.straggler_threshold > 1) ||
      !std::isfinite(options.straggler_threshold)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "monitor: the straggler threshold must be a finite ratio above 1, "
        "not ",
        options.straggler_threshold));
  }
  if (options.straggler_steps < 0 ||
      options.straggler_steps > kMaxStragglerSteps) {
    return absl::InvalidArgumentError(absl::StrCat(
        "monitor: straggler steps must be 0 (no verdicts) to ",
        kMaxStragglerSteps, ", not ", options.straggler_steps));
  }
  return absl::OkStatus();
}

MonitorState::MonitorState(MonitorOptions options)
    : options_(std::move(options)),
      ranks_(options_.world_size),
      stragglers_(options_.world_size, options_.straggler_threshold,
                  options_.straggler_steps) {}

void MonitorState::ForgetProcess(Rank& rank) {
  const int64_t finished_epochs = rank.finished_epochs;
  rank = Rank();
  rank.finished_epochs = finished_epochs;
}

absl::Status MonitorState::Apply(uint64_t stream,
                                 const proto::SignalBatch& batch,
                                 absl::Time now) {
  if (retired_streams_.count(stream) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("monitor: the report stream of rank ", batch.rank(),
                     " was opened before the monitor was reset; reconnect"));
  }
  const int index = batch.rank();
  if (index < 0 || index >= options_.world_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "monitor: rank ", index, " is outside the job of ", options_.world_size,
        " ranks (0 to ", options_.world_size - 1, ")"));
  }
  auto [it, opened] =
      streams_.try_emplace(stream, Stream{index, batch.incarnation()});
  if (!opened && (it->second.rank != index ||
                  it->second.incarnation != batch.incarnation())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "monitor: a report stream of rank ", it->second.rank, " incarnation ",
        it->second.incarnation, " sent a batch as rank ", index,
        " incarnation ", batch.incarnation()));
  }
  Rank& rank = ranks_[index];
  if (opened) {
    if (rank.incarnation != batch.incarnation()) {
      ForgetProcess(rank);
      stragglers_.Forget(index);
    }
    rank.incarnation = batch.incarnation();
    rank.stream = stream;
    rank.dropped = false;
  } else if (rank.stream != stream) {
    // A newer stream of the rank took over; what the old one still carries
    // is older than what the new one said.
    return absl::OkStatus();
  }
  if (!rank.contacted) {
    // A rank between steps is idle from the moment the monitor meets it.
    rank.progress = Progress::kContact;
    rank.progress_at = now;
  }
  rank.contacted = true;
  rank.last_contact = now;
  // Signal times count back from the batch's newest signal, on the rank's
  // own clock, so clock skew between hosts does not matter.
  int64_t newest_us = 0;
  for (const proto::Signal& signal : batch.signals()) {
    newest_us = std::max(newest_us, signal.time_us());
  }
  for (const proto::Signal& signal : batch.signals()) {
    const int64_t age_us = std::max<int64_t>(0, newest_us - signal.time_us());
    ApplySignal(index, rank, signal, now - absl::Microseconds(age_us));
  }
  return absl::OkStatus();
}

void MonitorState::MarkProgress(Rank& rank, Progress what, absl::Time at) {
  // Never back past the first contact: a rank meeting a restarted monitor
  // repeats its last step end, which may be older than what followed it.
  if (at < rank.progress_at) return;
  rank.progress = what;
  rank.progress_at = at;
}

void MonitorState::ApplySignal(int index, Rank& rank,
                               const proto::Signal& signal, absl::Time at) {
  switch (signal.kind()) {
    case proto::Signal::STEP_BEGIN:
      rank.last_begin_step = signal.step();
      rank.in_step = true;
      rank.step_begun = at;
      rank.step_begin_sent_us = signal.time_us();
      rank.step_kind = signal.step_kind();
      rank.last_signal = {true, signal.kind(), signal.step()};
      return;
    case proto::Signal::STEP_END:
      // The reporter repeats its last step end on each new stream; to the
      // monitor that already has it, it is no progress (or a rank hung
      // between steps would be idle anew at each reconnect).
      if (signal.step() == rank.last_end_step &&
          signal.time_us() == rank.step_end_sent_us) {
        return;
      }
      // Steps with a kind (the first, a checkpoint) are slow by design and
      // would pass for a straggler's.
      if (rank.in_step && signal.step() == rank.last_begin_step &&
          rank.step_kind.empty() && rank.step_begin_sent_us != 0 &&
          signal.time_us() >= rank.step_begin_sent_us) {
        stragglers_.StepTimed(
            index, signal.step(),
            absl::Microseconds(signal.time_us() - rank.step_begin_sent_us),
            rank.step_begun, at);
      }
      rank.last_end_step = signal.step();
      rank.step_end_sent_us = signal.time_us();
      rank.step_ended = at;
      MarkProgress(rank, Progress::kStepEnded, at);
      if (signal.step() >= rank.last_begin_step) rank.in_step = false;
      rank.last_signal = {true, signal.kind(), signal.step()};
      return;
    case proto::Signal::EPOCH_END:
      rank.finished_epochs = std::max(rank.finished_epochs, signal.epoch() + 1);
      rank.last_signal = {true, signal.kind(), signal.epoch()};
      return;
    case proto::Signal::TRAIN_END:
      rank.finished = true;
      rank.finished_at = at;
      rank.in_step = false;
      rank.phase.clear();
      rank.last_signal = {true, signal.kind(), 0};
      return;
    case proto::Signal::PHASE_BEGIN: {
      // A phase needs a name to be told apart in a verdict.
      std::string phase = signal.phase().empty() ? "unnamed" : signal.phase();
      // The open phase repeated on a new stream keeps its begin.
      if (phase == rank.phase &&
          signal.time_us() == rank.phase_begin_sent_us) {
        return;
      }
      rank.phase = std::move(phase);
      rank.phase_begun = at;
      rank.phase_begin_sent_us = signal.time_us();
      return;
    }
    case proto::Signal::PHASE_END:
      if (rank.phase.empty()) return;
      rank.ended_phase = std::move(rank.phase);
      rank.phase.clear();
      MarkProgress(rank, Progress::kPhaseEnded, at);
      return;
    default:
      // A kind from a newer reporter: contact, nothing more.
      return;
  }
}

void MonitorState::StreamEnded(uint64_t stream, absl::Time now, bool broken) {
  retired_streams_.erase(stream);
  auto it = streams_.find(stream);
  if (it == streams_.end()) return;
  Rank& rank = ranks_[it->second.rank];
  streams_.erase(it);
  if (rank.stream != stream) return;
  rank.stream = 0;
  if (rank.finished || rank.exit.has_value()) return;
  rank.dropped = true;
  rank.dropped_at = now;
  rank.dropped_silent.reset();
  if (broken && rank.contacted &&
      now - rank.last_contact >= kSilentBeforeBreak) {
    rank.dropped_silent = now - rank.last_contact;
  }
  if (rank.in_step) {
    rank.dropped_where = absl::StrCat("in step ", rank.last_begin_step);
  } else if (rank.last_end_step >= 0) {
    rank.dropped_where = absl::StrCat("after step ", rank.last_end_step);
  } else {
    rank.dropped_where = "before its first step";
  }
  if (!rank.in_step && !rank.phase.empty()) {
    rank.dropped_where =
        absl::StrCat("in phase '", rank.phase, "' ", rank.dropped_where);
  }
}

absl::Status MonitorState::ApplyExit(const proto::ExitReport& exit,
                                     absl::Time now) {
  if (exit.rank() < 0 || exit.rank() >= options_.world_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("monitor: exit report of rank ", exit.rank(),
                     ", outside the job of ", options_.world_size, " ranks"));
  }
  Rank& rank = ranks_[exit.rank()];
  rank.exit = exit;
  rank.exited_at = now;
  return absl::OkStatus();
}

void MonitorState::Reset(int64_t min_finished_epoch_floor) {
  for (auto& [id, stream] : streams_) retired_streams_.insert(id);
  streams_.clear();
  for (int index = 0; index < options_.world_size; ++index) {
    Rank& rank = ranks_[index];
    ForgetProcess(rank);
    stragglers_.Forget(index);
    rank.finished_epochs =
        std::max(rank.finished_epochs, min_finished_epoch_floor);
  }
}

absl::Duration MonitorState::StepLimit(const std::string& kind,
                                       std::string* note) const {
  if (kind.empty()) return options_.stuck_timeout;
  auto it = options_.step_kind_timeouts.find(kind);
  if (it != options_.step_kind_timeouts.end()) return it->second;
  *note = absl::StrCat("; no limit given for step kind '", kind, "'");
  return options_.stuck_timeout;
}

absl::Duration MonitorState::BetweenStepsLimit(const Rank& rank) const {
  if (!rank.phase.empty()) {
    auto it = options_.phase_timeouts.find(rank.phase);
    if (it != options_.phase_timeouts.end()) return it->second;
  }
  return options_.progress_timeout;
}

std::optional<proto::Verdict> MonitorState::BetweenStepsVerdict(
    int index, const Rank& rank, absl::Time now) const {
  const absl::Duration limit = BetweenStepsLimit(rank);
  if (limit <= absl::ZeroDuration()) return std::nullopt;
  const bool own_limit =
      !rank.phase.empty() && options_.phase_timeouts.count(rank.phase) != 0;
  const std::string limit_text = absl::StrCat(
      own_limit ? "(limit " : "(progress limit ", Limit(limit), ")");
  const std::string last_step =
      rank.last_end_step >= 0
          ? StepEndedAgo(rank.last_end_step, now - rank.step_ended)
          : "";
  const std::string who = absl::StrCat("rank ", index);
  if (!rank.phase.empty()) {
    const absl::Duration open = now - rank.phase_begun;
    if (open <= limit) return std::nullopt;
    return MakeVerdict(
        index, proto::Verdict::STUCK,
        absl::StrCat(who, " stuck in phase '", rank.phase, "' for ",
                     Elapsed(open), " ", limit_text,
                     last_step.empty() ? " before its first step"
                                       : " between steps: " + last_step),
        rank.phase_begun + limit);
  }
  const absl::Duration idle = now - rank.progress_at;
  if (idle <= limit) return std::nullopt;
  std::string since;
  switch (rank.progress) {
    case Progress::kStepEnded:
      since = absl::StrCat("since step ", rank.last_end_step, " ended");
      break;
    case Progress::kPhaseEnded:
      since = absl::StrCat("since phase '", rank.ended_phase, "' ended");
      if (!last_step.empty()) absl::StrAppend(&since, "; ", last_step);
      break;
    case Progress::kContact:
      since = "since it connected";
      if (!last_step.empty()) absl::StrAppend(&since, "; ", last_step);
      break;
  }
  return MakeVerdict(
      index, proto::Verdict::STUCK,
      absl::StrCat(who,
                   rank.last_end_step >= 0 ? " stuck between steps"
                                           : " stuck before its first step",
                   ": no step begun for ", Elapsed(idle), " ", limit_text, " ",
                   since),
      rank.progress_at + limit);
}

std::optional<proto::Verdict> MonitorState::VerdictOf(int index,
                                                      const Rank& rank,
                                                      absl::Time now) const {
  const std::string who = absl::StrCat("rank ", index);
  if (rank.exit.has_value()) {
    const proto::ExitReport& exit = *rank.exit;
    if (exit.exit_code() != 0 || exit.signal() != 0) {
      return MakeVerdict(index, proto::Verdict::DEAD,
                         absl::StrCat(who, " dead: ", ExitDescription(exit)),
                         rank.exited_at);
    }
    if (!rank.finished) {
      return MakeVerdict(
          index, proto::Verdict::FINISHED,
          absl::StrCat(who,
                       " finished: exited with code 0 without a train "
                       "end signal"),
          rank.exited_at);
    }
  }
  if (rank.finished) {
    return MakeVerdict(index, proto::Verdict::FINISHED,
                       absl::StrCat(who, " finished"), rank.finished_at);
  }
  if (rank.dropped && rank.dropped_silent.has_value()) {
    return MakeVerdict(
        index, proto::Verdict::SILENT,
        absl::StrCat(who, " silent: its connection to the monitor went silent ",
                     rank.dropped_where, " (nothing heard for ",
                     Elapsed(*rank.dropped_silent),
                     "; the rank is stopped, or its host or the network is "
                     "gone)"),
        rank.dropped_at);
  }
  if (rank.dropped) {
    return MakeVerdict(index, proto::Verdict::DEAD,
                       absl::StrCat(who,
                                    " dead: its connection to the monitor "
                                    "dropped ",
                                    rank.dropped_where),
                       rank.dropped_at);
  }
  if (rank.in_step) {
    std::string note;
    const absl::Duration limit = StepLimit(rank.step_kind, &note);
    const absl::Duration open = now - rank.step_begun;
    if (open > limit) {
      const std::string kind =
          rank.step_kind.empty() ? "" : absl::StrCat(" (", rank.step_kind, ")");
      const std::string phase =
          rank.phase.empty()
              ? ""
              : absl::StrCat(", in phase '", rank.phase, "' for ",
                             Elapsed(now - rank.phase_begun));
      return MakeVerdict(
          index, proto::Verdict::STUCK,
          absl::StrCat(who, " stuck in step ", rank.last_begin_step, kind,
                       " for ", Elapsed(open), " (limit ", Limit(limit), note,
                       ")", phase),
          rank.step_begun + limit);
    }
  }
  if (rank.contacted) {
    const absl::Duration quiet = now - rank.last_contact;
    if (quiet > options_.silent_timeout) {
      std::string last = "none, heartbeats only";
      if (rank.last_signal.any) {
        const int64_t value = rank.last_signal.value;
        switch (rank.last_signal.kind) {
          case proto::Signal::STEP_BEGIN:
            last = absl::StrCat("step ", value, " began");
            break;
          case proto::Signal::STEP_END:
            last = absl::StrCat("step ", value, " ended");
            break;
          case proto::Signal::EPOCH_END:
            last = absl::StrCat("epoch ", value, " ended");
            break;
          default:
            break;
        }
      }
      return MakeVerdict(
          index, proto::Verdict::SILENT,
          absl::StrCat(who, " silent for ", Elapsed(quiet), " (limit ",
                       Limit(options_.silent_timeout), "): last signal: ", last,
                       rank.phase.empty()
                           ? ""
                           : absl::StrCat(", in phase '", rank.phase, "'")),
          rank.last_contact + options_.silent_timeout);
    }
  }
  // After the silent check: a rank that says nothing at all is silent, one
  // whose heartbeats go on while it begins no step is stuck between steps.
  if (!rank.in_step && rank.contacted) {
    return BetweenStepsVerdict(index, rank, now);
  }
  return std::nullopt;
}

proto::JobState MonitorState::Evaluate(absl::Time now) const {
  proto::JobState state;
  int64_t min_finished_epoch = -1;
  for (int index = 0; index < options_.world_size; ++index) {
    const Rank& rank = ranks_[index];
    proto::RankState* out = state.add_ranks();
    out->set_rank(index);
    out->set_connected(rank.stream != 0);
    out->set_last_begin_step(rank.last_begin_step);
    out->set_last_end_step(rank.last_end_step);
    out->set_finished_epochs(rank.finished_epochs);
    out->set_last_contact_us(
        rank.contacted ? absl::ToUnixMicros(rank.last_contact) : 0);
    out->set_finished(rank.finished);
    out->set_phase(rank.phase);
    if (rank.exit.has_value()) out->set_exit_code(rank.exit->exit_code());
    *out->mutable_step_times() = stragglers_.Stats(index);
    out->set_straggler_recovered(stragglers_.Recovered(index));
    min_finished_epoch =
        min_finished_epoch < 0
            ? rank.finished_epochs
            : std::min(min_finished_epoch, rank.finished_epochs);
    if (std::optional<proto::Verdict> verdict = VerdictOf(index, rank, now)) {
      *state.add_verdicts() = *std::move(verdict);
    } else if (std::optional<proto::Verdict> straggler =
                   stragglers_.VerdictOf(index)) {
      // The pace of a rank that is stuck, silent, dead or finished is no
      // longer news.
      *state.add_stragglers() = *std::move(straggler);
    }
  }
  auto by_time = [](const proto::Verdict& a, const proto::Verdict& b) {
    return a.time_us() < b.time_us();
  };
  std::stable_sort(state.mutable_verdicts()->begin(),
                   state.mutable_verdicts()->end(), by_time);
  std::stable_sort(state.mutable_stragglers()->begin(),
                   state.mutable_stragglers()->end(), by_time);
  state.set_min_finished_epoch(min_finished_epoch);
  return state;
}

JobState JobStateFromProto(const proto::JobState& state) {
  JobState plain;
  for (const proto::RankState& rank : state.ranks()) {
    RankState& to = plain.ranks.emplace_back();
    to.rank = rank.rank();
    to.connected = rank.connected();
    to.last_begin_step = rank.last_begin_step();
    to.last_end_step = rank.last_end_step();
    to.finished_epochs = rank.finished_epochs();
    if (rank.last_contact_us() != 0) {
      to.last_contact = absl::FromUnixMicros(rank.last_contact_us());
    }
    to.finished = rank.finished();
    if (rank.has_exit_code()) to.exit_code = rank.exit_code();
    to.phase = rank.phase();
    const proto::StepTimes& times = rank.step_times();
    to.step_times.steps = times.steps();
    to.step_times.recent_median = absl::Microseconds(times.recent_median_us());
    to.step_times.baseline_median =
        absl::Microseconds(times.baseline_median_us());
    to.step_times.relative = times.relative();
    to.step_times.individual = times.individual();
    to.step_times.straggling = times.straggling();
    to.straggler_recovered = rank.straggler_recovered();
  }
  auto plain_verdict = [](const proto::Verdict& verdict) {
    Verdict to;
    to.rank = verdict.rank();
    switch (verdict.kind()) {
      case proto::Verdict::SILENT:
        to.kind = VerdictKind::kSilent;
        break;
      case proto::Verdict::DEAD:
        to.kind = VerdictKind::kDead;
        break;
      case proto::Verdict::FINISHED:
        to.kind = VerdictKind::kFinished;
        break;
      case proto::Verdict::STRAGGLER:
        to.kind = VerdictKind::kStraggler;
        break;
      default:
        to.kind = VerdictKind::kStuck;
        break;
    }
    to.message = verdict.message();
    to.time = absl::FromUnixMicros(verdict.time_us());
    return to;
  };
  for (const proto::Verdict& verdict : state.verdicts()) {
    plain.verdicts.push_back(plain_verdict(verdict));
  }
  for (const proto::Verdict& verdict : state.stragglers()) {
    plain.stragglers.push_back(plain_verdict(verdict));
  }
  plain.min_finished_epoch = state.min_finished_epoch();
  return plain;
}

std::string JobState::ToString() const {
  std::string text;
  for (const RankState& rank : ranks) {
    absl::StrAppend(&text, "rank ", rank.rank, ": ",
                    rank.connected ? "connected" : "not connected",
                    ", last step begun ", rank.last_begin_step,
                    ", last step ended ", rank.last_end_step, ", ",
                    rank.finished_epochs, " epochs finished");
    if (!rank.phase.empty()) {
      absl::StrAppend(&text, ", in phase '", rank.phase, "'");
    }
    if (rank.finished) absl::StrAppend(&text, ", finished");
    if (rank.exit_code.has_value()) {
      absl::StrAppend(&text, ", exit code ", *rank.exit_code);
    }
    absl::StrAppend(&text, "\n");
  }
  for (const Verdict& verdict : verdicts) {
    absl::StrAppend(&text, "verdict: ", verdict.message, "\n");
  }
  for (const Verdict& straggler : stragglers) {
    absl::StrAppend(&text, "verdict: ", straggler.message, "\n");
  }
  absl::StrAppend(&text, "min finished epoch: ", min_finished_epoch, "\n");
  return text;
}

}  // namespace sluice::monitor
