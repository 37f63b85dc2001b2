// sluice_monitor: the step monitor of a training job (docs/monitor.md).
// Ranks stream step signals to it; it prints each verdict once as it first
// holds, and answers a launcher's GetState, ReportExit and Reset, until
// SIGTERM or SIGINT stops it.
#include <csignal>
#include <cstdio>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "llvm/Support/CommandLine.h"
#include "sluice/ft/monitor.h"
#include "tools/common/command_line.h"
#include "tools/common/flag_checks.h"

namespace {

namespace cl = llvm::cl;
namespace tools = sluice::tools;

// The tool's options: --help lists these and nothing of the libraries it
// links.
cl::OptionCategory category("Options");

const sluice::ft::MonitorOptions kDefaults;

cl::opt<std::string> address(
    "address", cl::desc("host:port to listen on; port 0 picks a free port"),
    cl::init("127.0.0.1:0"), cl::cat(category));
cl::opt<int> world_size("world_size", cl::desc("number of ranks (default 1)"),
                        cl::init(kDefaults.world_size), cl::cat(category),
                        tools::InRange(1, tools::kMaxWorldSize));
cl::opt<double> stuck_timeout_s(
    "stuck_timeout_s",
    cl::desc("seconds a step may stay begun and not ended (default 10)"),
    cl::init(absl::ToDoubleSeconds(kDefaults.stuck_timeout)), cl::cat(category),
    tools::InRange(tools::kMinSeconds, tools::kMaxSeconds));
cl::opt<double> silent_timeout_s(
    "silent_timeout_s",
    cl::desc("seconds a rank may send nothing, not even a heartbeat "
             "(default 30)"),
    cl::init(absl::ToDoubleSeconds(kDefaults.silent_timeout)),
    cl::cat(category), tools::InRange(tools::kMinSeconds, tools::kMaxSeconds));
cl::list<std::string> step_kinds(
    "step_kind",
    cl::desc(tools::WithRange(
        "KIND:SECONDS, the stuck limit of steps begun with that kind, e.g. "
        "first:120 (repeatable); SECONDS",
        tools::kMinSeconds, tools::kMaxSeconds)),
    cl::cat(category));

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
      category);

  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  sluice::ft::MonitorOptions options;
  options.world_size = world_size;
  options.stuck_timeout = absl::Seconds(stuck_timeout_s.getValue());
  options.silent_timeout = absl::Seconds(silent_timeout_s.getValue());
  for (const std::string& spec : step_kinds) {
    absl::StatusOr<std::pair<std::string, double>> kind =
        tools::ParseNamedFlagNumber("step_kind", spec, "KIND:SECONDS",
                                    tools::kMinSeconds, tools::kMaxSeconds);
    if (!kind.ok()) return Fail(std::string(kind.status().message()));
    options.step_kind_timeouts[kind->first] = absl::Seconds(kind->second);
  }

  auto server = sluice::ft::MonitorServer::Start(address, std::move(options));
  if (!server.ok()) return Fail(std::string(server.status().message()));
  const std::string host = address.substr(0, address.rfind(':'));
  std::printf("sluice_monitor listening on %s:%d\n", host.c_str(),
              (*server)->port());
  std::fflush(stdout);

  // A verdict is printed once, the first time it holds; one that clears
  // (after a reset, or a rank that reconnected) may be printed again.
  std::set<std::pair<int, sluice::ft::VerdictKind>> printed;
  auto print_new_verdicts = [&] {
    const sluice::ft::JobState state = (*server)->State();
    std::set<std::pair<int, sluice::ft::VerdictKind>> holding;
    for (const sluice::ft::Verdict& verdict : state.verdicts) {
      const std::pair<int, sluice::ft::VerdictKind> key(verdict.rank,
                                                        verdict.kind);
      holding.insert(key);
      if (printed.count(key) == 0) {
        std::printf("verdict: %s\n", verdict.message.c_str());
        std::fflush(stdout);
      }
    }
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
  const sluice::ft::JobState final_state = (*server)->State();
  for (const sluice::ft::RankState& rank : final_state.ranks) {
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
