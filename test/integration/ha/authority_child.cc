// authority_child: an EtcdQuorumAuthority in a process of its own, for the
// tests that kill or stop a lighthouse. It prints each change of its view
// ("leader ADDRESS", "follower LEADER") and, with --record, acts as a
// lighthouse issuing quorums: while it leads, it records the next quorum id
// every 20 ms and prints "recorded ID" or "refused ID: WHY".
#include <cstdio>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lib/lighthouse/etcd_quorum_authority.h"
#include "llvm/Support/CommandLine.h"

namespace {

namespace cl = llvm::cl;

cl::opt<std::string> etcd("etcd", cl::desc("etcd endpoints, comma-separated"),
                          cl::Required);
cl::opt<std::string> address("address", cl::desc("this lighthouse's address"),
                             cl::Required);
cl::opt<std::string> prefix("prefix", cl::desc("etcd key prefix"),
                            cl::init("/sluice/lighthouse/"));
cl::opt<int> lease_ttl_ms("lease_ttl_ms", cl::init(2000));
cl::opt<bool> record("record", cl::desc("record quorum ids while leading"));

void Print(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  cl::ParseCommandLineOptions(argc, argv, "authority_child\n");
  sluice::lighthouse::EtcdQuorumAuthorityOptions options;
  options.endpoints = sluice::lighthouse::EtcdClient::SplitEndpoints(etcd);
  options.address = address;
  options.prefix = prefix;
  options.lease_ttl = absl::Milliseconds(lease_ttl_ms.getValue());
  auto authority = sluice::lighthouse::EtcdQuorumAuthority::Create(options);
  if (!authority.ok()) {
    Print(absl::StrCat("error: ", authority.status().ToString()));
    return 1;
  }
  std::string view;
  while (true) {
    const bool leader = (*authority)->IsLeader();
    const std::string now =
        leader ? absl::StrCat("leader ", address.getValue())
               : absl::StrCat("follower ", (*authority)->LeaderAddress());
    if (now != view) Print(now);
    view = now;
    if (leader && record) {
      absl::StatusOr<int64_t> last = (*authority)->LastQuorumId();
      if (last.ok()) {
        const absl::Status recorded = (*authority)->RecordQuorumId(*last + 1);
        Print(recorded.ok() ? absl::StrCat("recorded ", *last + 1)
                            : absl::StrCat("refused ", *last + 1, ": ",
                                           recorded.ToString()));
      }
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
}
