#include "lib/launcher/launcher_decisions.h"

#include <signal.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sluice/support/exit_codes.h"

namespace sluice::launcher {

std::vector<RankTask> RankTasksOf(const LauncherOptions& options) {
  return options.jobs.empty() ? std::vector<RankTask>(options.nproc)
                              : AssignTasks(options.jobs);
}

namespace {

int SignalExitCode(int signal) { return kSignalExitCodeBase + signal; }

LaunchDecision Decision(LaunchDecision::Kind kind) {
  LaunchDecision decision;
  decision.kind = kind;
  return decision;
}

LaunchDecision StartRanks(int restart, int64_t resume_epoch) {
  LaunchDecision start = Decision(LaunchDecision::kStartRanks);
  start.restart = restart;
  start.resume_epoch = resume_epoch;
  return start;
}

}  // namespace

RankDecisions::RankDecisions(const LauncherOptions& options)
    : options_(options), tasks_(RankTasksOf(options)) {
  ResetRanks();
}

void RankDecisions::RankStarted(int local, absl::Time now) {
  RankState& rank = ranks_[local];
  rank.running = true;
  rank.finished = false;
  rank.started = now;
  rank.stop_reason.clear();
  rank.kill_at.reset();
}

std::string RankDecisions::Describe(int local) const {
  const RankTask& task = tasks_[local];
  const int rank = rank_offset_ + local;
  if (task.job.empty()) return absl::StrCat("rank ", rank);
  return absl::StrCat("rank ", rank, " (", task.job, " ", task.index, ")");
}

RankDecisions::ExitMeaning RankDecisions::Classify(int local, RankExit exit,
                                                   LaunchDecisions& decisions) {
  RankState& rank = ranks_[local];
  rank.running = false;
  ExitMeaning meaning;
  // A rank the launcher stopped for a verdict failed, even when it handled
  // the SIGTERM by exiting with 0: it did not finish its work.
  if (exit.code == 0 && rank.stop_reason.empty()) {
    rank.finished = true;
    const RankTask& task = tasks_[local];
    if (!options_.chief.empty() && task.job == options_.chief &&
        task.index == 0) {
      decisions.push_back(
          Log(absl::StrCat(Describe(local), ", the chief, finished")));
      meaning.kind = ExitMeaning::kFinished;
    } else if (options_.finish_on_first) {
      decisions.push_back(Log(absl::StrCat(
          Describe(local), " finished: the job is done (--finish=first)")));
      meaning.kind = ExitMeaning::kFinished;
    }
    return meaning;
  }
  meaning.kind = ExitMeaning::kFailed;
  Failure& failure = meaning.failure;
  failure.rank = rank_offset_ + local;
  failure.exit_code = exit.code;
  failure.reason =
      exit.signal == 0
          ? absl::StrCat(Describe(local), " exited with code ", exit.code)
          : absl::StrCat(Describe(local), " was killed by signal ", exit.signal,
                         " (", strsignal(exit.signal), ")");
  if (!rank.stop_reason.empty()) {
    // Stopped by the launcher for a verdict: the verdict is the reason.
    failure.exit_code = 1;
    failure.reason = rank.stop_reason;
  } else if (exit.code == kRestartableExitCode) {
    absl::StrAppend(&failure.reason, " (restartable: it asks for a restart)");
  }
  return meaning;
}

void RankDecisions::RecordLateExit(int local, RankExit exit) {
  RankState& rank = ranks_[local];
  rank.running = false;
  if (exit.code == 0 && rank.stop_reason.empty()) rank.finished = true;
}

bool RankDecisions::AllFinished() const {
  return std::all_of(ranks_.begin(), ranks_.end(),
                     [](const RankState& rank) { return rank.finished; });
}

void RankDecisions::ResetRanks() {
  std::vector<RankState> fresh(tasks_.size());
  for (size_t local = 0; local < ranks_.size() && local < fresh.size();
       ++local) {
    fresh[local].finished = ranks_[local].finished;
  }
  ranks_ = std::move(fresh);
}

std::vector<int> RankDecisions::UnfinishedRanks() const {
  std::vector<int> unfinished;
  for (int local = 0; local < local_count(); ++local) {
    if (!ranks_[local].finished) unfinished.push_back(local);
  }
  return unfinished;
}

void RankDecisions::StartUnfinished(int restart, int64_t resume_epoch,
                                    LaunchDecisions& decisions) const {
  LaunchDecision start = StartRanks(restart, resume_epoch);
  start.locals = UnfinishedRanks();
  if (static_cast<int>(start.locals.size()) < local_count()) {
    std::vector<std::string> finished;
    for (int local = 0; local < local_count(); ++local) {
      if (ranks_[local].finished) finished.push_back(Describe(local));
    }
    decisions.push_back(
        Log(absl::StrCat("not restarting ", absl::StrJoin(finished, ", "),
                         ": finished (exited with 0)")));
  }
  decisions.push_back(std::move(start));
}

LaunchDecision RankDecisions::Log(std::string message) {
  LaunchDecision log = Decision(LaunchDecision::kLog);
  log.message = std::move(message);
  return log;
}

LaunchDecision RankDecisions::StopRanks(int signal) const {
  LaunchDecision stop = Decision(LaunchDecision::kStopRanks);
  stop.signal = signal;
  stop.grace = options_.grace_period;
  return stop;
}

LaunchDecision RankDecisions::Exit(int exit_code) {
  LaunchDecision exit = Decision(LaunchDecision::kExit);
  exit.exit_code = exit_code;
  return exit;
}

// --- JobDecisions ---

JobDecisions::JobDecisions(const LauncherOptions& options)
    : RankDecisions(options) {}

std::optional<absl::Time> JobDecisions::NextDeadline() const {
  if (phase_ == Phase::kWaitingForNodes || phase_ == Phase::kBackoff) {
    return deadline_;
  }
  if (phase_ != Phase::kRunning || !each_rank()) return std::nullopt;
  std::optional<absl::Time> next;
  for (const RankState& rank : ranks_) {
    for (const std::optional<absl::Time>& at :
         {rank.restart_at, rank.kill_at}) {
      if (at.has_value() && (!next.has_value() || *at < *next)) next = at;
    }
  }
  return next;
}

LaunchDecisions JobDecisions::Start(absl::Time now) {
  if (!several_nodes()) return BeginGeneration(now);
  phase_ = Phase::kWaitingForNodes;
  deadline_ = now + options_.rendezvous_timeout;
  return {};
}

LaunchDecisions JobDecisions::NodesJoined(int joined, absl::Time now) {
  if (phase_ != Phase::kWaitingForNodes) return {};
  joined_ = joined;
  if (joined >= options_.nnodes - 1) return BeginGeneration(now);
  if (now < deadline_) return {};
  LaunchDecisions decisions = {
      Log(absl::StrCat("only ", joined, " of ", options_.nnodes - 1,
                       " other node(s) joined within ",
                       absl::FormatDuration(options_.rendezvous_timeout),
                       " (--rendezvous_timeout_s)"))};
  EndJob(RendezvousView::kGaveUp, 1, decisions);
  return Done(std::move(decisions), 1);
}

LaunchDecisions JobDecisions::BeginGeneration(absl::Time now) {
  phase_ = Phase::kRunning;
  generation_began_ = now;
  remote_dead_since_.clear();
  ResetRanks();
  // On one host a restart follows the failure of a rank that had not
  // finished, so this is a guard: with none left to start, nothing would
  // ever end the job.
  if (!several_nodes() && UnfinishedRanks().empty()) return Finish();
  LaunchDecisions decisions;
  if (several_nodes()) {
    // A generation per start: restart 0 is generation 0.
    LaunchDecision begin = Decision(LaunchDecision::kBeginGeneration);
    begin.restart = restart_;
    begin.resume_epoch = resume_epoch_;
    decisions.push_back(begin);
  }
  // Node 0 of several may have no rank left to start: it then waits for the
  // other nodes' ranks to finish.
  StartUnfinished(restart_, resume_epoch_, decisions);
  return decisions;
}

LaunchDecisions JobDecisions::RankExited(int local, RankExit exit,
                                         absl::Time now) {
  if (phase_ == Phase::kStopping) RecordLateExit(local, exit);
  if (phase_ != Phase::kRunning) return {};
  LaunchDecisions decisions;
  ExitMeaning meaning = Classify(local, exit, decisions);
  switch (meaning.kind) {
    case ExitMeaning::kFinished: {
      LaunchDecisions finish = Finish();
      decisions.insert(decisions.end(), finish.begin(), finish.end());
      return decisions;
    }
    case ExitMeaning::kFailed:
      return each_rank() ? RestartAlone(local, meaning.failure, now)
                         : StopJobFor(meaning.failure);
    case ExitMeaning::kNothing:
      break;
  }
  // Node 0 of several finishes only with every other node.
  if (AllFinished() && options_.chief.empty() && !several_nodes()) {
    return Finish();
  }
  return decisions;
}

LaunchDecisions JobDecisions::OtherNodesFinished(absl::Time now) {
  if (phase_ != Phase::kRunning || !AllFinished() || !options_.chief.empty()) {
    return {};
  }
  return Finish();
}

LaunchDecisions JobDecisions::Finish() {
  LaunchDecisions decisions;
  if (options_.finish_on_first) {
    LaunchDecision wait = Decision(LaunchDecision::kWaitForRanksToExit);
    wait.grace = options_.grace_period;
    decisions.push_back(wait);
  }
  decisions.push_back(StopRanks(SIGTERM));
  EndJob(RendezvousView::kFinished, 0, decisions);
  decisions.push_back(Decision(LaunchDecision::kDrainOutput));
  decisions.push_back(Log("the job finished"));
  return Done(std::move(decisions), 0);
}

LaunchDecisions JobDecisions::StartFailed(const std::string& message,
                                          absl::Time now) {
  if (phase_ != Phase::kRunning) return {};
  LaunchDecisions decisions = {Log(message), StopRanks(SIGKILL)};
  EndJob(RendezvousView::kGaveUp, 1, decisions);
  return Done(std::move(decisions), 1);
}

LaunchDecisions JobDecisions::StopSignal(int signal, absl::Time now) {
  const int code = SignalExitCode(signal);
  LaunchDecisions decisions;
  switch (phase_) {
    case Phase::kWaitingForNodes:
      decisions.push_back(Log(absl::StrCat(
          "got ", strsignal(signal), " while waiting for the other nodes")));
      EndJob(RendezvousView::kGaveUp, code, decisions);
      return Done(std::move(decisions), code);
    case Phase::kRunning:
      decisions.push_back(Log(absl::StrCat("got ", strsignal(signal),
                                           ": passing it to the ranks")));
      decisions.push_back(StopRanks(signal));
      EndJob(RendezvousView::kGaveUp, code, decisions);
      decisions.push_back(Decision(LaunchDecision::kDrainOutput));
      return Done(std::move(decisions), code);
    case Phase::kBackoff:
      // The ranks were stopped before the backoff began.
      decisions.push_back(Log(absl::StrCat("got ", strsignal(signal),
                                           " while waiting to restart")));
      EndJob(RendezvousView::kGaveUp, code, decisions);
      return Done(std::move(decisions), code);
    case Phase::kStopping:
    case Phase::kDone:
      break;
  }
  return {};
}

void JobDecisions::MonitorEpoch(int64_t min_finished_epoch) {
  resume_epoch_ = std::max(resume_epoch_, min_finished_epoch);
}

LaunchDecisions JobDecisions::Verdict(const FailureVerdict& verdict,
                                      absl::Time now) {
  if (phase_ != Phase::kRunning) return {};
  const int local = verdict.rank - rank_offset_;
  if (local >= 0 && local < local_count()) {
    return LocalVerdict(local, verdict, now);
  }
  if (several_nodes() && verdict.rank >= 0 &&
      verdict.rank < local_count() * options_.nnodes) {
    return RemoteVerdict(verdict, now);
  }
  return {};
}

LaunchDecisions JobDecisions::LocalVerdict(int local,
                                           const FailureVerdict& verdict,
                                           absl::Time now) {
  RankState& rank = ranks_[local];
  // A verdict on an earlier start of the rank (a stream that closed late),
  // or on a rank already stopping or stopped.
  if (!rank.running || !rank.stop_reason.empty() ||
      verdict.time < rank.started) {
    return {};
  }
  Failure failure;
  failure.rank = verdict.rank;
  failure.reason =
      absl::StrCat("monitor: ", verdict.kind, ": ", verdict.message);
  if (!each_rank()) return StopJobFor(failure);
  rank.stop_reason = failure.reason;
  rank.kill_at = now + options_.grace_period;
  LaunchDecision stop = Decision(LaunchDecision::kSignalRank);
  stop.local = local;
  stop.signal = SIGTERM;
  stop.deadline = *rank.kill_at;
  return {Log(absl::StrCat("stopping ", Describe(local), ": ", failure.reason)),
          stop};
}

LaunchDecisions JobDecisions::RemoteVerdict(const FailureVerdict& verdict,
                                            absl::Time now) {
  // --restart=rank runs on one host: no node restarts another's rank.
  if (each_rank()) return {};
  // Made before this generation began: about a process of an earlier one
  // (the monitor forgot those when it was reset for this one).
  if (verdict.time < generation_began_) return {};
  if (verdict.kind == "dead") {
    // A rank that died is reaped by its own node, which reports the exit at
    // its next poll: its exit code, not the monitor's 1, is what the job
    // ends with when no restart is left. The verdict stands in for a report
    // that does not come (a node that died with its ranks).
    const absl::Time since =
        remote_dead_since_.emplace(verdict.rank, now).first->second;
    if (now - since < options_.poll_interval + kRemoteExitReportSlack) {
      return {};
    }
  }
  Failure failure;
  failure.rank = verdict.rank;
  failure.reason =
      absl::StrCat("monitor: ", verdict.kind, ": ", verdict.message);
  return StopJobFor(failure);
}

LaunchDecisions JobDecisions::RemoteFailure(const Failure& failure,
                                            absl::Time now) {
  if (phase_ != Phase::kRunning || each_rank()) return {};
  return StopJobFor(failure);
}

LaunchDecisions JobDecisions::StopJobFor(const Failure& failure) {
  phase_ = Phase::kStopping;
  failure_ = failure;
  LaunchDecision stop = Decision(LaunchDecision::kStopJob);
  stop.signal = SIGTERM;
  stop.grace = options_.grace_period;
  return {Log(absl::StrCat("stopping all ranks: ", failure.reason)), stop};
}

LaunchDecisions JobDecisions::JobStopped(absl::Time now) {
  if (phase_ != Phase::kStopping) return {};
  const int max_restarts = options_.restart.max_restarts;
  if (restart_ >= max_restarts) {
    LaunchDecisions decisions;
    EndJob(RendezvousView::kGaveUp, failure_.exit_code, decisions);
    decisions.push_back(Decision(LaunchDecision::kDrainOutput));
    decisions.push_back(Log(absl::StrCat(
        "giving up after ", restart_,
        " restart(s) (--max_restarts=", max_restarts, "): ", failure_.reason,
        "; exiting with ", failure_.exit_code)));
    return Done(std::move(decisions), failure_.exit_code);
  }
  ++restart_;
  const absl::Duration backoff = options_.restart.BackoffBefore(restart_);
  phase_ = Phase::kBackoff;
  deadline_ = now + backoff;
  return {Log(absl::StrCat("restart ", restart_, " of ", max_restarts, " in ",
                           absl::FormatDuration(backoff), " from epoch ",
                           resume_epoch_))};
}

LaunchDecisions JobDecisions::RestartAlone(int local, Failure failure,
                                           absl::Time now) {
  RankState& rank = ranks_[local];
  const int max_restarts = options_.restart.max_restarts;
  if (rank.restarts >= max_restarts) {
    absl::StrAppend(&failure.reason,
                    " and has no restart left (--max_restarts=", max_restarts,
                    " per rank)");
    return GiveUpEachRank(failure);
  }
  ++rank.restarts;
  const absl::Duration backoff = options_.restart.BackoffBefore(rank.restarts);
  rank.restart_at = now + backoff;
  return {Log(absl::StrCat("restarting ", Describe(local), " alone (restart ",
                           rank.restarts, " of ", max_restarts, " in ",
                           absl::FormatDuration(backoff),
                           "), the others keep running: ", failure.reason))};
}

LaunchDecisions JobDecisions::RankRestartFailed(int local,
                                                const std::string& message,
                                                absl::Time now) {
  if (phase_ != Phase::kRunning) return {};
  Failure failure;
  failure.reason = message;
  return GiveUpEachRank(failure);
}

LaunchDecisions JobDecisions::GiveUpEachRank(const Failure& failure) {
  LaunchDecisions decisions = {
      Log(absl::StrCat("stopping all ranks: ", failure.reason)),
      StopRanks(SIGTERM), Decision(LaunchDecision::kDrainOutput),
      Log(absl::StrCat("giving up; exiting with ", failure.exit_code))};
  return Done(std::move(decisions), failure.exit_code);
}

LaunchDecisions JobDecisions::Tick(absl::Time now, bool leftovers_ending) {
  if (phase_ == Phase::kBackoff) {
    if (now < deadline_) return {};
    LaunchDecision reset = Decision(LaunchDecision::kResetMonitor);
    reset.resume_epoch = resume_epoch_;
    LaunchDecisions decisions = {reset};
    LaunchDecisions begin = BeginGeneration(now);
    decisions.insert(decisions.end(), begin.begin(), begin.end());
    return decisions;
  }
  if (phase_ != Phase::kRunning || !each_rank()) return {};
  LaunchDecisions decisions;
  for (int local = 0; local < local_count(); ++local) {
    RankState& rank = ranks_[local];
    if (rank.kill_at.has_value() && now >= *rank.kill_at) {
      rank.kill_at.reset();
      if (rank.running) {
        decisions.push_back(Log(absl::StrCat(
            Describe(local), " still running after ",
            absl::FormatDuration(options_.grace_period), ": sending SIGKILL")));
        LaunchDecision kill = Decision(LaunchDecision::kSignalRank);
        kill.local = local;
        kill.signal = SIGKILL;
        decisions.push_back(kill);
      }
    }
    if (!rank.restart_at.has_value() || now < *rank.restart_at) continue;
    // Not while what an earlier start left still runs: a restarted rank
    // must not meet its ghost (a port it held, a file it writes).
    if (leftovers_ending) continue;
    rank.restart_at.reset();
    LaunchDecision start = Decision(LaunchDecision::kStartRank);
    start.local = local;
    start.restart = rank.restarts;
    start.resume_epoch = resume_epoch_;
    decisions.push_back(start);
  }
  return decisions;
}

void JobDecisions::EndJob(RendezvousView::Outcome outcome, int exit_code,
                          LaunchDecisions& decisions) const {
  if (!several_nodes()) return;
  LaunchDecision end = Decision(LaunchDecision::kEndJob);
  end.outcome = outcome;
  end.exit_code = exit_code;
  end.grace = options_.grace_period + kRemoteNodeSlack;
  decisions.push_back(end);
}

LaunchDecisions JobDecisions::Done(LaunchDecisions decisions, int exit_code) {
  phase_ = Phase::kDone;
  decisions.push_back(Exit(exit_code));
  return decisions;
}

// --- FollowerDecisions ---

FollowerDecisions::FollowerDecisions(const LauncherOptions& options)
    : RankDecisions(options) {
  report_.node_rank = options.node_rank;
  report_.generation = -1;
  report_.ranks_stopped = true;
}

LaunchDecisions FollowerDecisions::Joined(int world_size, int rank_offset,
                                          const RendezvousView& view,
                                          absl::Time now) {
  if (world_size != WorldSize()) {
    return {Log(absl::StrCat("node 0 runs a world of ", world_size,
                             " ranks, this node expects --nnodes x --nproc = ",
                             WorldSize())),
            Exit(1)};
  }
  rank_offset_ = rank_offset;
  view_ = view;
  last_answer_ = now;
  return {Log(
      absl::StrCat("node ", options_.node_rank, " joined the rendezvous at ",
                   options_.rendezvous, ": ranks ", rank_offset_, "..",
                   rank_offset_ + local_count() - 1, " of ", WorldSize()))};
}

LaunchDecisions FollowerDecisions::FollowLeader(absl::Time now) {
  if (view_.outcome != RendezvousView::kInProgress) {
    LaunchDecisions decisions = {StopRanks(SIGTERM),
                                 Decision(LaunchDecision::kDrainOutput)};
    if (view_.outcome == RendezvousView::kFinished) {
      decisions.push_back(Log("the job finished"));
      decisions.push_back(Exit(0));
    } else {
      decisions.push_back(Log(absl::StrCat(
          "node 0 ended the job with exit code ", view_.exit_code)));
      decisions.push_back(Exit(view_.exit_code));
    }
    return decisions;
  }
  LaunchDecisions decisions;
  if (view_.running && view_.generation != report_.generation) {
    if (!report_.ranks_stopped) decisions.push_back(StopRanks(SIGTERM));
    if (view_.restart > 0) {
      decisions.push_back(
          Log(absl::StrCat("restart ", view_.restart, " from epoch ",
                           view_.resume_epoch, ", as node 0 decided")));
    }
    report_ = NodeReportInfo{};
    report_.node_rank = options_.node_rank;
    report_.generation = view_.generation;
    ResetRanks();
    StartUnfinished(view_.restart, view_.resume_epoch, decisions);
    if (AllFinished()) {
      // Every rank of this node finished in an earlier generation: this
      // one is done here as soon as it begins.
      decisions.push_back(
          Log("this node's ranks finished; waiting for the other nodes"));
      report_.state = NodeReportInfo::kFinished;
      report_.ranks_stopped = true;
    }
  } else if (!view_.running && view_.generation == report_.generation &&
             !report_.ranks_stopped) {
    decisions.push_back(Log("node 0 stops every rank to restart them"));
    decisions.push_back(StopRanks(SIGTERM));
    report_.ranks_stopped = true;
  }
  return decisions;
}

LaunchDecisions FollowerDecisions::StartFailed(const std::string& message,
                                               absl::Time now) {
  report_.state = NodeReportInfo::kFailed;
  report_.failure.reason = message;
  report_.ranks_stopped = true;
  return {Log(message), StopRanks(SIGKILL)};
}

LaunchDecisions FollowerDecisions::RankExited(int local, RankExit exit,
                                              absl::Time now) {
  if (!watching_ranks()) return {};
  if (report_.state != NodeReportInfo::kRunning) {
    // Failed, its ranks not stopped yet: one may still finish meanwhile.
    RecordLateExit(local, exit);
    return {};
  }
  LaunchDecisions decisions;
  ExitMeaning meaning = Classify(local, exit, decisions);
  if (meaning.kind == ExitMeaning::kFailed) {
    // Stopped after the next poll, once node 0 heard of it.
    decisions.push_back(Log(
        absl::StrCat("stopping this node's ranks: ", meaning.failure.reason)));
    report_.state = NodeReportInfo::kFailed;
    report_.failure = meaning.failure;
    return decisions;
  }
  if (meaning.kind == ExitMeaning::kFinished ||
      (AllFinished() && options_.chief.empty())) {
    decisions.push_back(
        Log("this node's ranks finished; waiting for the other nodes"));
    report_.state = NodeReportInfo::kFinished;
    report_.ranks_stopped = true;
  }
  return decisions;
}

LaunchDecisions FollowerDecisions::LeaderAnswered(const RendezvousView& view,
                                                  absl::Time now) {
  LaunchDecisions decisions;
  if (!reachable_) decisions.push_back(Log("node 0 answers again"));
  reachable_ = true;
  last_answer_ = now;
  view_ = view;
  LaunchDecisions after = AfterPoll();
  decisions.insert(decisions.end(), after.begin(), after.end());
  return decisions;
}

LaunchDecisions FollowerDecisions::LeaderUnreachable(const std::string& why,
                                                     absl::Time now) {
  LaunchDecisions decisions;
  if (reachable_) {
    decisions.push_back(
        Log(absl::StrCat("cannot reach node 0, ranks keep running: ", why)));
  }
  reachable_ = false;
  if (now - last_answer_ > options_.rendezvous_timeout) {
    decisions.push_back(Log(absl::StrCat(
        "lost node 0 (the rendezvous at ", options_.rendezvous, ") for ",
        absl::FormatDuration(options_.rendezvous_timeout),
        ": stopping this node's ranks")));
    decisions.push_back(StopRanks(SIGTERM));
    decisions.push_back(Decision(LaunchDecision::kDrainOutput));
    decisions.push_back(Exit(1));
    return decisions;
  }
  LaunchDecisions after = AfterPoll();
  decisions.insert(decisions.end(), after.begin(), after.end());
  return decisions;
}

LaunchDecisions FollowerDecisions::AfterPoll() {
  if (report_.state != NodeReportInfo::kFailed || report_.ranks_stopped) {
    return {};
  }
  report_.ranks_stopped = true;
  return {StopRanks(SIGTERM)};
}

LaunchDecisions FollowerDecisions::StopSignal(int signal, absl::Time now) {
  return {
      Log(absl::StrCat("got ", strsignal(signal), ": passing it to the ranks")),
      StopRanks(signal), Decision(LaunchDecision::kDrainOutput),
      Exit(SignalExitCode(signal))};
}

}  // namespace sluice::launcher
