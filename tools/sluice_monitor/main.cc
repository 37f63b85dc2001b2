// sluice_monitor: the step monitor of a training job (docs/monitor.md).
// Ranks stream step signals to it; it prints each verdict once as it first
// holds (and a straggler's recovery once), and answers a launcher's
// GetState, ReportExit and Reset, until SIGTERM or SIGINT stops it.
#include <csignal>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "sluice/monitor/monitor.h"
#include "tools/common/flag_checks.h"
#include "tools/common/flags.h"
#include "tools/common/tool_flags.h"

namespace {

namespace tools = sluice::tools;

tools::FlagSet flags;

const sluice::monitor::MonitorOptions kDefaults;

tools::Flag<std::string> address(
    flags, "address", "host:port to listen on; port 0 picks a free port",
    "127.0.0.1:0");
tools::Flag<int> world_size(flags, "world_size", "number of ranks (default 1)",
                            kDefaults.world_size,
                            tools::InRange(1, tools::kMaxWorldSize));
tools::Flag<double> stuck_timeout_s(
    flags, "stuck_timeout_s",
    "seconds a step may stay begun and not ended (default 10)",
    absl::ToDoubleSeconds(kDefaults.stuck_timeout),
    tools::InRange(tools::kMinSeconds, tools::kMaxSeconds));
tools::Flag<double> silent_timeout_s(
    flags, "silent_timeout_s",
    "seconds a rank may send nothing, not even a heartbeat (default 30)",
    absl::ToDoubleSeconds(kDefaults.silent_timeout),
    tools::InRange(tools::kMinSeconds, tools::kMaxSeconds));
tools::Flag<std::vector<std::string>> step_kinds(
    flags, "step_kind",
    tools::WithRange("KIND:SECONDS, the stuck limit of steps begun with that "
                     "kind, e.g. first:120 (repeatable); SECONDS",
                     tools::kMinSeconds, tools::kMaxSeconds));
tools::Flag<double> progress_timeout_s(
    flags, "progress_timeout_s",
    "seconds a rank may go without beginning a step after its last one "
    "ended, heartbeats or not; 0: no limit (default 60)",
    absl::ToDoubleSeconds(kDefaults.progress_timeout),
    tools::InRange(0.0, tools::kMaxSeconds));
tools::Flag<std::vector<std::string>> phases(
    flags, "phase",
    tools::WithRange("NAME:SECONDS, the limit of a phase between steps, e.g. "
                     "'checkpoint save:300' (repeatable; other phases take "
                     "the progress limit); SECONDS",
                     tools::kMinSeconds, tools::kMaxSeconds));

tools::Flag<double> straggler_threshold(
    flags, "straggler_threshold",
    "a rank whose steps each take more than this many times its peers' "
    "median step time (alone in its job, its own earlier one) for "
    "--straggler_steps steps in a row straggles (default 1.5)",
    kDefaults.straggler_threshold, tools::InRange(1.01, 100.0));
tools::Flag<int> straggler_steps(
    flags, "straggler_steps",
    "consecutive slow steps that make a straggler, and healthy ones that "
    "clear it; 0: no straggler verdicts (default 5)",
    kDefaults.straggler_steps, tools::InRange(0, 1000));

int Fail(const std::string& message) {
  std::fprintf(stderr, "sluice_monitor: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  sluice::tools::ParseToolCommandLine(
      argc, argv, "sluice_monitor",
      "sluice_monitor: watches the step signals of a job's ranks and says "
      "which are stuck, silent, dead or finished. Prints 'listening on "
      "<host:port>' once it accepts reports, then each verdict as it first "
      "holds; SIGTERM or SIGINT stops it (exit status 0).\n",
      flags);

  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  sluice::monitor::MonitorOptions options;
  options.world_size = *world_size;
  options.stuck_timeout = absl::Seconds(*stuck_timeout_s);
  options.silent_timeout = absl::Seconds(*silent_timeout_s);
  for (const std::string& spec : *step_kinds) {
    absl::StatusOr<std::pair<std::string, double>> kind =
        tools::ParseNamedFlagNumber("step_kind", spec, "KIND:SECONDS",
                                    tools::kMinSeconds, tools::kMaxSeconds);
    if (!kind.ok()) return Fail(std::string(kind.status().message()));
    options.step_kind_timeouts[kind->first] = absl::Seconds(kind->second);
  }
  options.progress_timeout = absl::Seconds(*progress_timeout_s);
  options.straggler_threshold = *straggler_threshold;
  options.straggler_steps = *straggler_steps;
  for (const std::string& spec : *phases) {
    absl::StatusOr<std::pair<std::string, double>> phase =
        tools::ParseNamedFlagNumber("phase", spec, "NAME:SECONDS",
                                    tools::kMinSeconds, tools::kMaxSeconds);
    if (!phase.ok()) return Fail(std::string(phase.status().message()));
    options.phase_timeouts[phase->first] = absl::Seconds(phase->second);
  }

  auto server =
      sluice::monitor::MonitorServer::Start(*address, std::move(options));
  if (!server.ok()) return Fail(std::string(server.status().message()));
  const std::string host = address->substr(0, address->rfind(':'));
  std::printf("sluice_monitor listening on %s:%d\n", host.c_str(),
              (*server)->port());
  std::fflush(stdout);

  // A verdict is printed once, the first time it holds; one that clears
  // (after a reset, or a rank that reconnected) may be printed again. A
  // straggler verdict's end is printed once too, as it is news that the
  // rank caught up.
  std::set<std::pair<int, sluice::monitor::VerdictKind>> printed;
  std::map<int, std::string> printed_recoveries;
  auto print_new_verdicts = [&] {
    const sluice::monitor::JobState state = (*server)->State();
    std::set<std::pair<int, sluice::monitor::VerdictKind>> holding;
    auto print = [&](const sluice::monitor::Verdict& verdict) {
      const std::pair<int, sluice::monitor::VerdictKind> key(verdict.rank,
                                                             verdict.kind);
      holding.insert(key);
      if (printed.count(key) == 0) {
        std::printf("verdict: %s\n", verdict.message.c_str());
      }
    };
    for (const sluice::monitor::Verdict& verdict : state.verdicts) {
      print(verdict);
    }
    for (const sluice::monitor::Verdict& verdict : state.stragglers) {
      print(verdict);
    }
    for (const sluice::monitor::RankState& rank : state.ranks) {
      std::string& said = printed_recoveries[rank.rank];
      if (!rank.straggler_recovered.empty() &&
          rank.straggler_recovered != said) {
        std::printf("verdict cleared: %s\n", rank.straggler_recovered.c_str());
      }
      said = rank.straggler_recovered;
    }
    std::fflush(stdout);
    printed = std::move(holding);
  };
  absl::Notification stopping;
  std::thread printer([&] {
    do {
      print_new_verdicts();
    } while (!stopping.WaitForNotificationWithTimeout(absl::Milliseconds(200)));
  });
  int signal = 0;
  sigwait(&stop_signals, &signal);
  stopping.Notify();
  printer.join();
  print_new_verdicts();
  // What each rank got to, for whoever reads the log.
  const sluice::monitor::JobState final_state = (*server)->State();
  for (const sluice::monitor::RankState& rank : final_state.ranks) {
    std::printf(
        "rank %d: last step begun %lld, last step ended %lld, %lld epochs "
        "finished%s\n",
        rank.rank, static_cast<long long>(rank.last_begin_step),
        static_cast<long long>(rank.last_end_step),
        static_cast<long long>(rank.finished_epochs),
        rank.finished ? ", finished" : "");
  }
  std::fflush(stdout);
  (*server)->Shutdown();
  return 0;
}
