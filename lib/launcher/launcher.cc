#include "lib/launcher/launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/launcher/launcher_decisions.h"
#include "lib/launcher/launcher_monitor.h"
#include "lib/launcher/launcher_rendezvous.h"
#include "lib/launcher/leftover_processes.h"
#include "lib/launcher/process.h"
#include "lib/launcher/process_output.h"
#include "sluice/support/failure.h"

namespace sluice::launcher {
namespace {

// How long one call to the monitor (or to node 0's rendezvous) may take: a
// dead one must not hold up noticing a rank's exit for long.
constexpr absl::Duration kMonitorCallTimeout = absl::Seconds(1);
// How often the launcher looks again while it waits for other nodes, for
// ranks to exit, or for leftovers past their grace period.
constexpr absl::Duration kWaitStep = absl::Milliseconds(50);
// How long the launcher's last lines wait for what the ranks wrote.
constexpr absl::Duration kDrainTimeout = absl::Seconds(1);
// After SIGKILL to everything, how long the launcher waits to reap it, and
// how often it looks, while stopping ranks and when it exits.
constexpr absl::Duration kReapTimeout = absl::Seconds(2);
constexpr absl::Duration kStopReapStep = absl::Milliseconds(10);
constexpr absl::Duration kExitReapStep = absl::Milliseconds(20);
// How long a rank the monitor calls dead has to become reapable, so that
// its exit is the reason given (PollMonitor).
constexpr absl::Duration kDeadReapWait = absl::Milliseconds(200);
constexpr absl::Duration kDeadReapStep = absl::Milliseconds(5);

// A rank's process; what the launcher decides about it is in
// JobDecisions or FollowerDecisions.
struct Rank {
  int rank = 0;  // global
  int local = 0;
  RankTask task;
  std::unique_ptr<ChildProcess> process;
  int incarnation = 0;  // its SLUICE_RESTART
};

RankExit ExitOf(int wait_status) {
  if (WIFSIGNALED(wait_status)) return RankExit::Signal(WTERMSIG(wait_status));
  return RankExit::Code(ExitCodeOf(wait_status));
}

// The process layer: runs the ranks, the monitor and the rendezvous, feeds
// what happens to the decisions and carries out what they decide.
class Launcher {
 public:
  explicit Launcher(const LauncherOptions& options)
      : options_(options),
        tasks_(RankTasksOf(options)),
        leftovers_(options.grace_period) {
    sigemptyset(&signals_);
    for (int signal : {SIGINT, SIGTERM, SIGCHLD}) sigaddset(&signals_, signal);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
    output_ = std::make_unique<OutputPrefixer>();
    // What a rank leaves outside its process group comes back to the
    // launcher when its parent exits, instead of outliving the job.
    if (absl::Status adopted = AdoptOrphans(); !adopted.ok()) {
      Log(absl::StrCat(adopted.message(), "; processes the ranks leave ",
                       "outside their process groups may outlive them"));
    }
  }

  // Runs the job, then ends whatever is left of it.
  int Run() {
    const int code = options_.node_rank > 0 ? RunFollower() : RunLeader();
    EndEverything();
    return code;
  }

 private:
  void Log(const std::string& line) {
    output_->WriteLine(STDERR_FILENO, absl::StrCat("sluice_launch: ", line));
  }
  // Ranks of this node.
  int LocalCount() const { return static_cast<int>(tasks_.size()); }
  int WorldSize() const { return LocalCount() * options_.nnodes; }

  // Node 0, or the only node: prepares, then runs the job as JobDecisions
  // says, a step at a time, to the launcher's exit code.
  int RunLeader();
  // The cluster spec, the monitor and node 0's rendezvous; non-zero: the
  // exit code when one of them could not be had.
  int Prepare();
  absl::Status ServeRendezvous();
  std::optional<int> LeaderStep();
  std::optional<int> WaitForNodesStep();
  std::optional<int> BackoffStep();
  // One round of watching the running ranks: exits, other nodes, due
  // restarts, the monitor, then a wait for a signal.
  std::optional<int> SuperviseStep();
  bool Supervising() const {
    return job_->phase() == JobDecisions::Phase::kRunning;
  }
  // Node 0 of several: what the other nodes' reports decide.
  LaunchDecisions HearOtherNodes();

  // A node other than 0 of a multi-host job: follows node 0's decisions.
  int RunFollower();
  absl::StatusOr<JoinInfo> Join(RendezvousClient& rendezvous);
  std::optional<int> FollowStep(RendezvousClient& rendezvous);

  // Carries out `decisions` in order, and what they lead to; the exit code
  // once one says to exit.
  std::optional<int> Carry(const LaunchDecisions& decisions);
  std::optional<int> CarryOne(const LaunchDecision& decision);

  absl::Status StartMonitor();
  void ResetMonitor(int64_t resume_epoch);
  // Starts the ranks `start` names (those that have not finished); what
  // that decides when one cannot start.
  LaunchDecisions StartRanks(const LaunchDecision& start);
  // --restart=rank: starts one rank again.
  LaunchDecisions RestartRank(const LaunchDecision& start);
  // Starts `rank` (again) as its `restart`th start.
  absl::Status SpawnRank(Rank& rank, int restart, int64_t resume_epoch);
  // Waits up to `timeout` for SIGINT or SIGTERM (returned) or SIGCHLD.
  int WaitForSignal(absl::Duration timeout);
  // Feeds the exit of each rank that ended and returns what they decide, in
  // order. Every exit is fed, also after one that decided to stop the
  // ranks: a rank that finished at the same time must not be restarted.
  LaunchDecisions ReapRanks();
  // Feeds the monitor's state: its epoch and the first verdict that
  // decides something.
  std::optional<int> PollMonitor();
  void RestartMonitorIfExited();
  // `signal` to one rank's group, and its descendants outside the group.
  void SignalRank(int local, int signal);
  // `signal` to every rank's group, then SIGKILL after `grace`.
  void StopRanks(int signal, absl::Duration grace);
  // Node 0, --restart=job: stops every node's ranks, reads the epochs they
  // finished, and returns what that decides.
  LaunchDecisions StopJob(const LaunchDecision& stop);
  // --finish=first: gives the ranks still running `grace` to exit on their
  // own.
  void WaitForRanksToExit(absl::Duration grace);
  // Node 0: tells the other nodes how the job ended and gives them up to
  // `patience` to hear it.
  void EndJob(RendezvousView::Outcome outcome, int exit_code,
              absl::Duration patience);
  // Node 0, after StopGeneration: waits up to `patience` until no other
  // node runs a rank of this generation.
  void WaitForRemoteStop(absl::Duration patience);
  // The children a ChildProcess owns and reaps: running ranks, the monitor.
  std::vector<pid_t> OwnedChildren() const;
  // Whether `pid` was started (its environment says) by a rank that still
  // runs as that incarnation: an orphan such a rank left (a daemon it
  // started) lives as long as the rank.
  bool StartedByRunningRank(pid_t pid) const;
  // Ends the descendants of `ranks` (SIGTERM, SIGKILL after the grace
  // period) and the orphans no running rank started; after a rank's exit,
  // `ranks` is empty.
  void EndLeftoversOf(const std::vector<pid_t>& ranks);
  // Reaps orphans that exited and sends SIGKILL to leftovers past their
  // grace period; `wait` shortened so that this runs often enough.
  void TendLeftovers();
  absl::Duration LeftoverWait(absl::Duration wait) const {
    return leftovers_.ending() ? std::min(wait, kWaitStep) : wait;
  }
  // At the launcher's exit: SIGKILL to everything still below it.
  void EndEverything();

  const LauncherOptions& options_;
  const std::vector<RankTask> tasks_;  // of this node's ranks
  sigset_t signals_;
  std::unique_ptr<OutputPrefixer> output_;
  std::string cluster_spec_;
  std::unique_ptr<MonitorProcess> monitor_process_;
  std::unique_ptr<MonitorClient> monitor_;
  std::unique_ptr<RendezvousServer> rendezvous_;  // node 0 of several
  // One of the two, by the node's rank; decisions_ is it.
  std::unique_ptr<JobDecisions> job_;
  std::unique_ptr<FollowerDecisions> follower_;
  RankDecisions* decisions_ = nullptr;
  int rank_offset_ = 0;
  bool monitor_reachable_ = true;
  absl::Time next_poll_;  // of the monitor
  std::vector<Rank> ranks_;
  LeftoverProcesses leftovers_;
  // A SIGCHLD came: an orphan may have exited and wait to be reaped.
  bool child_exited_ = false;
};

std::vector<pid_t> Launcher::OwnedChildren() const {
  std::vector<pid_t> owned;
  for (const Rank& rank : ranks_) {
    if (rank.process != nullptr && !rank.process->exited()) {
      owned.push_back(rank.process->pid());
    }
  }
  if (monitor_process_ != nullptr) owned.push_back(monitor_process_->pid());
  return owned;
}

bool Launcher::StartedByRunningRank(pid_t pid) const {
  std::optional<std::string> rank = StartEnvironmentValue(pid, "SLUICE_RANK");
  std::optional<std::string> restart =
      StartEnvironmentValue(pid, "SLUICE_RESTART");
  if (!rank.has_value() || !restart.has_value()) return false;
  return std::any_of(ranks_.begin(), ranks_.end(), [&](const Rank& running) {
    return running.process != nullptr && !running.process->exited() &&
           absl::StrCat(running.rank) == *rank &&
           absl::StrCat(running.incarnation) == *restart;
  });
}

void Launcher::EndLeftoversOf(const std::vector<pid_t>& ranks) {
  leftovers_.End(SIGTERM, ranks, OwnedChildren(),
                 [this](pid_t pid) { return StartedByRunningRank(pid); });
}

void Launcher::TendLeftovers() {
  if (std::exchange(child_exited_, false) || leftovers_.ending()) {
    leftovers_.Step(OwnedChildren());
  }
}

void Launcher::EndEverything() {
  ranks_.clear();
  monitor_process_.reset();
  leftovers_.End(SIGKILL, {}, {});
  const absl::Time deadline = absl::Now() + kReapTimeout;
  while (leftovers_.Step({}) > 0 && absl::Now() < deadline) {
    WaitForSignal(kExitReapStep);
  }
}

std::optional<int> Launcher::Carry(const LaunchDecisions& decisions) {
  for (const LaunchDecision& decision : decisions) {
    if (std::optional<int> exit = CarryOne(decision)) return exit;
  }
  return std::nullopt;
}

std::optional<int> Launcher::CarryOne(const LaunchDecision& decision) {
  switch (decision.kind) {
    case LaunchDecision::kLog:
      Log(decision.message);
      break;
    case LaunchDecision::kStartRanks:
      return Carry(StartRanks(decision));
    case LaunchDecision::kStartRank:
      return Carry(RestartRank(decision));
    case LaunchDecision::kSignalRank:
      SignalRank(decision.local, decision.signal);
      break;
    case LaunchDecision::kStopRanks:
      StopRanks(decision.signal, decision.grace);
      break;
    case LaunchDecision::kStopJob:
      return Carry(StopJob(decision));
    case LaunchDecision::kWaitForRanksToExit:
      WaitForRanksToExit(decision.grace);
      break;
    case LaunchDecision::kBeginGeneration:
      if (rendezvous_ != nullptr) {
        rendezvous_->Begin(decision.restart, decision.resume_epoch,
                           decision.restart);
      }
      break;
    case LaunchDecision::kResetMonitor:
      ResetMonitor(decision.resume_epoch);
      break;
    case LaunchDecision::kEndJob:
      EndJob(decision.outcome, decision.exit_code, decision.grace);
      break;
    case LaunchDecision::kDrainOutput:
      output_->Drain(kDrainTimeout);
      break;
    case LaunchDecision::kExit:
      return decision.exit_code;
  }
  return std::nullopt;
}

absl::Status Launcher::StartMonitor() {
  if (options_.monitor == "none") return absl::OkStatus();
  std::string address = options_.monitor;
  if (address.empty()) {
    MonitorProcessOptions monitor;
    monitor.binary = options_.monitor_binary;
    monitor.host = options_.host;
    monitor.world_size = WorldSize();
    monitor.flags = options_.monitor_flags;
    absl::StatusOr<std::unique_ptr<MonitorProcess>> started =
        MonitorProcess::Start(std::move(monitor), output_.get());
    if (!started.ok()) return started.status();
    monitor_process_ = std::move(*started);
    address = monitor_process_->address();
    Log(absl::StrCat("monitor listening on ", address));
  }
  monitor_ = std::make_unique<MonitorClient>(address);
  return absl::OkStatus();
}

void Launcher::ResetMonitor(int64_t resume_epoch) {
  if (monitor_ == nullptr) return;
  if (absl::Status reset = monitor_->Reset(resume_epoch, kMonitorCallTimeout);
      !reset.ok()) {
    Log(absl::StrCat("cannot reset the monitor, restarting anyway: ",
                     reset.message()));
  }
}

LaunchDecisions Launcher::StartRanks(const LaunchDecision& start) {
  ranks_.clear();
  for (int local = 0; local < LocalCount(); ++local) {
    Rank rank;
    rank.rank = rank_offset_ + local;
    rank.local = local;
    rank.task = tasks_[local];
    ranks_.push_back(std::move(rank));
  }
  for (int local = 0; local < LocalCount(); ++local) {
    if (std::find(start.locals.begin(), start.locals.end(), local) !=
        start.locals.end()) {
      continue;
    }
    // A rank that finished in an earlier start stays ended. The monitor,
    // reset for this start, forgot its exit: told again, it counts the rank
    // finished rather than never heard from.
    if (monitor_ != nullptr) {
      monitor_
          ->ReportExit(ranks_[local].rank, /*wait_status=*/0,
                       kMonitorCallTimeout)
          .IgnoreError();
    }
  }
  for (int local : start.locals) {
    absl::Status started =
        SpawnRank(ranks_[local], start.restart, start.resume_epoch);
    if (!started.ok()) {
      return decisions_->StartFailed(std::string(started.message()),
                                     absl::Now());
    }
    decisions_->RankStarted(local, absl::Now());
  }
  // The monitor is read first thing in each start.
  next_poll_ = absl::Now();
  return {};
}

LaunchDecisions Launcher::RestartRank(const LaunchDecision& start) {
  Rank& rank = ranks_[start.local];
  // The old process's group may hold leftovers: destroying it kills them.
  rank.process.reset();
  if (absl::Status started = SpawnRank(rank, start.restart, start.resume_epoch);
      !started.ok()) {
    return job_->RankRestartFailed(start.local, std::string(started.message()),
                                   absl::Now());
  }
  decisions_->RankStarted(start.local, absl::Now());
  return {};
}

absl::Status Launcher::SpawnRank(Rank& rank, int restart,
                                 int64_t resume_epoch) {
  LaunchEnvironment launch;
  launch.world_size = WorldSize();
  launch.node_rank = options_.node_rank;
  launch.rank_offset = rank_offset_;
  launch.monitor_address = monitor_ != nullptr ? monitor_->address() : "";
  launch.resume_epoch = resume_epoch;
  launch.restart = restart;
  launch.cluster_spec = cluster_spec_;
  SpawnOptions spawn;
  spawn.argv = options_.command;
  if (!options_.resume_epoch_flag.empty()) {
    spawn.argv.push_back(
        absl::StrCat("--", options_.resume_epoch_flag, "=", resume_epoch));
  }
  spawn.environment = RankEnvironment(launch, rank.local, rank.task);
  absl::StatusOr<std::unique_ptr<ChildProcess>> process =
      ChildProcess::Spawn(spawn);
  if (!process.ok()) {
    return absl::Status(process.status().code(),
                        absl::StrCat("cannot start rank ", rank.rank, ": ",
                                     process.status().message()));
  }
  const std::string prefix = absl::StrCat("[", rank.rank, "]");
  output_->Add((*process)->TakeStdout(), prefix, STDOUT_FILENO);
  output_->Add((*process)->TakeStderr(), prefix, STDERR_FILENO);
  rank.process = std::move(*process);
  rank.incarnation = restart;
  return absl::OkStatus();
}

int Launcher::WaitForSignal(absl::Duration timeout) {
  timespec wait = absl::ToTimespec(std::max(timeout, absl::ZeroDuration()));
  int signal = sigtimedwait(&signals_, nullptr, &wait);
  if (signal == SIGCHLD) child_exited_ = true;
  return signal == SIGINT || signal == SIGTERM ? signal : 0;
}

LaunchDecisions Launcher::ReapRanks() {
  LaunchDecisions decided;
  for (Rank& rank : ranks_) {
    if (rank.process == nullptr || rank.process->exited()) continue;
    std::optional<int> status = rank.process->Poll();
    if (!status.has_value()) continue;
    // Its orphans must not outlive it (nor meet its next start).
    EndLeftoversOf({});
    if (monitor_ != nullptr) {
      // For the monitor's record, and so that a rank that exits with 0
      // without a train end signal is finished there, not dead: the
      // launcher acts on the exit itself.
      monitor_->ReportExit(rank.rank, *status, kMonitorCallTimeout)
          .IgnoreError();
    }
    LaunchDecisions more =
        decisions_->RankExited(rank.local, ExitOf(*status), absl::Now());
    decided.insert(decided.end(), more.begin(), more.end());
  }
  return decided;
}

void Launcher::RestartMonitorIfExited() {
  if (monitor_process_ == nullptr) return;
  if (std::optional<std::string> ended = monitor_process_->RestartIfExited()) {
    Log(absl::StrCat("the monitor ended (", *ended, "); started it again at ",
                     monitor_->address(), ", ranks keep running"));
    // A new monitor knows no epochs yet; it must not report fewer than the
    // old one did.
    monitor_->Reset(job_->resume_epoch(), kMonitorCallTimeout).IgnoreError();
  }
}

std::optional<int> Launcher::PollMonitor() {
  if (monitor_ == nullptr) return std::nullopt;
  RestartMonitorIfExited();
  absl::StatusOr<MonitorSnapshot> state =
      monitor_->GetState(kMonitorCallTimeout);
  if (!state.ok()) {
    if (monitor_reachable_) {
      Log(absl::StrCat("cannot reach the monitor, ranks keep running: ",
                       state.status().message()));
    }
    monitor_reachable_ = false;
    return std::nullopt;
  }
  if (!monitor_reachable_) Log("the monitor answers again");
  monitor_reachable_ = true;
  job_->MonitorEpoch(state->min_finished_epoch);
  if (!state->failures.empty()) {
    // A rank killed since the last reap ends its monitor stream too, and
    // the monitor calls it dead; its exit says more. The kernel closes the
    // process's sockets before it makes the exit reapable, so on a loaded
    // machine the monitor can be first: a dead verdict waits a moment for
    // the exit.
    const bool dead = absl::c_any_of(
        state->failures,
        [](const FailureVerdict& verdict) { return verdict.kind == "dead"; });
    const absl::Time reap_until = absl::Now() + kDeadReapWait;
    LaunchDecisions exited = ReapRanks();
    while (exited.empty() && dead && absl::Now() < reap_until) {
      absl::SleepFor(kDeadReapStep);
      exited = ReapRanks();
    }
    if (!exited.empty()) return Carry(exited);
  }
  for (const FailureVerdict& verdict : state->failures) {
    LaunchDecisions decided = job_->Verdict(verdict, absl::Now());
    if (!decided.empty()) return Carry(decided);
  }
  return std::nullopt;
}

void Launcher::SignalRank(int local, int signal) {
  Rank& rank = ranks_[local];
  if (rank.process == nullptr || rank.process->exited()) return;
  rank.process->SignalGroup(signal);
  if (signal == SIGKILL) return;
  // A stopped rank handles the signal only once it runs again.
  rank.process->SignalGroup(SIGCONT);
  // Its descendants outside the group at the same time as the group.
  EndLeftoversOf({rank.process->pid()});
}

void Launcher::StopRanks(int signal, absl::Duration grace) {
  auto running = [this] {
    return std::count_if(ranks_.begin(), ranks_.end(), [](Rank& rank) {
      return rank.process != nullptr && !rank.process->Poll().has_value();
    });
  };
  std::vector<pid_t> roots;
  for (Rank& rank : ranks_) {
    if (rank.process == nullptr || rank.process->exited()) continue;
    rank.process->SignalGroup(signal);
    // A stopped rank handles the signal only once it runs again.
    rank.process->SignalGroup(SIGCONT);
    roots.push_back(rank.process->pid());
  }
  // Also what the ranks started outside their groups, and the orphans.
  leftovers_.End(signal, roots, OwnedChildren());
  const absl::Time deadline = absl::Now() + grace;
  int others = 0;  // what the ranks started, still running
  for (;;) {
    const int ranks = running();
    others = leftovers_.Step(OwnedChildren());
    if ((ranks == 0 && others == 0) || absl::Now() >= deadline) break;
    if (WaitForSignal(std::min(kWaitStep, deadline - absl::Now())) != 0) {
      Log("a second signal: killing the ranks now");
      break;
    }
  }
  if (const int left = running(); left > 0) {
    Log(absl::StrCat(left, " rank(s) still running after ",
                     absl::FormatDuration(grace), ": sending SIGKILL"));
  }
  if (others > 0) {
    Log(absl::StrCat(others, " process(es) the ranks started still running ",
                     "after ", absl::FormatDuration(grace),
                     ": sending SIGKILL"));
  }
  // Destroying a rank kills its whole group; what it left elsewhere is
  // killed with the orphans that its death made.
  ranks_.clear();
  leftovers_.End(SIGKILL, {}, OwnedChildren());
  leftovers_.KillNow(OwnedChildren());
  const absl::Time killed = absl::Now() + kReapTimeout;
  while (leftovers_.Step(OwnedChildren()) > 0 && absl::Now() < killed) {
    WaitForSignal(kStopReapStep);
  }
}

LaunchDecisions Launcher::StopJob(const LaunchDecision& stop) {
  // Every node stops its ranks while this one does.
  if (rendezvous_ != nullptr) rendezvous_->StopGeneration();
  StopRanks(stop.signal, stop.grace);
  WaitForRemoteStop(stop.grace + kRemoteNodeSlack);
  if (monitor_ != nullptr) {
    // The epochs the ranks finished before they stopped.
    if (absl::StatusOr<MonitorSnapshot> state =
            monitor_->GetState(kMonitorCallTimeout);
        state.ok()) {
      job_->MonitorEpoch(state->min_finished_epoch);
    }
  }
  return job_->JobStopped(absl::Now());
}

void Launcher::WaitForRanksToExit(absl::Duration grace) {
  const absl::Time deadline = absl::Now() + grace;
  for (;;) {
    const bool running =
        std::any_of(ranks_.begin(), ranks_.end(), [](Rank& rank) {
          return rank.process != nullptr && !rank.process->Poll().has_value();
        });
    if (!running || absl::Now() >= deadline) return;
    TendLeftovers();
    if (WaitForSignal(std::min(kWaitStep, deadline - absl::Now())) != 0) {
      return;
    }
  }
}

void Launcher::EndJob(RendezvousView::Outcome outcome, int exit_code,
                      absl::Duration patience) {
  if (rendezvous_ == nullptr) return;
  rendezvous_->End(outcome, exit_code);
  const absl::Time deadline = absl::Now() + patience;
  while (!rendezvous_->AllRemoteSawEnd() && absl::Now() < deadline) {
    if (WaitForSignal(kWaitStep) != 0) break;
  }
}

void Launcher::WaitForRemoteStop(absl::Duration patience) {
  if (rendezvous_ == nullptr) return;
  // A node stops its ranks within its grace period and says so at its next
  // poll; a node that never does is restarted all the same (it restarts
  // its ranks when it sees the new generation).
  const absl::Time deadline = absl::Now() + patience;
  while (!rendezvous_->AllRemoteStopped()) {
    if (absl::Now() >= deadline) {
      Log("other nodes did not report their ranks stopped in time: "
          "restarting anyway");
      return;
    }
    if (WaitForSignal(kWaitStep) != 0) return;
  }
}

int Launcher::RunLeader() {
  if (int code = Prepare(); code != 0) return code;
  job_ = std::make_unique<JobDecisions>(options_);
  decisions_ = job_.get();
  std::optional<int> exit = Carry(job_->Start(absl::Now()));
  while (!exit.has_value()) exit = LeaderStep();
  return *exit;
}

int Launcher::Prepare() {
  if (!options_.jobs.empty()) {
    absl::StatusOr<std::string> cluster =
        MakeClusterSpec(options_.jobs, options_.host);
    if (!cluster.ok()) {
      Log(std::string(cluster.status().message()));
      return 1;
    }
    cluster_spec_ = *cluster;
    Log(absl::StrCat("cluster ", cluster_spec_));
  }
  if (absl::Status started = StartMonitor(); !started.ok()) {
    Log(std::string(started.message()));
    return 1;
  }
  if (absl::Status served = ServeRendezvous(); !served.ok()) {
    Log(std::string(served.message()));
    return 1;
  }
  return 0;
}

absl::Status Launcher::ServeRendezvous() {
  if (options_.nnodes <= 1) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<RendezvousServer>> served =
      RendezvousServer::Start(options_.rendezvous, options_.nnodes,
                              LocalCount(),
                              monitor_ != nullptr ? monitor_->address() : "",
                              options_.rendezvous_timeout);
  if (!served.ok()) return served.status();
  rendezvous_ = std::move(*served);
  Log(absl::StrCat("rendezvous at ", options_.rendezvous, " for ",
                   options_.nnodes, " nodes of ", LocalCount(), " ranks"));
  return absl::OkStatus();
}

std::optional<int> Launcher::LeaderStep() {
  switch (job_->phase()) {
    case JobDecisions::Phase::kWaitingForNodes:
      return WaitForNodesStep();
    case JobDecisions::Phase::kRunning:
      return SuperviseStep();
    case JobDecisions::Phase::kBackoff:
      return BackoffStep();
    case JobDecisions::Phase::kStopping:
    case JobDecisions::Phase::kDone:
      break;
  }
  // Carry leaves neither phase behind: kStopJob ends in JobStopped, and
  // kDone with kExit.
  Log("internal error: the launcher has nothing to wait for");
  return 1;
}

std::optional<int> Launcher::WaitForNodesStep() {
  if (std::optional<int> exit =
          Carry(job_->NodesJoined(rendezvous_->JoinedNodes(), absl::Now()))) {
    return exit;
  }
  if (job_->phase() != JobDecisions::Phase::kWaitingForNodes) {
    return std::nullopt;
  }
  if (int signal = WaitForSignal(kWaitStep)) {
    return Carry(job_->StopSignal(signal, absl::Now()));
  }
  return std::nullopt;
}

std::optional<int> Launcher::BackoffStep() {
  const absl::Time now = absl::Now();
  if (std::optional<int> exit = Carry(job_->Tick(now, leftovers_.ending()))) {
    return exit;
  }
  if (job_->phase() != JobDecisions::Phase::kBackoff) return std::nullopt;
  if (int signal = WaitForSignal(*job_->NextDeadline() - now)) {
    return Carry(job_->StopSignal(signal, absl::Now()));
  }
  return std::nullopt;
}

std::optional<int> Launcher::SuperviseStep() {
  TendLeftovers();
  LaunchDecisions decided = ReapRanks();
  if (decided.empty() && rendezvous_ != nullptr) decided = HearOtherNodes();
  // Another rank may have exited as well: reaped before anything else.
  if (!decided.empty()) return Carry(decided);
  if (std::optional<int> exit =
          Carry(job_->Tick(absl::Now(), leftovers_.ending()))) {
    return exit;
  }
  if (absl::Now() >= next_poll_) {
    if (std::optional<int> exit = PollMonitor()) return exit;
    if (!Supervising()) return std::nullopt;
    next_poll_ = absl::Now() + options_.poll_interval;
  }
  absl::Time wake = next_poll_;
  if (std::optional<absl::Time> deadline = job_->NextDeadline()) {
    wake = std::min(wake, *deadline);
  }
  if (int signal = WaitForSignal(LeftoverWait(wake - absl::Now()))) {
    return Carry(job_->StopSignal(signal, absl::Now()));
  }
  return std::nullopt;
}

LaunchDecisions Launcher::HearOtherNodes() {
  const absl::Time now = absl::Now();
  if (rendezvous_->AllRemoteFinished()) {
    if (LaunchDecisions finished = job_->OtherNodesFinished(now);
        !finished.empty()) {
      return finished;
    }
  }
  if (std::optional<Failure> failure = rendezvous_->RemoteFailure()) {
    return job_->RemoteFailure(*failure, now);
  }
  return {};
}

absl::StatusOr<JoinInfo> Launcher::Join(RendezvousClient& rendezvous) {
  const absl::Time deadline = absl::Now() + options_.rendezvous_timeout;
  for (;;) {
    absl::StatusOr<JoinInfo> joined = rendezvous.Join(
        options_.node_rank, LocalCount(), options_.host, kMonitorCallTimeout);
    // Node 0 refused this node, or the TLS handshake: asking again until
    // the rendezvous timeout would be refused again.
    if (joined.ok() || absl::IsInvalidArgument(joined.status()) ||
        Classify(joined.status()) == FailureClass::kFatal) {
      return joined;
    }
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "node 0 did not answer within ",
          absl::FormatDuration(options_.rendezvous_timeout),
          " (--rendezvous_timeout_s): ", joined.status().message()));
    }
    if (int signal = WaitForSignal(options_.poll_interval)) {
      return absl::CancelledError(
          absl::StrCat("got ", strsignal(signal), " while joining"));
    }
  }
}

int Launcher::RunFollower() {
  RendezvousClient rendezvous(options_.rendezvous);
  absl::StatusOr<JoinInfo> joined = Join(rendezvous);
  if (!joined.ok()) {
    Log(absl::StrCat("cannot join the rendezvous at ", options_.rendezvous,
                     " as node ", options_.node_rank, ": ",
                     joined.status().message()));
    return 1;
  }
  follower_ = std::make_unique<FollowerDecisions>(options_);
  decisions_ = follower_.get();
  std::optional<int> exit = Carry(follower_->Joined(
      joined->world_size, joined->rank_offset, joined->view, absl::Now()));
  if (exit.has_value()) return *exit;
  rank_offset_ = follower_->rank_offset();
  if (!joined->monitor_address.empty()) {
    monitor_ = std::make_unique<MonitorClient>(joined->monitor_address);
  }
  while (!exit.has_value()) exit = FollowStep(rendezvous);
  return *exit;
}

std::optional<int> Launcher::FollowStep(RendezvousClient& rendezvous) {
  TendLeftovers();
  if (std::optional<int> exit = Carry(follower_->FollowLeader(absl::Now()))) {
    return exit;
  }
  if (follower_->watching_ranks()) {
    if (std::optional<int> exit = Carry(ReapRanks())) return exit;
  }
  // Node 0 hears of a failure before this node's ranks are stopped, so
  // that every node stops at once.
  absl::StatusOr<RendezvousView> answer =
      rendezvous.Poll(follower_->report(), kMonitorCallTimeout);
  LaunchDecisions decided =
      answer.ok() ? follower_->LeaderAnswered(*answer, absl::Now())
                  : follower_->LeaderUnreachable(
                        std::string(answer.status().message()), absl::Now());
  if (std::optional<int> exit = Carry(decided)) return exit;
  if (int signal = WaitForSignal(LeftoverWait(options_.poll_interval))) {
    return Carry(follower_->StopSignal(signal, absl::Now()));
  }
  return std::nullopt;
}

}  // namespace

int RunLauncher(const LauncherOptions& options) {
  return Launcher(options).Run();
}

}  // namespace sluice::launcher
