// sluice_lighthouse: the quorum service of data-parallel training
// (docs/lighthouse.md). Replica groups heartbeat it, ask it for quorums and
// vote on their commits; it serves until SIGTERM or SIGINT. With --etcd,
// several lighthouses share one etcd and one of them leads; with
// --http_port, it serves its status page: over HTTPS, with drain and kill
// buttons, when it runs with TLS (--tls_cert, --tls_key, --tls_ca), and
// with --monitor the stragglers the replica groups' step monitors name.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/collective/store_service.h"
#include "lib/lighthouse/bounded_http_server.h"
#include "lib/lighthouse/etcd_quorum_authority.h"
#include "lib/lighthouse/lighthouse_status.h"
#include "lib/lighthouse/lighthouse_status_page.h"
#include "lib/lighthouse/monitor_stragglers.h"
#include "sluice/lighthouse/lighthouse.h"
#include "sluice/support/host_port.h"
#include "sluice/support/tls.h"
#include "tools/common/flag_checks.h"
#include "tools/common/flags.h"
#include "tools/common/tool_flags.h"

namespace {

namespace tools = sluice::tools;

// --http_port's default: no status page. Any value given must be a port.
constexpr int kNoStatusPage = -1;
// Heartbeats and waiting quorums are looked at at least once a minute.
constexpr int kMaxQuorumTickMs = 60000;
// etcd grants leases of whole seconds, one at least.
constexpr int kMinLeaseTtlMs = 1000;
// --max_replicas above this would let the replicas' entries alone take
// gigabytes.
constexpr int kMaxReplicasLimit = 1000000;

tools::FlagSet flags;

const sluice::lighthouse::LighthouseOptions kDefaults;

// The milliseconds of a default duration, for an int flag.
int Milliseconds(absl::Duration duration) {
  return static_cast<int>(absl::ToInt64Milliseconds(duration));
}

// --bind was the flag's first spelling; the other tools call it --address.
tools::Flag<std::string> address(
    flags, "address",
    "host:port to listen on; port 0 picks a free port (default "
    "127.0.0.1:29510)",
    kDefaults.bind, tools::DeprecatedAlias("bind"));
tools::Flag<std::string> advertise(
    flags, "advertise",
    "the address replicas dial (default: the bound address)");
tools::Flag<int> min_replicas(
    flags, "min_replicas",
    "fewest replicas a quorum (and a commit) needs (default 1)",
    kDefaults.min_replicas, tools::InRange(1, tools::kMaxWorldSize));
tools::Flag<int> join_timeout_ms(
    flags, "join_timeout_ms",
    "how long a quorum waits for healthy replicas that have not asked yet "
    "(default 60000)",
    Milliseconds(kDefaults.join_timeout),
    tools::InRange(0, tools::kMaxMilliseconds));
tools::Flag<int> quorum_tick_ms(
    flags, "quorum_tick_ms",
    "how often heartbeats and waiting quorums are checked (default 100)",
    Milliseconds(kDefaults.quorum_tick), tools::InRange(1, kMaxQuorumTickMs));
tools::Flag<int> heartbeat_timeout_ms(
    flags, "heartbeat_timeout_ms",
    "a replica not heard from for this long is unhealthy (default 5000)",
    Milliseconds(kDefaults.heartbeat_timeout),
    tools::InRange(1, tools::kMaxMilliseconds));
tools::Flag<int> step_down_after_ms(
    flags, "step_down_after_ms",
    "with --etcd: a leader that no replica has called for this long, after "
    "one did since it became leader, steps down so that a lighthouse the "
    "replicas reach leads; 0 picks the larger of --heartbeat_timeout_ms and "
    "--liveness_timeout_ms + 1000 (default 0)",
    Milliseconds(kDefaults.step_down_after),
    tools::InRange(0, tools::kMaxMilliseconds));
tools::Flag<int> forget_after_ms(
    flags, "forget_after_ms",
    "a replica not heard from for this long that waits for nothing (no "
    "watch, no quorum request, not in the current quorum) is forgotten; 0 "
    "picks the larger of 10 x --heartbeat_timeout_ms and 60000; at least "
    "--heartbeat_timeout_ms (default 0)",
    Milliseconds(kDefaults.forget_after),
    tools::InRange(0, tools::kMaxMilliseconds));
tools::Flag<int> max_replicas(
    flags, "max_replicas",
    "the most replica ids known at once: past it a new one is refused with "
    "RESOURCE_EXHAUSTED; at least --min_replicas (default 10000)",
    kDefaults.max_replicas, tools::InRange(1, kMaxReplicasLimit));
tools::Flag<int> http_port(
    flags, "http_port",
    "serve the status page on this port of --address's host; 0 picks a "
    "free port (default: no status page)",
    kNoStatusPage, tools::InRange(0, sluice::kMaxPort));
tools::Flag<std::string> monitors(
    flags, "monitor",
    "with --http_port: the step monitors (sluice_monitor) of the replica "
    "groups, host:port separated by commas; the status page shows the "
    "stragglers each names, asked once a second (default: none)");
tools::Flag<std::string> etcd(
    flags, "etcd",
    "etcd endpoints, e.g. http://127.0.0.1:2379,http://h2:2379: lighthouses "
    "sharing them elect one leader; an https://host:port endpoint is dialed "
    "with the --tls_cert, --tls_key and --tls_ca files, etcd's certificate "
    "naming the host (default: alone)");
tools::Flag<std::string> etcd_prefix(
    flags, "etcd_prefix",
    "prefix of this group of lighthouses' etcd keys (default "
    "/sluice/lighthouse/)",
    sluice::lighthouse::EtcdQuorumAuthorityOptions().prefix);
tools::Flag<int> etcd_lease_ttl_ms(
    flags, "etcd_lease_ttl_ms",
    "how long a leader that stopped renewing its etcd lease keeps leading "
    "(whole seconds; default 2000)",
    Milliseconds(sluice::lighthouse::EtcdQuorumAuthorityOptions().lease_ttl),
    tools::InRange(kMinLeaseTtlMs, tools::kMaxMilliseconds));

int Fail(const std::string& message) {
  std::fprintf(stderr, "sluice_lighthouse: %s\n", message.c_str());
  return 1;
}

// The etcd authority for --etcd; null (a lighthouse alone) without it.
absl::StatusOr<std::unique_ptr<sluice::lighthouse::QuorumAuthority>>
NewAuthority(const std::string& dialed) {
  if (etcd->empty()) return nullptr;
  if (absl::EndsWith(dialed, ":0")) {
    return absl::InvalidArgumentError(
        "--etcd needs a fixed port in --address or --advertise: the other "
        "lighthouses send replicas to this address");
  }
  sluice::lighthouse::EtcdQuorumAuthorityOptions options;
  options.endpoints = sluice::lighthouse::EtcdClient::SplitEndpoints(*etcd);
  options.prefix = *etcd_prefix;
  options.address = dialed;
  options.lease_ttl = absl::Milliseconds(*etcd_lease_ttl_ms);
  absl::StatusOr<std::unique_ptr<sluice::lighthouse::EtcdQuorumAuthority>>
      authority =
          sluice::lighthouse::EtcdQuorumAuthority::Create(std::move(options));
  if (!authority.ok()) return authority.status();
  return std::unique_ptr<sluice::lighthouse::QuorumAuthority>(
      *std::move(authority));
}

// --monitor's addresses, each checked.
absl::StatusOr<std::vector<std::string>> MonitorAddresses() {
  std::vector<std::string> addresses =
      absl::StrSplit(*monitors, ',', absl::SkipWhitespace());
  if (!addresses.empty() && *http_port == kNoStatusPage) {
    return absl::InvalidArgumentError(
        "--monitor needs --http_port: the stragglers show on the status page");
  }
  for (const std::string& monitor : addresses) {
    absl::StatusOr<sluice::HostPort> valid = sluice::ParseHostPort(monitor);
    if (!valid.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--monitor=", *monitors, ": '", monitor,
                       "': ", valid.status().message()));
    }
  }
  return addresses;
}

// With TLS, the page is served with the lighthouse's certificate, and an
// operator whose client certificate the CA signed may drain and kill.
std::optional<sluice::lighthouse::StatusPageActions> OperatorActions(
    sluice::lighthouse::Lighthouse* lighthouse) {
  const sluice::ProcessTls tls = sluice::CurrentTls();
  if (!tls.enabled) return std::nullopt;
  sluice::lighthouse::StatusPageActions actions;
  actions.tls = {tls.files.cert, tls.files.key, tls.files.ca};
  actions.act = [lighthouse](sluice::lighthouse::ReplicaAction action,
                             const std::string& replica, const std::string& by,
                             const std::string& from) {
    return action == sluice::lighthouse::ReplicaAction::kKill
               ? lighthouse->Kill(replica, by, from)
               : lighthouse->Drain(replica, by, from);
  };
  return actions;
}

}  // namespace

int main(int argc, char** argv) {
  sluice::tools::ParseToolCommandLine(
      argc, argv, "sluice_lighthouse",
      "sluice_lighthouse: forms the quorums of data-parallel replica groups "
      "(their generations), takes their commit votes and tells them about "
      "lost members. Prints 'lighthouse listening on <host:port>' once it "
      "serves; SIGTERM or SIGINT stops it (exit status 0).\n",
      flags);

  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // Checked before an etcd authority dials etcd with them.
  for (const tools::Flag<std::string>* flag : {&address, &advertise}) {
    if ((*flag)->empty()) continue;
    absl::StatusOr<sluice::HostPort> valid = sluice::ParseHostPort(**flag);
    if (!valid.ok()) {
      return Fail(absl::StrCat("--", flag->name(), "=", **flag, ": ",
                               valid.status().message()));
    }
  }
  absl::StatusOr<std::vector<std::string>> monitor_addresses =
      MonitorAddresses();
  if (!monitor_addresses.ok()) {
    return Fail(std::string(monitor_addresses.status().message()));
  }
  sluice::lighthouse::LighthouseOptions options;
  options.bind = *address;
  options.advertise = *advertise;
  options.min_replicas = *min_replicas;
  options.join_timeout = absl::Milliseconds(*join_timeout_ms);
  options.quorum_tick = absl::Milliseconds(*quorum_tick_ms);
  options.heartbeat_timeout = absl::Milliseconds(*heartbeat_timeout_ms);
  // 0 leaves the choice to Lighthouse::Start, which knows the liveness
  // timeout the flags set.
  options.step_down_after = absl::Milliseconds(*step_down_after_ms);
  // 0 leaves the choice to Lighthouse::Start too.
  options.forget_after = absl::Milliseconds(*forget_after_ms);
  options.max_replicas = *max_replicas;
  // The replicas' collective groups rendezvous through the store served on
  // the lighthouse's port (the manager dials the leader for it). It holds
  // only the keys of quorums this lighthouse issued: a replica still
  // building the group of a quorum from before a restart fails at once.
  auto issuer = std::make_shared<
      std::atomic<const sluice::lighthouse::Lighthouse*>>(nullptr);
  sluice::ccl::StoreServiceOptions store_options;
  store_options.refuse_generation = [issuer](int64_t generation) {
    const sluice::lighthouse::Lighthouse* lighthouse = issuer->load();
    return lighthouse == nullptr ? std::string("the lighthouse is starting")
                                 : lighthouse->WhyNotIssuedHere(generation);
  };
  std::unique_ptr<grpc::Service> store =
      sluice::ccl::NewStoreService(store_options);
  options.extra_services = {store.get()};
  auto authority = NewAuthority(options.advertise.empty() ? options.bind
                                                          : options.advertise);
  if (!authority.ok()) return Fail(std::string(authority.status().message()));
  auto lighthouse = sluice::lighthouse::Lighthouse::Start(
      std::move(options), *std::move(authority));
  if (!lighthouse.ok()) return Fail(std::string(lighthouse.status().message()));
  issuer->store(lighthouse->get());
  std::printf("lighthouse listening on %s\n", (*lighthouse)->address().c_str());
  std::unique_ptr<sluice::lighthouse::MonitorStragglers> stragglers;
  std::unique_ptr<sluice::lighthouse::LighthouseStatusPage> page;
  if (*http_port != kNoStatusPage) {
    if (!monitor_addresses->empty()) {
      stragglers = std::make_unique<sluice::lighthouse::MonitorStragglers>(
          *monitor_addresses);
    }
    const std::string host = address->substr(0, address->rfind(':'));
    auto started = sluice::lighthouse::LighthouseStatusPage::Start(
        host, *http_port,
        [lighthouse = lighthouse->get(), stragglers = stragglers.get()] {
          sluice::lighthouse::proto::LighthouseStatus status =
              sluice::lighthouse::StatusToProto(lighthouse->Status());
          if (stragglers != nullptr) stragglers->AddTo(status);
          return status;
        },
        sluice::lighthouse::HttpServerLimits(),
        OperatorActions(lighthouse->get()));
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
