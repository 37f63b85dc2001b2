// sluice_launch: runs the ranks of a job, watches them with the step
// monitor and restarts them from the minimum finished epoch when one fails.
// A thin main over //lib/launcher; see docs/launcher.md.
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/launcher/launcher.h"
#include "sluice/support/host_port.h"
#include "tools/common/flag_checks.h"
#include "tools/common/flags.h"
#include "tools/common/tool_flags.h"

namespace {

namespace tools = sluice::tools;

// The exit status of every flag error (docs/launcher.md).
constexpr int kFlagErrorExitCode = 2;

// Bounds of this tool's own flags (the shared ones are in flag_checks.h).
// Restarts are cheap to count; a million is "never give up" in practice.
constexpr int kMaxRestarts = 1000000;
// A longer first wait would be cut to RestartPolicy's cap anyway.
const int kMaxBackoffMs = static_cast<int>(
    absl::ToInt64Milliseconds(sluice::launcher::RestartPolicy().max_backoff));
// The state is read at least once a minute, or a failure waits that long.
constexpr int kMaxPollIntervalMs = 60000;

tools::FlagSet flags;

tools::Flag<int> nproc(flags, "nproc",
                       "ranks to start (with --jobs: may be left out, else "
                       "must equal the sum of the counts)",
                       0, tools::InRange(1, tools::kMaxLocalRanks));
tools::Flag<std::string> jobs(
    flags, "jobs",
    "JOB:COUNT,...: tasks of a coordinator job, ranks given in this order, "
    "each with TF_CONFIG and SLUICE_CLUSTER (e.g. ps:2,worker:4,chief:1)");
tools::Flag<std::string> chief(
    flags, "chief",
    "with --jobs: the job whose task 0 ends the job by exiting with 0; the "
    "other ranks are then stopped (default: the job ends when every rank "
    "exited 0)");
tools::Flag<std::string> finish(
    flags, "finish",
    "without --chief: when the job is done: 'all' (every rank exited with 0) "
    "or 'first' (the first rank that exits with 0; the others get "
    "--grace_period_s to exit, then are stopped)",
    "all");
tools::Flag<std::string> host(
    flags, "host", "address of the tasks in TF_CONFIG and of the monitor",
    "127.0.0.1");
tools::Flag<std::string> resume_epoch_flag(
    flags, "resume_epoch_flag",
    "also pass the resume epoch to the command as --NAME=EPOCH");
tools::Flag<std::string> monitor(
    flags, "monitor",
    "host:port of a running sluice_monitor, or 'none' for no monitor "
    "(default: start one as a child)");
tools::Flag<std::string> monitor_binary(
    flags, "monitor_binary",
    "the sluice_monitor to start (default: the one built next to "
    "sluice_launch, else sluice_monitor in $PATH)");
tools::Flag<std::string> stuck_timeout(
    flags, "stuck_timeout_s",
    tools::WithRange("passed to the monitor: seconds a step may take",
                     tools::kMinSeconds, tools::kMaxSeconds));
tools::Flag<std::string> silent_timeout(
    flags, "silent_timeout_s",
    tools::WithRange(
        "passed to the monitor: seconds a training rank may stay silent",
        tools::kMinSeconds, tools::kMaxSeconds));
tools::Flag<std::vector<std::string>> step_kinds(
    flags, "step_kind",
    "passed to the monitor, repeatable: NAME:SECONDS, the limit of a "
    "declared kind of step (first, checkpoint)");
tools::Flag<std::string> progress_timeout(
    flags, "progress_timeout_s",
    tools::WithRange("passed to the monitor: seconds a training rank may "
                     "begin no step between steps; 0: no limit",
                     0.0, tools::kMaxSeconds));
tools::Flag<std::vector<std::string>> phases(
    flags, "phase",
    "passed to the monitor, repeatable: NAME:SECONDS, the limit of a phase "
    "between steps ('checkpoint save')");
tools::Flag<int> nnodes(flags, "nnodes",
                        "hosts of the job, one sluice_launch each with the "
                        "same --nproc and --rendezvous",
                        1, tools::InRange(1, tools::kMaxWorldSize));
tools::Flag<int> node_rank(flags, "node_rank",
                           "this host's node, 0..nnodes-1; node 0 runs the "
                           "monitor, serves the rendezvous and decides "
                           "restarts",
                           0, tools::InRange(0, tools::kMaxWorldSize - 1));
tools::Flag<std::string> rendezvous(
    flags, "rendezvous",
    "with --nnodes > 1: host:port where node 0 serves the rendezvous (node 0 "
    "listens there, the others connect)");
tools::Flag<double> rendezvous_timeout(
    flags, "rendezvous_timeout_s",
    "with --nnodes > 1: seconds node 0 waits for every other node to join, "
    "and seconds another node goes without an answer from node 0 (to join, "
    "then while running) before it stops its ranks and exits with 1",
    30, tools::InRange(tools::kMinSeconds, tools::kMaxSeconds));
tools::Flag<double> grace_period(
    flags, "grace_period_s",
    "seconds between SIGTERM and SIGKILL when stopping ranks", 5,
    tools::InRange(0.0, tools::kMaxSeconds));
tools::Flag<std::string> restart_scope(
    flags, "restart",
    "what a failure restarts: 'job' (every rank that has not finished, "
    "from the minimum finished epoch) or 'rank' (the failed rank alone, the "
    "others keep running; --max_restarts and the backoff count per rank); "
    "a rank that exited with 0 is never started again",
    "job");
tools::Flag<int> max_restarts(flags, "max_restarts",
                              "restarts before giving up", 3,
                              tools::InRange(0, kMaxRestarts));
tools::Flag<int> restart_backoff(
    flags, "restart_backoff_ms",
    "wait before the first restart, doubled for each next one (at most "
    "30 s)",
    500, tools::InRange(0, kMaxBackoffMs));
tools::Flag<int> poll_interval(flags, "poll_interval_ms",
                               "how often the monitor's state is read", 150,
                               tools::InRange(1, kMaxPollIntervalMs));
// Everything after "--" is the command, never the launcher's flags.
tools::TrailingArgs command(flags, "command args...");

std::string DefaultMonitorBinary() {
  char self[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length > 0) {
    std::string directory(self, length);
    directory.erase(directory.rfind('/'));
    for (const char* relative :
         {"/../sluice_monitor/sluice_monitor", "/sluice_monitor"}) {
      std::string candidate = directory + relative;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "sluice_monitor";
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "sluice_launch: %s\n", message.c_str());
  return kFlagErrorExitCode;
}

}  // namespace

int main(int argc, char** argv) {
  // Flag errors, ranges included, exit with 2: 1 is a job's failure.
  tools::SetFlagErrorExitCode(kFlagErrorExitCode);
  tools::ParseToolCommandLine(
      argc, argv, "sluice_launch",
      "sluice_launch: starts the ranks of a job and restarts them when one "
      "fails\n\n"
      "  sluice_launch --nproc=N [flags] -- command args...\n"
      "  sluice_launch --jobs=ps:2,worker:4,chief:1 --chief=chief [flags] -- "
      "command args...\n"
      "  sluice_launch --nnodes=M --node_rank=K --rendezvous=HOST:PORT "
      "--nproc=N [flags] -- command args...\n\n"
      "Each rank gets SLUICE_RANK, SLUICE_WORLD_SIZE, SLUICE_LOCAL_RANK, "
      "SLUICE_NODE_RANK,\nSLUICE_MONITOR, SLUICE_RESUME_EPOCH and "
      "SLUICE_RESTART (with --jobs also TF_CONFIG\nand SLUICE_CLUSTER), its "
      "output lines are prefixed with [rank]. When a rank\nexits non-zero or "
      "the monitor finds one stuck, silent or dead, every rank is\nstopped and "
      "those that have not finished (exited with 0) are started again\nfrom "
      "the minimum finished epoch. With --nnodes, one\n"
      "launcher per host: node K runs the global ranks K*N..K*N+N-1 of M*N, "
      "node 0\nruns the monitor, serves the rendezvous and decides every "
      "restart, the others\nfollow it. Exit code: 0 when the job finished, "
      "the failing rank's (or 1) when\nno restart was left, 128+N on signal "
      "N, 1 on a node that lost node 0.\nSee docs/launcher.md.\n",
      flags);
  if (command->empty()) {
    return Fail(
        "no command: give it after '--' (sluice_launch --nproc=2 -- "
        "./train)");
  }
  sluice::launcher::LauncherOptions options;
  options.command = *command;
  if (!jobs->empty()) {
    absl::StatusOr<std::vector<sluice::launcher::JobCount>> parsed =
        sluice::launcher::ParseJobs(*jobs);
    if (!parsed.ok()) return Fail(std::string(parsed.status().message()));
    options.jobs = *parsed;
    // Summed wide: each count may be up to INT_MAX.
    int64_t total = 0;
    for (const sluice::launcher::JobCount& job : options.jobs)
      total += job.count;
    if (total > tools::kMaxLocalRanks) {
      return Fail(absl::StrCat("--jobs=", *jobs, " asks for ", total,
                               " ranks: expected 1 to ", tools::kMaxLocalRanks,
                               " in all"));
    }
    if (*nproc != 0 && *nproc != total) {
      return Fail(absl::StrCat("--nproc=", *nproc, " does not match --jobs=",
                               *jobs, " (", total, " tasks)"));
    }
  } else if (*nproc == 0) {
    return Fail(absl::StrCat("--nproc is missing: expected 1 to ",
                             tools::kMaxLocalRanks, " ranks, or --jobs"));
  }
  if (!chief->empty()) {
    bool named = false;
    for (const sluice::launcher::JobCount& job : options.jobs) {
      named = named || job.job == *chief;
    }
    if (!named) {
      return Fail(absl::StrCat("--chief=", *chief, " names no job of --jobs"));
    }
  }
  if (*node_rank >= *nnodes) {
    return Fail(absl::StrCat("--node_rank=", *node_rank, " is not in 0..",
                             *nnodes - 1, " (--nnodes=", *nnodes, ")"));
  }
  if (static_cast<int64_t>(*nnodes) * *nproc > tools::kMaxWorldSize) {
    return Fail(absl::StrCat("--nnodes=", *nnodes, " x --nproc=", *nproc,
                             " is ", static_cast<int64_t>(*nnodes) * *nproc,
                             " ranks: expected at most ", tools::kMaxWorldSize,
                             " in all"));
  }
  if (*nnodes > 1) {
    if (rendezvous->empty()) {
      return Fail(
          "--nnodes > 1 needs --rendezvous=HOST:PORT, node 0's address");
    }
    if (absl::StatusOr<sluice::HostPort> valid =
            sluice::ParseHostPort(*rendezvous);
        !valid.ok()) {
      return Fail(absl::StrCat("--rendezvous=", *rendezvous, ": ",
                               valid.status().message()));
    }
    if (!jobs->empty())
      return Fail("--jobs runs on one host: not with --nnodes");
    if (*node_rank > 0 && !monitor->empty()) {
      return Fail(
          "--monitor is node 0's flag: the other nodes use its monitor");
    }
  }
  if (*finish != "all" && *finish != "first") {
    return Fail(
        absl::StrCat("--finish=", *finish, " is neither 'all' nor 'first'"));
  }
  if (*finish == "first" && (!chief->empty() || *nnodes > 1)) {
    return Fail("--finish=first is not for a job with --chief or --nnodes");
  }
  if (*restart_scope != "job" && *restart_scope != "rank") {
    return Fail(absl::StrCat("--restart=", *restart_scope,
                             " is neither 'job' nor 'rank'"));
  }
  if (*restart_scope == "rank" && *nnodes > 1) {
    return Fail("--restart=rank runs on one host: not with --nnodes");
  }
  if (!monitor->empty() && *monitor != "none") {
    if (absl::StatusOr<sluice::HostPort> valid =
            sluice::ParseHostPort(*monitor);
        !valid.ok()) {
      return Fail(
          absl::StrCat("--monitor=", *monitor, ": ", valid.status().message()));
    }
  }
  // The monitor's flags are passed on as written, but checked here as the
  // monitor checks them, so that a bad one stops the launcher before it
  // starts anything.
  for (const tools::Flag<std::string>* timeout :
       {&stuck_timeout, &silent_timeout}) {
    if (!timeout->given()) continue;
    absl::StatusOr<double> seconds =
        tools::ParseFlagNumber(timeout->name(), **timeout, **timeout,
                               tools::kMinSeconds, tools::kMaxSeconds);
    if (!seconds.ok()) return Fail(std::string(seconds.status().message()));
  }
  if (progress_timeout.given()) {
    absl::StatusOr<double> seconds =
        tools::ParseFlagNumber(progress_timeout.name(), *progress_timeout,
                               *progress_timeout, 0.0, tools::kMaxSeconds);
    if (!seconds.ok()) return Fail(std::string(seconds.status().message()));
  }
  for (const std::string& phase : *phases) {
    auto parsed = tools::ParseNamedFlagNumber(
        "phase", phase, "NAME:SECONDS", tools::kMinSeconds, tools::kMaxSeconds);
    if (!parsed.ok()) return Fail(std::string(parsed.status().message()));
  }
  for (const std::string& kind : *step_kinds) {
    auto parsed =
        tools::ParseNamedFlagNumber("step_kind", kind, "KIND:SECONDS",
                                    tools::kMinSeconds, tools::kMaxSeconds);
    if (!parsed.ok()) return Fail(std::string(parsed.status().message()));
  }
  options.nnodes = *nnodes;
  options.node_rank = *node_rank;
  options.rendezvous = *rendezvous;
  options.rendezvous_timeout = absl::Seconds(*rendezvous_timeout);
  options.nproc = *nproc;
  options.chief = *chief;
  options.finish_on_first = *finish == "first";
  options.host = *host;
  options.resume_epoch_flag = *resume_epoch_flag;
  options.monitor = *monitor;
  options.monitor_binary =
      monitor_binary->empty() ? DefaultMonitorBinary() : *monitor_binary;
  if (stuck_timeout.given()) {
    options.monitor_flags.push_back("--stuck_timeout_s=" + *stuck_timeout);
  }
  if (silent_timeout.given()) {
    options.monitor_flags.push_back("--silent_timeout_s=" + *silent_timeout);
  }
  for (const std::string& kind : *step_kinds) {
    options.monitor_flags.push_back("--step_kind=" + kind);
  }
  if (progress_timeout.given()) {
    options.monitor_flags.push_back("--progress_timeout_s=" +
                                    *progress_timeout);
  }
  for (const std::string& phase : *phases) {
    options.monitor_flags.push_back("--phase=" + phase);
  }
  options.grace_period = absl::Seconds(*grace_period);
  options.poll_interval = absl::Milliseconds(*poll_interval);
  options.restart.scope = *restart_scope == "rank"
                              ? sluice::launcher::RestartScope::kRank
                              : sluice::launcher::RestartScope::kJob;
  options.restart.max_restarts = *max_restarts;
  options.restart.backoff = absl::Milliseconds(*restart_backoff);
  return sluice::launcher::RunLauncher(options);
}
