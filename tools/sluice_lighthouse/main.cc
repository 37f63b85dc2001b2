// sluice_lighthouse: the quorum service of data-parallel training
// (docs/lighthouse.md). Replica groups heartbeat it, ask it for quorums and
// vote on their commits; it serves until SIGTERM or SIGINT. With --etcd,
// several lighthouses share one etcd and one of them leads; with
// --http_port, it serves its status page.
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/collective/store_service.h"
#include "lib/ft/etcd_quorum_authority.h"
#include "lib/ft/lighthouse_status.h"
#include "lib/ft/lighthouse_status_page.h"
#include "llvm/Support/CommandLine.h"
#include "sluice/ft/lighthouse.h"
#include "sluice/support/host_port.h"
#include "tools/common/command_line.h"
#include "tools/common/flag_checks.h"

namespace {

namespace cl = llvm::cl;
namespace tools = sluice::tools;

// --http_port's default: no status page. Any value given must be a port.
constexpr int kNoStatusPage = -1;
// Heartbeats and waiting quorums are looked at at least once a minute.
constexpr int kMaxQuorumTickMs = 60000;
// etcd grants leases of whole seconds, one at least.
constexpr int kMinLeaseTtlMs = 1000;

// The tool's options: --help lists these and nothing of the libraries it
// links.
cl::OptionCategory category("Options");

const sluice::ft::LighthouseOptions kDefaults;

cl::opt<std::string> address(
    "address",
    cl::desc("host:port to listen on; port 0 picks a free port "
             "(default 127.0.0.1:29510)"),
    cl::init(kDefaults.bind), cl::cat(category));
// The flag's first spelling; the other tools call it --address. Not an
// alias, which would set --address without a word.
cl::opt<std::string> bind(
    "bind", cl::desc("deprecated spelling of --address"), cl::Hidden,
    cl::cat(category), cl::callback([](const std::string& value) {
      std::fprintf(stderr,
                   "sluice_lighthouse: --bind is deprecated; use --address\n");
      address = value;
    }));
cl::opt<std::string> advertise(
    "advertise",
    cl::desc("the address replicas dial (default: the bound address)"),
    cl::init(""), cl::cat(category));
cl::opt<int> min_replicas(
    "min_replicas",
    cl::desc("fewest replicas a quorum (and a commit) needs (default 1)"),
    cl::init(kDefaults.min_replicas), cl::cat(category),
    tools::InRange(1, tools::kMaxWorldSize));
cl::opt<int> join_timeout_ms(
    "join_timeout_ms",
    cl::desc("how long a quorum waits for healthy replicas that have not "
             "asked yet (default 60000)"),
    cl::init(absl::ToInt64Milliseconds(kDefaults.join_timeout)),
    cl::cat(category), tools::InRange(0, tools::kMaxMilliseconds));
cl::opt<int> quorum_tick_ms(
    "quorum_tick_ms",
    cl::desc("how often heartbeats and waiting quorums are checked "
             "(default 100)"),
    cl::init(absl::ToInt64Milliseconds(kDefaults.quorum_tick)),
    cl::cat(category), tools::InRange(1, kMaxQuorumTickMs));
cl::opt<int> heartbeat_timeout_ms(
    "heartbeat_timeout_ms",
    cl::desc("a replica not heard from for this long is unhealthy "
             "(default 5000)"),
    cl::init(absl::ToInt64Milliseconds(kDefaults.heartbeat_timeout)),
    cl::cat(category), tools::InRange(1, tools::kMaxMilliseconds));
cl::opt<int> http_port(
    "http_port",
    cl::desc("serve the status page on this port of --address's host; 0 picks "
             "a free port (default: no status page)"),
    cl::init(kNoStatusPage), cl::cat(category),
    tools::InRange(0, sluice::kMaxPort));
cl::opt<std::string> etcd(
    "etcd",
    cl::desc("etcd endpoints, e.g. http://127.0.0.1:2379,http://h2:2379: "
             "lighthouses sharing them elect one leader (default: alone)"),
    cl::init(""), cl::cat(category));
cl::opt<std::string> etcd_prefix(
    "etcd_prefix",
    cl::desc("prefix of this group of lighthouses' etcd keys "
             "(default /sluice/lighthouse/)"),
    cl::init(sluice::ft::EtcdQuorumAuthorityOptions().prefix),
    cl::cat(category));
cl::opt<int> etcd_lease_ttl_ms(
    "etcd_lease_ttl_ms",
    cl::desc("how long a leader that stopped renewing its etcd lease keeps "
             "leading (whole seconds; default 2000)"),
    cl::init(absl::ToInt64Milliseconds(
        sluice::ft::EtcdQuorumAuthorityOptions().lease_ttl)),
    cl::cat(category), tools::InRange(kMinLeaseTtlMs, tools::kMaxMilliseconds));

int Fail(const std::string& message) {
  std::fprintf(stderr, "sluice_lighthouse: %s\n", message.c_str());
  return 1;
}

// The etcd authority for --etcd; null (a lighthouse alone) without it.
absl::StatusOr<std::unique_ptr<sluice::ft::QuorumAuthority>> NewAuthority(
    const std::string& dialed) {
  if (etcd.empty()) return nullptr;
  if (absl::EndsWith(dialed, ":0")) {
    return absl::InvalidArgumentError(
        "--etcd needs a fixed port in --address or --advertise: the other "
        "lighthouses send replicas to this address");
  }
  sluice::ft::EtcdQuorumAuthorityOptions options;
  options.endpoints = sluice::ft::EtcdClient::SplitEndpoints(etcd);
  options.prefix = etcd_prefix;
  options.address = dialed;
  options.lease_ttl = absl::Milliseconds(etcd_lease_ttl_ms.getValue());
  absl::StatusOr<std::unique_ptr<sluice::ft::EtcdQuorumAuthority>> authority =
      sluice::ft::EtcdQuorumAuthority::Create(std::move(options));
  if (!authority.ok()) return authority.status();
  return std::unique_ptr<sluice::ft::QuorumAuthority>(*std::move(authority));
}

}  // namespace

int main(int argc, char** argv) {
  sluice::tools::ParseToolCommandLine(
      argc, argv, "sluice_lighthouse",
      "sluice_lighthouse: forms the quorums of data-parallel replica groups "
      "(their generations), takes their commit votes and tells them about "
      "lost members. Prints 'lighthouse listening on <host:port>' once it "
      "serves; SIGTERM or SIGINT stops it (exit status 0).\n",
      category);

  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // Checked before an etcd authority dials etcd with them.
  for (const cl::opt<std::string>* flag : {&address, &advertise}) {
    if (flag->empty()) continue;
    absl::StatusOr<sluice::HostPort> valid =
        sluice::ParseHostPort(flag->getValue());
    if (!valid.ok()) {
      return Fail(absl::StrCat("--", flag->ArgStr.str(), "=", flag->getValue(),
                               ": ", valid.status().message()));
    }
  }
  sluice::ft::LighthouseOptions options;
  options.bind = address;
  options.advertise = advertise;
  options.min_replicas = min_replicas;
  options.join_timeout = absl::Milliseconds(join_timeout_ms.getValue());
  options.quorum_tick = absl::Milliseconds(quorum_tick_ms.getValue());
  options.heartbeat_timeout =
      absl::Milliseconds(heartbeat_timeout_ms.getValue());
  // The replicas' collective groups rendezvous through the store served on
  // the lighthouse's port (the manager dials the leader for it).
  std::unique_ptr<grpc::Service> store = sluice::ccl::NewStoreService();
  options.extra_services = {store.get()};
  auto authority = NewAuthority(options.advertise.empty() ? options.bind
                                                          : options.advertise);
  if (!authority.ok()) return Fail(std::string(authority.status().message()));
  auto lighthouse =
      sluice::ft::Lighthouse::Start(std::move(options), *std::move(authority));
  if (!lighthouse.ok()) return Fail(std::string(lighthouse.status().message()));
  std::printf("lighthouse listening on %s\n", (*lighthouse)->address().c_str());
  std::unique_ptr<sluice::ft::LighthouseStatusPage> page;
  if (http_port != kNoStatusPage) {
    const std::string host = address.substr(0, address.rfind(':'));
    auto started = sluice::ft::LighthouseStatusPage::Start(
        host, http_port, [lighthouse = lighthouse->get()] {
          return sluice::ft::StatusToProto(lighthouse->Status());
        });
    if (!started.ok()) return Fail(std::string(started.status().message()));
    page = *std::move(started);
    std::printf("status page at %s\n", page->url().c_str());
  }
  std::fflush(stdout);
  int signal = 0;
  sigwait(&stop_signals, &signal);
  if (page != nullptr) page->Stop();  // it reads the lighthouse
  (*lighthouse)->Shutdown();
  return 0;
}
