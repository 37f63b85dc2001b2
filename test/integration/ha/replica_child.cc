// replica_child: a replica group as the lighthouse sees it, for the tests
// of the status page and of failover: it heartbeats every 100 ms and asks
// for quorums in a loop through LighthouseClient (which follows the
// leader), one step per quorum, printing
//   quorum ID from LIGHTHOUSE members A,B,C step STEP at HH:MM:SS.mmm
// for each quorum it gets and "no quorum: WHY at ..." for each failed request.
#include <atomic>
#include <cstdio>
#include <random>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "lib/lighthouse/lighthouse_client.h"
#include "llvm/Support/CommandLine.h"

namespace {

namespace cl = llvm::cl;

cl::opt<std::string> lighthouses("lighthouses",
                                 cl::desc("lighthouse addresses, commas"),
                                 cl::Required);
cl::opt<std::string> replica_id("replica_id", cl::Required);
cl::opt<std::string> address("address",
                             cl::desc("the address it reports (not served)"),
                             cl::init("127.0.0.1:41000"));
cl::opt<int> step_ms("step_ms", cl::desc("pause between quorums"),
                     cl::init(200));

// Each line ends with the time it was printed, for failure messages.
void Print(const std::string& line) {
  std::printf(
      "%s at %s\n", line.c_str(),
      absl::FormatTime("%H:%M:%E3S", absl::Now(), absl::UTCTimeZone()).c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  cl::ParseCommandLineOptions(argc, argv, "replica_child\n");
  auto client = sluice::lighthouse::LighthouseClient::Create(
      absl::StrSplit(lighthouses.getValue(), ',', absl::SkipEmpty()));
  if (!client.ok()) {
    Print(absl::StrCat("error: ", client.status().ToString()));
    return 1;
  }
  // Random and never 0 (the lighthouse refuses 0).
  const uint64_t incarnation =
      (static_cast<uint64_t>(std::random_device()()) << 32) |
      std::random_device()() | 1;
  std::thread heartbeats([&] {
    sluice::lighthouse::proto::HeartbeatRequest request;
    request.set_replica_id(replica_id);
    request.set_incarnation(incarnation);
    while (true) {
      (*client)->Heartbeat(request, absl::Seconds(1)).IgnoreError();
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
  int64_t step = 0;
  while (true) {
    sluice::lighthouse::proto::QuorumRequest request;
    sluice::lighthouse::proto::ReplicaInfo* replica = request.mutable_replica();
    replica->set_replica_id(replica_id);
    replica->set_address(address);
    replica->set_step(step);
    replica->set_world_size(1);
    replica->set_incarnation(incarnation);
    auto quorum = (*client)->Quorum(request, absl::Seconds(10));
    if (!quorum.ok()) {
      Print(absl::StrCat("no quorum: ", quorum.status().ToString()));
      absl::SleepFor(absl::Milliseconds(100));
      continue;
    }
    std::vector<std::string> members;
    for (const auto& participant : quorum->participants()) {
      members.push_back(participant.replica_id());
    }
    Print(absl::StrCat("quorum ", quorum->quorum_id(), " from ",
                       (*client)->leader(), " members ",
                       absl::StrJoin(members, ","), " step ", step));
    ++step;
    absl::SleepFor(absl::Milliseconds(step_ms.getValue()));
  }
}
