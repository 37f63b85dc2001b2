// lighthouse_replica: a replica group of one process that trains nothing:
// it heartbeats the lighthouse, watches it, and loops quorum -> commit vote
// on its next step (after taking the highest step of the quorum, as a
// replica that heals does), printing one line per event for the test to read:
//   quorum <id> size <n>
//   committed step <s> quorum <id> size <n>
//   not committed step <s> quorum <id>: <reason>
//   event <MEMBER_LOST|QUORUM_FORMED> quorum <id> replica <r>
//   error <message>
// Flags: --lighthouse=HOST:PORT --replica_id=ID [--step_ms=20].
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "lib/lighthouse/lighthouse_client.h"

namespace {

std::mutex print_mu;

void Print(const std::string& line) {
  std::lock_guard<std::mutex> lock(print_mu);
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

std::string Flag(int argc, char** argv, const std::string& name,
                 const std::string& fallback) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(prefix, 0) == 0) return arg.substr(prefix.size());
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string lighthouse = Flag(argc, argv, "lighthouse", "");
  const std::string replica_id = Flag(argc, argv, "replica_id", "");
  int step_ms = 20;
  if (lighthouse.empty() || replica_id.empty() ||
      !absl::SimpleAtoi(Flag(argc, argv, "step_ms", "20"), &step_ms)) {
    std::fprintf(stderr,
                 "usage: lighthouse_replica --lighthouse=HOST:PORT "
                 "--replica_id=ID [--step_ms=20]\n");
    return 2;
  }
  auto client = sluice::lighthouse::LighthouseClient::Create({lighthouse});
  if (!client.ok()) {
    Print(absl::StrCat("error ", client.status().message()));
    return 1;
  }
  const uint64_t incarnation = std::random_device()() | 1;

  sluice::lighthouse::proto::WatchRequest watch_request;
  watch_request.set_replica_id(replica_id);
  watch_request.set_incarnation(incarnation);
  auto watch = (*client)->Watch(
      watch_request,
      [](const sluice::lighthouse::proto::LighthouseEvent& event) {
        Print(absl::StrCat(
            "event ",
            sluice::lighthouse::proto::LighthouseEvent::Kind_Name(event.kind()),
            " quorum ", event.quorum_id(), " replica ", event.replica_id()));
      });

  // The process runs until the test kills it.
  std::thread heartbeat([&] {
    sluice::lighthouse::proto::HeartbeatRequest request;
    request.set_replica_id(replica_id);
    request.set_incarnation(incarnation);
    while (true) {
      (*client)->Heartbeat(request, absl::Seconds(1)).IgnoreError();
      absl::SleepFor(absl::Milliseconds(100));
    }
  });

  int64_t step = 0;
  int64_t commit_failures = 0;
  while (true) {
    sluice::lighthouse::proto::QuorumRequest request;
    request.mutable_replica()->set_replica_id(replica_id);
    request.mutable_replica()->set_address(absl::StrCat(replica_id, ":0"));
    request.mutable_replica()->set_step(step);
    request.mutable_replica()->set_world_size(1);
    request.mutable_replica()->set_incarnation(incarnation);
    request.set_commit_failures(commit_failures);
    auto quorum = (*client)->Quorum(request, absl::Seconds(60));
    if (!quorum.ok()) {
      Print(absl::StrCat("error ", quorum.status().message()));
      continue;
    }
    commit_failures = 0;
    const int size = quorum->participants_size();
    // A replica behind the others "heals": it takes the highest step, so
    // that every participant votes on the same one.
    for (const auto& participant : quorum->participants()) {
      step = std::max(step, participant.step());
    }
    Print(absl::StrCat("quorum ", quorum->quorum_id(), " size ", size));
    absl::SleepFor(absl::Milliseconds(step_ms));  // the step's work
    sluice::lighthouse::proto::CommitRequest vote;
    vote.set_replica_id(replica_id);
    vote.set_quorum_id(quorum->quorum_id());
    vote.set_step(step + 1);
    vote.set_ok(true);
    auto outcome = (*client)->Commit(vote, absl::Seconds(30));
    if (!outcome.ok()) {
      ++commit_failures;
      Print(absl::StrCat("error ", outcome.status().message()));
    } else if (outcome->commit()) {
      ++step;
      Print(absl::StrCat("committed step ", step, " quorum ",
                         quorum->quorum_id(), " size ", size));
    } else {
      ++commit_failures;
      Print(absl::StrCat("not committed step ", step + 1, " quorum ",
                         quorum->quorum_id(), ": ", outcome->reason()));
    }
  }
}
