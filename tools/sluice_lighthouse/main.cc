// sluice_lighthouse: the quorum service of data-parallel training
// (docs/lighthouse.md). Replica groups heartbeat it, ask it for quorums and
// vote on their commits; it serves until SIGTERM or SIGINT.
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lib/collective/store_service.h"
#include "llvm/Support/CommandLine.h"
#include "sluice/ft/lighthouse.h"

namespace {

namespace cl = llvm::cl;

const sluice::ft::LighthouseOptions kDefaults;

cl::opt<std::string> bind_address(
    "bind",
    cl::desc("host:port to listen on; port 0 picks a free port "
             "(default 127.0.0.1:29510)"),
    cl::init(kDefaults.bind));
cl::opt<std::string> advertise(
    "advertise",
    cl::desc("the address replicas dial (default: the bound address)"),
    cl::init(""));
cl::opt<int> min_replicas(
    "min_replicas",
    cl::desc("fewest replicas a quorum (and a commit) needs (default 1)"),
    cl::init(kDefaults.min_replicas));
cl::opt<int> join_timeout_ms(
    "join_timeout_ms",
    cl::desc("how long a quorum waits for healthy replicas that have not "
             "asked yet (default 60000)"),
    cl::init(absl::ToInt64Milliseconds(kDefaults.join_timeout)));
cl::opt<int> quorum_tick_ms(
    "quorum_tick_ms",
    cl::desc("how often heartbeats and waiting quorums are checked "
             "(default 100)"),
    cl::init(absl::ToInt64Milliseconds(kDefaults.quorum_tick)));
cl::opt<int> heartbeat_timeout_ms(
    "heartbeat_timeout_ms",
    cl::desc("a replica not heard from for this long is unhealthy "
             "(default 5000)"),
    cl::init(absl::ToInt64Milliseconds(kDefaults.heartbeat_timeout)));

}  // namespace

int main(int argc, char** argv) {
  cl::SetVersionPrinter(
      [](llvm::raw_ostream& os) { os << "sluice_lighthouse (Sluice)\n"; });
  cl::ParseCommandLineOptions(
      argc, argv,
      "sluice_lighthouse: forms the quorums of data-parallel replica groups "
      "(their generations), takes their commit votes and tells them about "
      "lost members. Prints 'lighthouse listening on <host:port>' once it "
      "serves; SIGTERM or SIGINT stops it (exit status 0).\n");

  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  sluice::ft::LighthouseOptions options;
  options.bind = bind_address;
  options.advertise = advertise;
  options.min_replicas = min_replicas;
  options.join_timeout = absl::Milliseconds(join_timeout_ms.getValue());
  options.quorum_tick = absl::Milliseconds(quorum_tick_ms.getValue());
  options.heartbeat_timeout =
      absl::Milliseconds(heartbeat_timeout_ms.getValue());
  // The replicas' collective groups rendezvous through the store served on
  // the lighthouse's port (the manager dials the leader for it). Another
  // quorum authority (several lighthouses) is Start's second argument.
  std::unique_ptr<grpc::Service> store = sluice::ccl::NewStoreService();
  options.extra_services = {store.get()};
  auto lighthouse = sluice::ft::Lighthouse::Start(std::move(options));
  if (!lighthouse.ok()) {
    std::fprintf(stderr, "sluice_lighthouse: %s\n",
                 std::string(lighthouse.status().message()).c_str());
    return 1;
  }
  std::printf("lighthouse listening on %s\n", (*lighthouse)->address().c_str());
  std::fflush(stdout);
  int signal = 0;
  sigwait(&stop_signals, &signal);
  (*lighthouse)->Shutdown();
  return 0;
}
