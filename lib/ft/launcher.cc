#include "lib/ft/launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/ft/launcher_monitor.h"
#include "lib/ft/launcher_rendezvous.h"
#include "lib/ft/leftover_processes.h"
#include "lib/ft/process.h"
#include "lib/ft/process_output.h"

namespace sluice::ft {
namespace {

// How long one call to the monitor may take: a dead monitor must not hold
// up noticing a rank's exit for long.
constexpr absl::Duration kMonitorCallTimeout = absl::Seconds(1);

struct Rank {
  int rank = 0;  // global
  int local = 0;
  RankTask task;
  std::unique_ptr<ChildProcess> process;
  int incarnation = 0;  // its SLUICE_RESTART
  absl::Time started;
  bool exited_cleanly = false;
  // --restart=rank: this rank's own restarts, when it starts again after a
  // failure, and why the launcher is stopping it (a monitor verdict) with
  // when it sends SIGKILL.
  int restarts = 0;
  std::optional<absl::Time> restart_at;
  std::string stop_reason;
  std::optional<absl::Time> kill_at;
};

// How one start of the ranks ended.
struct Outcome {
  enum Kind { kFinished, kFailed, kSignalled } kind = kFinished;
  Failure failure;  // kFailed
  int signal = 0;   // kSignalled
};

class Launcher {
 public:
  explicit Launcher(const LauncherOptions& options)
      : options_(options), leftovers_(options.grace_period) {
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
    const int code = RunJob();
    EndEverything();
    return code;
  }

 private:
  void Log(const std::string& line) {
    output_->WriteLine(STDERR_FILENO, absl::StrCat("sluice_launch: ", line));
  }
  // Ranks of this node.
  int LocalCount() const {
    return options_.jobs.empty()
               ? options_.nproc
               : static_cast<int>(AssignTasks(options_.jobs).size());
  }
  int WorldSize() const { return LocalCount() * options_.nnodes; }
  int RunJob();
  // A node other than 0 of a multi-host job: follows node 0's decisions.
  int RunRemote();
  absl::StatusOr<JoinInfo> Join(RendezvousClient& rendezvous);
  // Node 0: tells the other nodes how the job ended and gives them a
  // moment to hear it.
  void EndJob(RendezvousView::Outcome outcome, int exit_code);
  // Node 0: waits for every other node to join before any rank starts;
  // non-zero: the exit code when they did not.
  int WaitForNodes();
  // Node 0, after StopGeneration: waits until no other node runs a rank of
  // this generation.
  void WaitForRemoteStop();
  absl::Status StartMonitor();
  absl::Status StartRanks(int restart, int64_t resume_epoch);
  // Starts `rank` (again) as its `restart`th start.
  absl::Status SpawnRank(Rank& rank, int restart, int64_t resume_epoch);
  Outcome Supervise();
  // --restart=rank: restarts each failed rank alone while the others keep
  // running; returns when the job finished, a signal came, or a rank failed
  // with no restart left (kFailed).
  Outcome SuperviseEachRank();
  // --restart=rank: stops a rank the monitor has a verdict on, restarts
  // the ranks whose backoff is over, and kills those past their grace.
  void StopForVerdict(const Failure& verdict);
  absl::Status RestartDueRanks();
  // Waits up to `timeout` for SIGINT or SIGTERM (returned) or SIGCHLD.
  int WaitForSignal(absl::Duration timeout);
  // Checks every rank once; an outcome when that ends this start.
  std::optional<Outcome> ReapRanks();
  // A verdict on a running rank that was made after the rank started.
  std::optional<Outcome> PollMonitor();
  // `signal` to every rank's group, then SIGKILL after the grace period.
  void StopRanks(int signal);
  // --finish=first: gives the ranks still running the grace period to exit
  // on their own.
  void WaitForRanksToExit();
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
    return leftovers_.ending() ? std::min(wait, absl::Milliseconds(50)) : wait;
  }
  // At the launcher's exit: SIGKILL to everything still below it.
  void EndEverything();
  std::string Describe(const Rank& rank) const {
    if (rank.task.job.empty()) return absl::StrCat("rank ", rank.rank);
    return absl::StrCat("rank ", rank.rank, " (", rank.task.job, " ",
                        rank.task.index, ")");
  }

  const LauncherOptions& options_;
  sigset_t signals_;
  std::unique_ptr<OutputPrefixer> output_;
  std::string cluster_spec_;
  std::unique_ptr<MonitorProcess> monitor_process_;
  std::unique_ptr<MonitorClient> monitor_;
  std::unique_ptr<RendezvousServer> rendezvous_;  // node 0 of several
  int rank_offset_ = 0;
  bool monitor_reachable_ = true;
  int64_t resume_epoch_ = 0;
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
  const absl::Time deadline = absl::Now() + absl::Seconds(2);
  while (leftovers_.Step({}) > 0 && absl::Now() < deadline) {
    WaitForSignal(absl::Milliseconds(20));
  }
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

absl::Status Launcher::StartRanks(int restart, int64_t resume_epoch) {
  std::vector<RankTask> tasks = options_.jobs.empty()
                                    ? std::vector<RankTask>(options_.nproc)
                                    : AssignTasks(options_.jobs);
  ranks_.clear();
  for (int local = 0; local < LocalCount(); ++local) {
    Rank rank;
    rank.rank = rank_offset_ + local;
    rank.local = local;
    rank.task = tasks[local];
    absl::Status started = SpawnRank(rank, restart, resume_epoch);
    ranks_.push_back(std::move(rank));
    if (!started.ok()) return started;
  }
  return absl::OkStatus();
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
  rank.started = absl::Now();
  rank.exited_cleanly = false;
  rank.stop_reason.clear();
  rank.kill_at.reset();
  return absl::OkStatus();
}

int Launcher::WaitForSignal(absl::Duration timeout) {
  timespec wait = absl::ToTimespec(std::max(timeout, absl::ZeroDuration()));
  int signal = sigtimedwait(&signals_, nullptr, &wait);
  if (signal == SIGCHLD) child_exited_ = true;
  return signal == SIGINT || signal == SIGTERM ? signal : 0;
}

std::optional<Outcome> Launcher::ReapRanks() {
  for (Rank& rank : ranks_) {
    if (rank.process == nullptr || rank.process->exited()) continue;
    std::optional<int> status = rank.process->Poll();
    if (!status.has_value()) continue;
    // Its orphans must not outlive it (nor meet its next start).
    EndLeftoversOf({});
    const int code = ExitCodeOf(*status);
    if (monitor_ != nullptr) {
      // For the monitor's record, and so that a rank that exits with 0
      // without a train end signal is finished there, not dead: the
      // launcher acts on the exit itself.
      monitor_->ReportExit(rank.rank, *status, kMonitorCallTimeout)
          .IgnoreError();
    }
    if (code == 0) {
      rank.exited_cleanly = true;
      if (!options_.chief.empty() && rank.task.job == options_.chief &&
          rank.task.index == 0) {
        Log(absl::StrCat(Describe(rank), ", the chief, finished"));
        return Outcome{Outcome::kFinished};
      }
      if (options_.finish_on_first) {
        Log(absl::StrCat(Describe(rank),
                         " finished: the job is done (--finish=first)"));
        return Outcome{Outcome::kFinished};
      }
      continue;
    }
    Outcome failed{Outcome::kFailed};
    failed.failure.rank = rank.rank;
    failed.failure.exit_code = code;
    failed.failure.reason =
        WIFEXITED(*status)
            ? absl::StrCat(Describe(rank), " exited with code ", code)
            : absl::StrCat(Describe(rank), " was ",
                           DescribeWaitStatus(*status));
    if (!rank.stop_reason.empty()) {
      // Stopped by the launcher for a verdict: the verdict is the reason.
      failed.failure.exit_code = 1;
      failed.failure.reason = rank.stop_reason;
    } else if (code == kRestartRequestExitCode) {
      absl::StrAppend(&failed.failure.reason, " (restartable: it asks for a ",
                      "restart)");
    }
    return failed;
  }
  const bool all_clean =
      std::all_of(ranks_.begin(), ranks_.end(),
                  [](const Rank& rank) { return rank.exited_cleanly; });
  // Node 0 of several finishes only with every other node.
  if (all_clean && options_.chief.empty() &&
      (rendezvous_ == nullptr || rendezvous_->AllRemoteFinished())) {
    return Outcome{Outcome::kFinished};
  }
  return std::nullopt;
}

std::optional<Outcome> Launcher::PollMonitor() {
  if (monitor_ == nullptr) return std::nullopt;
  if (monitor_process_ != nullptr) {
    if (std::optional<std::string> ended =
            monitor_process_->RestartIfExited()) {
      Log(absl::StrCat("the monitor ended (", *ended, "); started it again at ",
                       monitor_->address(), ", ranks keep running"));
      // A new monitor knows no epochs yet; it must not report fewer than
      // the old one did.
      monitor_->Reset(resume_epoch_, kMonitorCallTimeout).IgnoreError();
    }
  }
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
  resume_epoch_ = std::max(resume_epoch_, state->min_finished_epoch);
  for (const FailureVerdict& verdict : state->failures) {
    const int local = verdict.rank - rank_offset_;
    if (local < 0 || local >= static_cast<int>(ranks_.size())) continue;
    const Rank& rank = ranks_[local];
    // A verdict on an earlier start of the rank (a stream that closed
    // late), or on a rank already stopping or stopped.
    if (rank.process == nullptr || rank.process->exited() ||
        !rank.stop_reason.empty() || verdict.time < rank.started) {
      continue;
    }
    Outcome failed{Outcome::kFailed};
    failed.failure.rank = verdict.rank;
    failed.failure.reason =
        absl::StrCat("monitor: ", verdict.kind, ": ", verdict.message);
    return failed;
  }
  return std::nullopt;
}

Outcome Launcher::Supervise() {
  absl::Time next_poll = absl::Now();
  for (;;) {
    TendLeftovers();
    if (std::optional<Outcome> outcome = ReapRanks()) return *outcome;
    if (rendezvous_ != nullptr) {
      if (std::optional<Failure> failure = rendezvous_->RemoteFailure()) {
        Outcome failed{Outcome::kFailed};
        failed.failure = *failure;
        return failed;
      }
    }
    if (absl::Now() >= next_poll) {
      if (std::optional<Outcome> outcome = PollMonitor()) {
        return *outcome;
      }
      next_poll = absl::Now() + options_.poll_interval;
    }
    if (int signal = WaitForSignal(LeftoverWait(next_poll - absl::Now()))) {
      Outcome stopped{Outcome::kSignalled};
      stopped.signal = signal;
      return stopped;
    }
  }
}

Outcome Launcher::SuperviseEachRank() {
  absl::Time next_poll = absl::Now();
  for (;;) {
    TendLeftovers();
    if (std::optional<Outcome> outcome = ReapRanks()) {
      if (outcome->kind != Outcome::kFailed) return *outcome;
      Rank& rank = ranks_[outcome->failure.rank - rank_offset_];
      if (rank.restarts >= options_.restart.max_restarts) {
        absl::StrAppend(&outcome->failure.reason,
                        " and has no restart left (--max_restarts=",
                        options_.restart.max_restarts, " per rank)");
        return *outcome;
      }
      ++rank.restarts;
      const absl::Duration backoff =
          options_.restart.BackoffBefore(rank.restarts);
      Log(absl::StrCat(
          "restarting ", Describe(rank), " alone (restart ", rank.restarts,
          " of ", options_.restart.max_restarts, " in ",
          absl::FormatDuration(backoff),
          "), the others keep running: ", outcome->failure.reason));
      rank.restart_at = absl::Now() + backoff;
      continue;  // another rank may have exited as well
    }
    if (absl::Status restarted = RestartDueRanks(); !restarted.ok()) {
      Outcome failed{Outcome::kFailed};
      failed.failure.reason = std::string(restarted.message());
      return failed;
    }
    if (absl::Now() >= next_poll) {
      if (std::optional<Outcome> verdict = PollMonitor()) {
        StopForVerdict(verdict->failure);
      }
      next_poll = absl::Now() + options_.poll_interval;
    }
    absl::Time wake = next_poll;
    for (const Rank& rank : ranks_) {
      if (rank.restart_at.has_value()) wake = std::min(wake, *rank.restart_at);
      if (rank.kill_at.has_value()) wake = std::min(wake, *rank.kill_at);
    }
    if (int signal = WaitForSignal(LeftoverWait(wake - absl::Now()))) {
      Outcome stopped{Outcome::kSignalled};
      stopped.signal = signal;
      return stopped;
    }
  }
}

void Launcher::StopForVerdict(const Failure& verdict) {
  Rank& rank = ranks_[verdict.rank - rank_offset_];
  Log(absl::StrCat("stopping ", Describe(rank), ": ", verdict.reason));
  rank.stop_reason = verdict.reason;
  rank.process->SignalGroup(SIGTERM);
  rank.process->SignalGroup(SIGCONT);
  // Its descendants outside the group at the same time as the group.
  EndLeftoversOf({rank.process->pid()});
  rank.kill_at = absl::Now() + options_.grace_period;
}

absl::Status Launcher::RestartDueRanks() {
  const absl::Time now = absl::Now();
  for (Rank& rank : ranks_) {
    if (rank.kill_at.has_value() && now >= *rank.kill_at) {
      rank.kill_at.reset();
      if (!rank.process->exited()) {
        Log(absl::StrCat(Describe(rank), " still running after ",
                         absl::FormatDuration(options_.grace_period),
                         ": sending SIGKILL"));
        rank.process->SignalGroup(SIGKILL);
      }
    }
    if (!rank.restart_at.has_value() || now < *rank.restart_at) continue;
    // Not while what an earlier start left still runs: a restarted rank
    // must not meet its ghost (a port it held, a file it writes).
    if (leftovers_.ending()) continue;
    rank.restart_at.reset();
    // The old process's group may hold leftovers: destroying it kills them.
    rank.process.reset();
    if (absl::Status started = SpawnRank(rank, rank.restarts, resume_epoch_);
        !started.ok()) {
      return started;
    }
  }
  return absl::OkStatus();
}

void Launcher::StopRanks(int signal) {
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
  const absl::Time deadline = absl::Now() + options_.grace_period;
  int others = 0;  // what the ranks started, still running
  for (;;) {
    const int ranks = running();
    others = leftovers_.Step(OwnedChildren());
    if ((ranks == 0 && others == 0) || absl::Now() >= deadline) break;
    if (WaitForSignal(
            std::min(absl::Milliseconds(50), deadline - absl::Now())) != 0) {
      Log("a second signal: killing the ranks now");
      break;
    }
  }
  if (const int left = running(); left > 0) {
    Log(absl::StrCat(left, " rank(s) still running after ",
                     absl::FormatDuration(options_.grace_period),
                     ": sending SIGKILL"));
  }
  if (others > 0) {
    Log(absl::StrCat(others, " process(es) the ranks started still running ",
                     "after ", absl::FormatDuration(options_.grace_period),
                     ": sending SIGKILL"));
  }
  // Destroying a rank kills its whole group; what it left elsewhere is
  // killed with the orphans that its death made.
  ranks_.clear();
  leftovers_.End(SIGKILL, {}, OwnedChildren());
  leftovers_.KillNow(OwnedChildren());
  const absl::Time killed = absl::Now() + absl::Seconds(2);
  while (leftovers_.Step(OwnedChildren()) > 0 && absl::Now() < killed) {
    WaitForSignal(absl::Milliseconds(10));
  }
}

void Launcher::WaitForRanksToExit() {
  const absl::Time deadline = absl::Now() + options_.grace_period;
  for (;;) {
    const bool running =
        std::any_of(ranks_.begin(), ranks_.end(), [](Rank& rank) {
          return rank.process != nullptr && !rank.process->Poll().has_value();
        });
    if (!running || absl::Now() >= deadline) return;
    TendLeftovers();
    if (WaitForSignal(
            std::min(absl::Milliseconds(50), deadline - absl::Now())) != 0) {
      return;
    }
  }
}

void Launcher::EndJob(RendezvousView::Outcome outcome, int exit_code) {
  if (rendezvous_ == nullptr) return;
  rendezvous_->End(outcome, exit_code);
  const absl::Time deadline =
      absl::Now() + options_.grace_period + absl::Seconds(2);
  while (!rendezvous_->AllRemoteSawEnd() && absl::Now() < deadline) {
    if (WaitForSignal(absl::Milliseconds(50)) != 0) break;
  }
}

void Launcher::WaitForRemoteStop() {
  if (rendezvous_ == nullptr) return;
  // A node stops its ranks within its grace period and says so at its next
  // poll; a node that never does is restarted all the same (it restarts
  // its ranks when it sees the new generation).
  const absl::Time deadline =
      absl::Now() + options_.grace_period + absl::Seconds(2);
  while (!rendezvous_->AllRemoteStopped()) {
    if (absl::Now() >= deadline) {
      Log("other nodes did not report their ranks stopped in time: "
          "restarting anyway");
      return;
    }
    if (WaitForSignal(absl::Milliseconds(50)) != 0) return;
  }
}

int Launcher::WaitForNodes() {
  const absl::Time deadline = absl::Now() + options_.rendezvous_timeout;
  while (rendezvous_->JoinedNodes() < options_.nnodes - 1) {
    if (absl::Now() >= deadline) {
      Log(absl::StrCat("only ", rendezvous_->JoinedNodes(), " of ",
                       options_.nnodes - 1, " other node(s) joined within ",
                       absl::FormatDuration(options_.rendezvous_timeout),
                       " (--rendezvous_timeout_s)"));
      EndJob(RendezvousView::kGaveUp, 1);
      return 1;
    }
    if (int signal = WaitForSignal(absl::Milliseconds(50))) {
      Log(absl::StrCat("got ", strsignal(signal),
                       " while waiting for the other nodes"));
      EndJob(RendezvousView::kGaveUp, 128 + signal);
      return 128 + signal;
    }
  }
  return 0;
}

absl::StatusOr<JoinInfo> Launcher::Join(RendezvousClient& rendezvous) {
  const absl::Time deadline = absl::Now() + options_.rendezvous_timeout;
  for (;;) {
    absl::StatusOr<JoinInfo> joined = rendezvous.Join(
        options_.node_rank, LocalCount(), options_.host, kMonitorCallTimeout);
    if (joined.ok() || absl::IsInvalidArgument(joined.status())) return joined;
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

int Launcher::RunRemote() {
  RendezvousClient rendezvous(options_.rendezvous);
  absl::StatusOr<JoinInfo> joined = Join(rendezvous);
  if (!joined.ok()) {
    Log(absl::StrCat("cannot join the rendezvous at ", options_.rendezvous,
                     " as node ", options_.node_rank, ": ",
                     joined.status().message()));
    return 1;
  }
  if (joined->world_size != WorldSize()) {
    Log(absl::StrCat(
        "node 0 runs a world of ", joined->world_size,
        " ranks, this node expects --nnodes x --nproc = ", WorldSize()));
    return 1;
  }
  rank_offset_ = joined->rank_offset;
  if (!joined->monitor_address.empty()) {
    monitor_ = std::make_unique<MonitorClient>(joined->monitor_address);
  }
  Log(absl::StrCat("node ", options_.node_rank, " joined the rendezvous at ",
                   options_.rendezvous, ": ranks ", rank_offset_, "..",
                   rank_offset_ + LocalCount() - 1, " of ", WorldSize()));
  RendezvousView view = joined->view;
  NodeReportInfo report;
  report.node_rank = options_.node_rank;
  report.generation = -1;
  report.ranks_stopped = true;
  absl::Time last_answer = absl::Now();
  bool reachable = true;
  for (;;) {
    TendLeftovers();
    if (view.outcome != RendezvousView::kInProgress) {
      StopRanks(SIGTERM);
      output_->Drain(absl::Seconds(1));
      if (view.outcome == RendezvousView::kFinished) {
        Log("the job finished");
        return 0;
      }
      Log(absl::StrCat("node 0 ended the job with exit code ", view.exit_code));
      return view.exit_code;
    }
    if (view.running && view.generation != report.generation) {
      if (!report.ranks_stopped) StopRanks(SIGTERM);
      if (view.restart > 0) {
        Log(absl::StrCat("restart ", view.restart, " from epoch ",
                         view.resume_epoch, ", as node 0 decided"));
      }
      report = NodeReportInfo{};
      report.node_rank = options_.node_rank;
      report.generation = view.generation;
      if (absl::Status started = StartRanks(view.restart, view.resume_epoch);
          !started.ok()) {
        Log(std::string(started.message()));
        StopRanks(SIGKILL);
        report.state = NodeReportInfo::kFailed;
        report.failure.reason = std::string(started.message());
        report.ranks_stopped = true;
      }
    } else if (!view.running && view.generation == report.generation &&
               !report.ranks_stopped) {
      Log("node 0 stops every rank to restart them");
      StopRanks(SIGTERM);
      report.ranks_stopped = true;
    }
    if (report.state == NodeReportInfo::kRunning && !report.ranks_stopped) {
      if (std::optional<Outcome> outcome = ReapRanks()) {
        if (outcome->kind == Outcome::kFinished) {
          Log("this node's ranks finished; waiting for the other nodes");
          report.state = NodeReportInfo::kFinished;
          report.ranks_stopped = true;
        } else {
          Log(absl::StrCat("stopping this node's ranks: ",
                           outcome->failure.reason));
          report.state = NodeReportInfo::kFailed;
          report.failure = outcome->failure;
        }
      }
    }
    // Node 0 hears of a failure before this node's ranks are stopped, so
    // that every node stops at once.
    absl::StatusOr<RendezvousView> answer =
        rendezvous.Poll(report, kMonitorCallTimeout);
    if (answer.ok()) {
      if (!reachable) Log("node 0 answers again");
      reachable = true;
      last_answer = absl::Now();
      view = *answer;
    } else {
      if (reachable) {
        Log(absl::StrCat("cannot reach node 0, ranks keep running: ",
                         answer.status().message()));
      }
      reachable = false;
      if (absl::Now() - last_answer > options_.rendezvous_timeout) {
        Log(absl::StrCat("lost node 0 (the rendezvous at ", options_.rendezvous,
                         ") for ",
                         absl::FormatDuration(options_.rendezvous_timeout),
                         ": stopping this node's ranks"));
        StopRanks(SIGTERM);
        output_->Drain(absl::Seconds(1));
        return 1;
      }
    }
    if (report.state == NodeReportInfo::kFailed && !report.ranks_stopped) {
      StopRanks(SIGTERM);
      report.ranks_stopped = true;
    }
    if (int signal = WaitForSignal(LeftoverWait(options_.poll_interval))) {
      Log(absl::StrCat("got ", strsignal(signal), ": passing it to the ranks"));
      StopRanks(signal);
      output_->Drain(absl::Seconds(1));
      return 128 + signal;
    }
  }
}

int Launcher::RunJob() {
  if (options_.node_rank > 0) return RunRemote();
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
  if (options_.nnodes > 1) {
    absl::StatusOr<std::unique_ptr<RendezvousServer>> served =
        RendezvousServer::Start(options_.rendezvous, options_.nnodes,
                                LocalCount(),
                                monitor_ != nullptr ? monitor_->address() : "",
                                options_.rendezvous_timeout);
    if (!served.ok()) {
      Log(std::string(served.status().message()));
      return 1;
    }
    rendezvous_ = std::move(*served);
    Log(absl::StrCat("rendezvous at ", options_.rendezvous, " for ",
                     options_.nnodes, " nodes of ", LocalCount(), " ranks"));
    if (int code = WaitForNodes(); code != 0) return code;
  }
  int restart = 0;
  for (;;) {
    Outcome outcome;
    // A generation per start: restart 0 is generation 0.
    if (rendezvous_ != nullptr)
      rendezvous_->Begin(restart, resume_epoch_, restart);
    if (absl::Status started = StartRanks(restart, resume_epoch_);
        !started.ok()) {
      Log(std::string(started.message()));
      StopRanks(SIGKILL);
      EndJob(RendezvousView::kGaveUp, 1);
      return 1;
    }
    const bool each_rank = options_.restart.scope == RestartScope::kRank;
    outcome = each_rank ? SuperviseEachRank() : Supervise();
    if (outcome.kind == Outcome::kFinished) {
      if (options_.finish_on_first) WaitForRanksToExit();
      StopRanks(SIGTERM);
      EndJob(RendezvousView::kFinished, 0);
      output_->Drain(absl::Seconds(1));
      Log("the job finished");
      return 0;
    }
    if (outcome.kind == Outcome::kSignalled) {
      Log(absl::StrCat("got ", strsignal(outcome.signal),
                       ": passing it to the ranks"));
      StopRanks(outcome.signal);
      EndJob(RendezvousView::kGaveUp, 128 + outcome.signal);
      output_->Drain(absl::Seconds(1));
      return 128 + outcome.signal;
    }
    const Failure& failure = outcome.failure;
    if (each_rank) {
      // A rank used up its own restarts, or could not start again.
      Log(absl::StrCat("stopping all ranks: ", failure.reason));
      StopRanks(SIGTERM);
      output_->Drain(absl::Seconds(1));
      Log(absl::StrCat("giving up; exiting with ", failure.exit_code));
      return failure.exit_code;
    }
    Log(absl::StrCat("stopping all ranks: ", failure.reason));
    // Every node stops its ranks while this one does.
    if (rendezvous_ != nullptr) rendezvous_->StopGeneration();
    StopRanks(SIGTERM);
    WaitForRemoteStop();
    if (monitor_ != nullptr) {
      // The epochs the ranks finished before they stopped.
      if (absl::StatusOr<MonitorSnapshot> state =
              monitor_->GetState(kMonitorCallTimeout);
          state.ok()) {
        resume_epoch_ = std::max(resume_epoch_, state->min_finished_epoch);
      }
    }
    if (restart >= options_.restart.max_restarts) {
      EndJob(RendezvousView::kGaveUp, failure.exit_code);
      output_->Drain(absl::Seconds(1));
      Log(absl::StrCat("giving up after ", restart, " restart(s) (",
                       "--max_restarts=", options_.restart.max_restarts, "): ",
                       failure.reason, "; exiting with ", failure.exit_code));
      return failure.exit_code;
    }
    ++restart;
    const absl::Duration backoff = options_.restart.BackoffBefore(restart);
    Log(absl::StrCat("restart ", restart, " of ", options_.restart.max_restarts,
                     " in ", absl::FormatDuration(backoff), " from epoch ",
                     resume_epoch_));
    const absl::Time resume_at = absl::Now() + backoff;
    while (absl::Now() < resume_at) {
      if (int signal = WaitForSignal(resume_at - absl::Now())) {
        Log(absl::StrCat("got ", strsignal(signal),
                         " while waiting to restart"));
        EndJob(RendezvousView::kGaveUp, 128 + signal);
        return 128 + signal;
      }
    }
    if (monitor_ != nullptr) {
      if (absl::Status reset =
              monitor_->Reset(resume_epoch_, kMonitorCallTimeout);
          !reset.ok()) {
        Log(absl::StrCat("cannot reset the monitor, restarting anyway: ",
                         reset.message()));
      }
    }
  }
}

}  // namespace

int RunLauncher(const LauncherOptions& options) {
  return Launcher(options).Run();
}

}  // namespace sluice::ft
