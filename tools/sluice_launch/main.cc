// sluice_launch: runs the ranks of a job, watches them with the step
// monitor and restarts them from the minimum finished epoch when one fails.
// A thin main over //lib/ft:launcher; see docs/launcher.md.
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/ft/launcher.h"
#include "llvm/Support/CommandLine.h"
#include "sluice/support/host_port.h"
#include "tools/common/command_line.h"
#include "tools/common/flag_checks.h"

namespace {

namespace cl = llvm::cl;
namespace tools = sluice::tools;

// The exit status of every flag error (docs/launcher.md).
constexpr int kFlagErrorExitCode = 2;

// Bounds of this tool's own flags (the shared ones are in flag_checks.h).
// Restarts are cheap to count; a million is "never give up" in practice.
constexpr int kMaxRestarts = 1000000;
// A longer first wait would be cut to RestartPolicy's cap anyway.
const int kMaxBackoffMs = static_cast<int>(
    absl::ToInt64Milliseconds(sluice::ft::RestartPolicy().max_backoff));
// The state is read at least once a minute, or a failure waits that long.
constexpr int kMaxPollIntervalMs = 60000;

// The tool's options: --help lists these and nothing of the libraries it
// links.
cl::OptionCategory category("Options");

cl::opt<int> nproc("nproc",
                   cl::desc("ranks to start (with --jobs: may be left out, "
                            "else must equal the sum of the counts)"),
                   cl::init(0), cl::cat(category),
                   tools::InRange(1, tools::kMaxLocalRanks));
cl::opt<std::string> jobs(
    "jobs",
    cl::desc("JOB:COUNT,...: tasks of a coordinator job, ranks given in this "
             "order, each with TF_CONFIG and SLUICE_CLUSTER "
             "(e.g. ps:2,worker:4,chief:1)"),
    cl::cat(category));
cl::opt<std::string> chief(
    "chief",
    cl::desc("with --jobs: the job whose task 0 ends the job by "
             "exiting with 0; the other ranks are then stopped "
             "(default: the job ends when every rank exited 0)"),
    cl::cat(category));
cl::opt<std::string> finish(
    "finish",
    cl::desc("without --chief: when the job is done: 'all' (every rank "
             "exited with 0) or 'first' (the first rank that exits with 0; "
             "the others get --grace_period_s to exit, then are stopped)"),
    cl::init("all"), cl::cat(category));
cl::opt<std::string> host(
    "host", cl::desc("address of the tasks in TF_CONFIG and of the monitor"),
    cl::init("127.0.0.1"), cl::cat(category));
cl::opt<std::string> resume_epoch_flag(
    "resume_epoch_flag",
    cl::desc("also pass the resume epoch to the command as --NAME=EPOCH"),
    cl::cat(category));
cl::opt<std::string> monitor(
    "monitor",
    cl::desc("host:port of a running sluice_monitor, or 'none' for "
             "no monitor (default: start one as a child)"),
    cl::cat(category));
cl::opt<std::string> monitor_binary(
    "monitor_binary",
    cl::desc("the sluice_monitor to start (default: the one built next to "
             "sluice_launch, else sluice_monitor in $PATH)"),
    cl::cat(category));
cl::opt<std::string> stuck_timeout(
    "stuck_timeout_s",
    cl::desc(tools::WithRange("passed to the monitor: seconds a step may take",
                              tools::kMinSeconds, tools::kMaxSeconds)),
    cl::cat(category));
cl::opt<std::string> silent_timeout(
    "silent_timeout_s",
    cl::desc(tools::WithRange(
        "passed to the monitor: seconds a training rank may stay silent",
        tools::kMinSeconds, tools::kMaxSeconds)),
    cl::cat(category));
cl::list<std::string> step_kinds(
    "step_kind",
    cl::desc("passed to the monitor, repeatable: NAME:SECONDS, the limit of "
             "a declared kind of step (first, checkpoint)"),
    cl::cat(category));
cl::opt<int> nnodes(
    "nnodes",
    cl::desc("hosts of the job, one sluice_launch each with the same --nproc "
             "and --rendezvous"),
    cl::init(1), cl::cat(category), tools::InRange(1, tools::kMaxWorldSize));
cl::opt<int> node_rank(
    "node_rank",
    cl::desc("this host's node, 0..nnodes-1; node 0 runs the monitor, serves "
             "the rendezvous and decides restarts"),
    cl::init(0), cl::cat(category),
    tools::InRange(0, tools::kMaxWorldSize - 1));
cl::opt<std::string> rendezvous(
    "rendezvous",
    cl::desc("with --nnodes > 1: host:port where node 0 serves the "
             "rendezvous (node 0 listens there, the others connect)"),
    cl::cat(category));
cl::opt<double> rendezvous_timeout(
    "rendezvous_timeout_s",
    cl::desc("with --nnodes > 1: seconds node 0 waits for every other "
             "node to join, and seconds another node goes without an answer "
             "from node 0 (to join, then while running) before it stops its "
             "ranks and exits with 1"),
    cl::init(30), cl::cat(category),
    tools::InRange(tools::kMinSeconds, tools::kMaxSeconds));
cl::opt<double> grace_period(
    "grace_period_s",
    cl::desc("seconds between SIGTERM and SIGKILL when stopping ranks"),
    cl::init(5), cl::cat(category), tools::InRange(0.0, tools::kMaxSeconds));
cl::opt<std::string> restart_scope(
    "restart",
    cl::desc("what a failure restarts: 'job' (every rank, from the minimum "
             "finished epoch) or 'rank' (the failed rank alone, the others "
             "keep running; --max_restarts and the backoff count per rank)"),
    cl::init("job"), cl::cat(category));
cl::opt<int> max_restarts("max_restarts", cl::desc("restarts before giving up"),
                          cl::init(3), cl::cat(category),
                          tools::InRange(0, kMaxRestarts));
cl::opt<int> restart_backoff(
    "restart_backoff_ms",
    cl::desc("wait before the first restart, doubled for each next one "
             "(at most 30 s)"),
    cl::init(500), cl::cat(category), tools::InRange(0, kMaxBackoffMs));
cl::opt<int> poll_interval("poll_interval_ms",
                           cl::desc("how often the monitor's state is read"),
                           cl::init(150), cl::cat(category),
                           tools::InRange(1, kMaxPollIntervalMs));

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
  // Everything after "--" is the command, never the launcher's flags.
  int split = 1;
  while (split < argc && std::string(argv[split]) != "--") ++split;
  std::vector<std::string> command(argv + std::min(split + 1, argc),
                                   argv + argc);
  // Flag errors, ranges included, exit with 2: 1 is a job's failure.
  tools::SetFlagErrorExitCode(kFlagErrorExitCode);
  tools::ParseToolCommandLine(
      split, argv, "sluice_launch",
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
      "started again from the minimum finished epoch. With --nnodes, one\n"
      "launcher per host: node K runs the global ranks K*N..K*N+N-1 of M*N, "
      "node 0\nruns the monitor, serves the rendezvous and decides every "
      "restart, the others\nfollow it. Exit code: 0 when the job finished, "
      "the failing rank's (or 1) when\nno restart was left, 128+N on signal "
      "N, 1 on a node that lost node 0.\nSee docs/launcher.md.\n",
      category);
  if (command.empty()) {
    return Fail(
        "no command: give it after '--' (sluice_launch --nproc=2 -- "
        "./train)");
  }
  sluice::ft::LauncherOptions options;
  options.command = command;
  if (!jobs.empty()) {
    absl::StatusOr<std::vector<sluice::ft::JobCount>> parsed =
        sluice::ft::ParseJobs(jobs);
    if (!parsed.ok()) return Fail(std::string(parsed.status().message()));
    options.jobs = *parsed;
    // Summed wide: each count may be up to INT_MAX.
    int64_t total = 0;
    for (const sluice::ft::JobCount& job : options.jobs) total += job.count;
    if (total > tools::kMaxLocalRanks) {
      return Fail(absl::StrCat("--jobs=", jobs.getValue(), " asks for ", total,
                               " ranks: expected 1 to ", tools::kMaxLocalRanks,
                               " in all"));
    }
    if (nproc != 0 && nproc != total) {
      return Fail(absl::StrCat("--nproc=", nproc.getValue(),
                               " does not match --jobs=", jobs.getValue(), " (",
                               total, " tasks)"));
    }
  } else if (nproc == 0) {
    return Fail(absl::StrCat("--nproc is missing: expected 1 to ",
                             tools::kMaxLocalRanks, " ranks, or --jobs"));
  }
  if (!chief.empty()) {
    bool named = false;
    for (const sluice::ft::JobCount& job : options.jobs) {
      named = named || job.job == chief;
    }
    if (!named) {
      return Fail(absl::StrCat("--chief=", chief.getValue(),
                               " names no job of --jobs"));
    }
  }
  if (node_rank >= nnodes) {
    return Fail(absl::StrCat("--node_rank=", node_rank.getValue(),
                             " is not in 0..", nnodes.getValue() - 1,
                             " (--nnodes=", nnodes.getValue(), ")"));
  }
  if (static_cast<int64_t>(nnodes) * nproc > tools::kMaxWorldSize) {
    return Fail(absl::StrCat(
        "--nnodes=", nnodes.getValue(), " x --nproc=", nproc.getValue(), " is ",
        static_cast<int64_t>(nnodes) * nproc, " ranks: expected at most ",
        tools::kMaxWorldSize, " in all"));
  }
  if (nnodes > 1) {
    if (rendezvous.empty()) {
      return Fail(
          "--nnodes > 1 needs --rendezvous=HOST:PORT, node 0's address");
    }
    if (absl::StatusOr<sluice::HostPort> valid =
            sluice::ParseHostPort(rendezvous);
        !valid.ok()) {
      return Fail(absl::StrCat("--rendezvous=", rendezvous.getValue(), ": ",
                               valid.status().message()));
    }
    if (!jobs.empty())
      return Fail("--jobs runs on one host: not with --nnodes");
    if (node_rank > 0 && !monitor.empty()) {
      return Fail(
          "--monitor is node 0's flag: the other nodes use its monitor");
    }
  }
  if (finish != "all" && finish != "first") {
    return Fail(absl::StrCat("--finish=", finish.getValue(),
                             " is neither 'all' nor 'first'"));
  }
  if (finish == "first" && (!chief.empty() || nnodes > 1)) {
    return Fail("--finish=first is not for a job with --chief or --nnodes");
  }
  if (restart_scope != "job" && restart_scope != "rank") {
    return Fail(absl::StrCat("--restart=", restart_scope.getValue(),
                             " is neither 'job' nor 'rank'"));
  }
  if (restart_scope == "rank" && nnodes > 1) {
    return Fail("--restart=rank runs on one host: not with --nnodes");
  }
  if (!monitor.empty() && monitor != "none") {
    if (absl::StatusOr<sluice::HostPort> valid = sluice::ParseHostPort(monitor);
        !valid.ok()) {
      return Fail(absl::StrCat("--monitor=", monitor.getValue(), ": ",
                               valid.status().message()));
    }
  }
  // The monitor's flags are passed on as written, but checked here as the
  // monitor checks them, so that a bad one stops the launcher before it
  // starts anything.
  for (const cl::opt<std::string>* timeout :
       {&stuck_timeout, &silent_timeout}) {
    if (timeout->getNumOccurrences() == 0) continue;
    const std::string flag = timeout->ArgStr.str();
    absl::StatusOr<double> seconds =
        tools::ParseFlagNumber(flag, timeout->getValue(), timeout->getValue(),
                               tools::kMinSeconds, tools::kMaxSeconds);
    if (!seconds.ok()) return Fail(std::string(seconds.status().message()));
  }
  for (const std::string& kind : step_kinds) {
    auto parsed =
        tools::ParseNamedFlagNumber("step_kind", kind, "KIND:SECONDS",
                                    tools::kMinSeconds, tools::kMaxSeconds);
    if (!parsed.ok()) return Fail(std::string(parsed.status().message()));
  }
  options.nnodes = nnodes;
  options.node_rank = node_rank;
  options.rendezvous = rendezvous;
  options.rendezvous_timeout = absl::Seconds(rendezvous_timeout.getValue());
  options.nproc = nproc;
  options.chief = chief;
  options.finish_on_first = finish == "first";
  options.host = host;
  options.resume_epoch_flag = resume_epoch_flag;
  options.monitor = monitor;
  options.monitor_binary =
      monitor_binary.empty() ? DefaultMonitorBinary() : monitor_binary;
  if (stuck_timeout.getNumOccurrences() > 0) {
    options.monitor_flags.push_back("--stuck_timeout_s=" + stuck_timeout);
  }
  if (silent_timeout.getNumOccurrences() > 0) {
    options.monitor_flags.push_back("--silent_timeout_s=" + silent_timeout);
  }
  for (const std::string& kind : step_kinds) {
    options.monitor_flags.push_back("--step_kind=" + kind);
  }
  options.grace_period = absl::Seconds(grace_period.getValue());
  options.poll_interval = absl::Milliseconds(poll_interval.getValue());
  options.restart.scope = restart_scope == "rank"
                              ? sluice::ft::RestartScope::kRank
                              : sluice::ft::RestartScope::kJob;
  options.restart.max_restarts = max_restarts;
  options.restart.backoff = absl::Milliseconds(restart_backoff.getValue());
  return sluice::ft::RunLauncher(options);
}
