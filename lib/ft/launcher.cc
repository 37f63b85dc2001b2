#include "lib/ft/launcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/ft/launcher_monitor.h"
#include "lib/ft/process.h"
#include "lib/ft/process_output.h"

namespace sluice::ft {
namespace {

// How long one call to the monitor may take: a dead monitor must not hold
// up noticing a rank's exit for long.
constexpr absl::Duration kMonitorCallTimeout = absl::Seconds(1);

struct Rank {
  int rank = 0;
  RankTask task;
  std::unique_ptr<ChildProcess> process;
  bool exited_cleanly = false;
};

// How one start of the ranks ended.
struct Outcome {
  enum Kind { kFinished, kFailed, kSignalled } kind = kFinished;
  Failure failure;  // kFailed
  int signal = 0;   // kSignalled
};

class Launcher {
 public:
  explicit Launcher(const LauncherOptions& options) : options_(options) {
    sigemptyset(&signals_);
    for (int signal : {SIGINT, SIGTERM, SIGCHLD}) sigaddset(&signals_, signal);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
    output_ = std::make_unique<OutputPrefixer>();
  }

  int Run();

 private:
  void Log(const std::string& line) {
    output_->WriteLine(STDERR_FILENO, absl::StrCat("sluice_launch: ", line));
  }
  int WorldSize() const {
    return options_.jobs.empty()
               ? options_.nproc
               : static_cast<int>(AssignTasks(options_.jobs).size());
  }
  absl::Status StartMonitor();
  absl::Status StartRanks(int restart, int64_t resume_epoch);
  Outcome Supervise();
  // Waits up to `timeout` for SIGINT or SIGTERM (returned) or SIGCHLD.
  int WaitForSignal(absl::Duration timeout);
  // Checks every rank once; an outcome when that ends this start.
  std::optional<Outcome> ReapRanks();
  std::optional<Outcome> PollMonitor(absl::Time started);
  // `signal` to every rank's group, then SIGKILL after the grace period.
  void StopRanks(int signal);
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
  bool monitor_reachable_ = true;
  int64_t resume_epoch_ = 0;
  std::vector<Rank> ranks_;
};

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
  LaunchEnvironment launch;
  launch.world_size = WorldSize();
  launch.monitor_address = monitor_ != nullptr ? monitor_->address() : "";
  launch.resume_epoch = resume_epoch;
  launch.restart = restart;
  launch.cluster_spec = cluster_spec_;
  std::vector<RankTask> tasks = options_.jobs.empty()
                                    ? std::vector<RankTask>(options_.nproc)
                                    : AssignTasks(options_.jobs);
  ranks_.clear();
  for (int rank = 0; rank < launch.world_size; ++rank) {
    SpawnOptions spawn;
    spawn.argv = options_.command;
    if (!options_.resume_epoch_flag.empty()) {
      spawn.argv.push_back(
          absl::StrCat("--", options_.resume_epoch_flag, "=", resume_epoch));
    }
    spawn.environment = RankEnvironment(launch, rank, tasks[rank]);
    absl::StatusOr<std::unique_ptr<ChildProcess>> process =
        ChildProcess::Spawn(spawn);
    if (!process.ok()) {
      return absl::Status(process.status().code(),
                          absl::StrCat("cannot start rank ", rank, ": ",
                                       process.status().message()));
    }
    const std::string prefix = absl::StrCat("[", rank, "]");
    output_->Add((*process)->TakeStdout(), prefix, STDOUT_FILENO);
    output_->Add((*process)->TakeStderr(), prefix, STDERR_FILENO);
    ranks_.push_back(Rank{rank, tasks[rank], std::move(*process)});
  }
  return absl::OkStatus();
}

int Launcher::WaitForSignal(absl::Duration timeout) {
  timespec wait = absl::ToTimespec(std::max(timeout, absl::ZeroDuration()));
  int signal = sigtimedwait(&signals_, nullptr, &wait);
  return signal == SIGINT || signal == SIGTERM ? signal : 0;
}

std::optional<Outcome> Launcher::ReapRanks() {
  for (Rank& rank : ranks_) {
    if (rank.process->exited()) continue;
    std::optional<int> status = rank.process->Poll();
    if (!status.has_value()) continue;
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
    if (code == kRestartRequestExitCode) {
      absl::StrAppend(&failed.failure.reason, " (restartable: it asks for a ",
                      "restart)");
    }
    return failed;
  }
  const bool all_clean =
      std::all_of(ranks_.begin(), ranks_.end(),
                  [](const Rank& rank) { return rank.exited_cleanly; });
  if (all_clean && options_.chief.empty()) return Outcome{Outcome::kFinished};
  return std::nullopt;
}

std::optional<Outcome> Launcher::PollMonitor(absl::Time started) {
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
    // A verdict on the ranks of an earlier start (a stream that closed late).
    if (verdict.time < started) continue;
    Outcome failed{Outcome::kFailed};
    failed.failure.rank = verdict.rank;
    failed.failure.reason =
        absl::StrCat("monitor: ", verdict.kind, ": ", verdict.message);
    return failed;
  }
  return std::nullopt;
}

Outcome Launcher::Supervise() {
  const absl::Time started = absl::Now();
  absl::Time next_poll = started;
  for (;;) {
    if (std::optional<Outcome> outcome = ReapRanks()) return *outcome;
    if (absl::Now() >= next_poll) {
      if (std::optional<Outcome> outcome = PollMonitor(started)) {
        return *outcome;
      }
      next_poll = absl::Now() + options_.poll_interval;
    }
    if (int signal = WaitForSignal(next_poll - absl::Now())) {
      Outcome stopped{Outcome::kSignalled};
      stopped.signal = signal;
      return stopped;
    }
  }
}

void Launcher::StopRanks(int signal) {
  auto running = [this] {
    return std::count_if(ranks_.begin(), ranks_.end(), [](Rank& rank) {
      return !rank.process->Poll().has_value();
    });
  };
  for (Rank& rank : ranks_) {
    if (rank.process->exited()) continue;
    rank.process->SignalGroup(signal);
    // A stopped rank handles the signal only once it runs again.
    rank.process->SignalGroup(SIGCONT);
  }
  const absl::Time deadline = absl::Now() + options_.grace_period;
  while (running() > 0 && absl::Now() < deadline) {
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
  // Destroying a rank kills its whole group, leftovers included.
  ranks_.clear();
}

int Launcher::Run() {
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
  int restart = 0;
  for (;;) {
    Outcome outcome;
    if (absl::Status started = StartRanks(restart, resume_epoch_);
        !started.ok()) {
      Log(std::string(started.message()));
      StopRanks(SIGKILL);
      return 1;
    }
    outcome = Supervise();
    if (outcome.kind == Outcome::kFinished) {
      StopRanks(SIGTERM);
      output_->Drain(absl::Seconds(1));
      Log("the job finished");
      return 0;
    }
    if (outcome.kind == Outcome::kSignalled) {
      Log(absl::StrCat("got ", strsignal(outcome.signal),
                       ": passing it to the ranks"));
      StopRanks(outcome.signal);
      output_->Drain(absl::Seconds(1));
      return 128 + outcome.signal;
    }
    const Failure& failure = outcome.failure;
    Log(absl::StrCat("stopping all ranks: ", failure.reason));
    StopRanks(SIGTERM);
    if (monitor_ != nullptr) {
      // The epochs the ranks finished before they stopped.
      if (absl::StatusOr<MonitorSnapshot> state =
              monitor_->GetState(kMonitorCallTimeout);
          state.ok()) {
        resume_epoch_ = std::max(resume_epoch_, state->min_finished_epoch);
      }
    }
    if (restart >= options_.restart.max_restarts) {
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
