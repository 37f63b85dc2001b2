// Lighthouse::Kill and Lighthouse::Drain in-process over loopback gRPC: a
// killed replica is told on its watch and lost at once, a drained one is
// refused every quorum (a restart of it too) while its peers form theirs,
// and both are in the status's history, naming the operator.
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/lighthouse_client.h"
#include "lib/lighthouse/lighthouse_service.pb.h"
#include "sluice/lighthouse/lighthouse.h"

namespace sluice::lighthouse {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr absl::Duration kLong = absl::Seconds(20);

std::unique_ptr<Lighthouse> StartLighthouse() {
  LighthouseOptions options;
  options.bind = "127.0.0.1:0";
  options.quorum_tick = absl::Milliseconds(20);
  auto lighthouse = Lighthouse::Start(options);
  EXPECT_TRUE(lighthouse.ok()) << lighthouse.status();
  return lighthouse.ok() ? *std::move(lighthouse) : nullptr;
}

proto::QuorumRequest Ask(const std::string& id, uint64_t incarnation = 1) {
  proto::QuorumRequest request;
  request.mutable_replica()->set_replica_id(id);
  request.mutable_replica()->set_address(id + ".host:1");
  request.mutable_replica()->set_incarnation(incarnation);
  return request;
}

struct EventLog {
  std::mutex mu;
  std::vector<proto::LighthouseEvent> events;

  LighthouseClient::EventCallback Callback() {
    return [this](const proto::LighthouseEvent& event) {
      std::lock_guard<std::mutex> lock(mu);
      events.push_back(event);
    };
  }
  std::optional<proto::LighthouseEvent> WaitFor(
      proto::LighthouseEvent::Kind kind) {
    const absl::Time deadline = absl::Now() + kLong;
    while (absl::Now() < deadline) {
      {
        std::lock_guard<std::mutex> lock(mu);
        for (const auto& event : events) {
          if (event.kind() == kind) return event;
        }
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    return std::nullopt;
  }
};

class OperatorActionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lighthouse_ = StartLighthouse();
    ASSERT_NE(lighthouse_, nullptr);
    auto client = LighthouseClient::Create({lighthouse_->address()});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    for (const char* id : {"a", "b"}) {
      proto::WatchRequest request;
      request.set_replica_id(id);
      request.set_incarnation(1);
      watches_.push_back(
          client_->Watch(request, events_[id[0] - 'a'].Callback()));
    }
    const absl::Time deadline = absl::Now() + kLong;
    while (lighthouse_->Status().replicas.size() < 2 &&
           absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    auto a = std::async(std::launch::async,
                        [&] { return client_->Quorum(Ask("a"), kLong); });
    auto b = client_->Quorum(Ask("b"), kLong);
    ASSERT_TRUE(b.ok()) << b.status();
    ASSERT_TRUE(a.get().ok());
    first_quorum_ = b->quorum_id();
  }

  // The participants of the next quorum b asks for.
  std::vector<std::string> NextQuorumOfB() {
    auto quorum = client_->Quorum(Ask("b"), kLong);
    EXPECT_TRUE(quorum.ok()) << quorum.status();
    std::vector<std::string> ids;
    if (!quorum.ok()) return ids;
    EXPECT_GT(quorum->quorum_id(), first_quorum_);
    for (const auto& participant : quorum->participants()) {
      ids.push_back(participant.replica_id());
    }
    return ids;
  }

  // Waits (bounded) until `id` waits in a quorum request.
  void WaitRequesting(const std::string& id) {
    const absl::Time deadline = absl::Now() + kLong;
    while (absl::Now() < deadline) {
      for (const auto& replica : lighthouse_->Status().replicas) {
        if (replica.replica.replica_id == id && replica.requesting) return;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    ADD_FAILURE() << id << " never asked";
  }

  std::optional<LighthouseStatus::HistoryEntry> HistoryOf(
      LighthouseStatus::HistoryEntry::Kind kind) {
    for (const auto& entry : lighthouse_->Status().history) {
      if (entry.kind == kind) return entry;
    }
    return std::nullopt;
  }

  std::unique_ptr<Lighthouse> lighthouse_;
  std::unique_ptr<LighthouseClient> client_;
  EventLog events_[2];
  std::vector<std::unique_ptr<LighthouseWatch>> watches_;
  int64_t first_quorum_ = 0;
};

TEST_F(OperatorActionsTest, KillTellsTheReplicaAndLosesItAtOnce) {
  ASSERT_TRUE(lighthouse_->Kill("a", "alice", "127.0.0.1:4242").ok());
  auto killed = events_[0].WaitFor(proto::LighthouseEvent::KILLED);
  ASSERT_TRUE(killed.has_value());
  EXPECT_EQ(killed->replica_id(), "a");
  EXPECT_EQ(killed->operator_name(), "alice");
  auto lost = events_[1].WaitFor(proto::LighthouseEvent::MEMBER_LOST);
  ASSERT_TRUE(lost.has_value());
  EXPECT_EQ(lost->replica_id(), "a");
  EXPECT_EQ(lost->reason(), "replica a was killed by the operator (alice)");
  // a's watch is still open, as a process slow to end would keep it: b
  // goes on without it all the same.
  EXPECT_THAT(NextQuorumOfB(), ElementsAre("b"));
  auto entry = HistoryOf(LighthouseStatus::HistoryEntry::Kind::kOperatorKilled);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->replica_id, "a");
  EXPECT_THAT(entry->reason, HasSubstr("alice"));
  EXPECT_THAT(entry->reason, HasSubstr("127.0.0.1:4242"));
  // A restart of it is a new member.
  auto restarted = std::async(std::launch::async, [&] {
    return client_->Quorum(Ask("a", /*incarnation=*/2), kLong);
  });
  WaitRequesting("a");
  auto together = client_->Quorum(Ask("b"), kLong);
  ASSERT_TRUE(together.ok()) << together.status();
  ASSERT_TRUE(restarted.get().ok());
  EXPECT_EQ(together->participants_size(), 2);
}

// A replica whose watch stream is down when it is killed learns it from
// its next heartbeat; a restart of it is not killed.
TEST_F(OperatorActionsTest, AKilledIncarnationIsToldByItsHeartbeat) {
  proto::HeartbeatRequest beat;
  beat.set_replica_id("a");
  beat.set_incarnation(1);
  proto::HeartbeatResponse answer;
  ASSERT_TRUE(client_->Heartbeat(beat, kLong, &answer).ok());
  EXPECT_EQ(answer.killed_by(), "");
  ASSERT_TRUE(lighthouse_->Kill("a", "alice", "127.0.0.1:4242").ok());
  ASSERT_TRUE(client_->Heartbeat(beat, kLong, &answer).ok());
  EXPECT_EQ(answer.killed_by(), "alice");
  beat.set_incarnation(2);
  ASSERT_TRUE(client_->Heartbeat(beat, kLong, &answer).ok());
  EXPECT_EQ(answer.killed_by(), "");
}

TEST_F(OperatorActionsTest, DrainRefusesTheReplicaAndItsRestarts) {
  auto waiting = std::async(std::launch::async,
                            [&] { return client_->Quorum(Ask("a"), kLong); });
  // a's request is pending (b has not asked), then drained.
  WaitRequesting("a");
  ASSERT_TRUE(lighthouse_->Drain("a", "bob", "127.0.0.1:99").ok());
  absl::StatusOr<proto::Quorum> refused = waiting.get();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("replica a was drained by the operator (bob)"));
  EXPECT_TRUE(IsDrained(refused.status()));
  EXPECT_THAT(NextQuorumOfB(), ElementsAre("b"));
  auto restarted = client_->Quorum(Ask("a", /*incarnation=*/2), kLong);
  ASSERT_FALSE(restarted.ok());
  EXPECT_EQ(restarted.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(IsDrained(restarted.status()));
  bool drained = false;
  for (const auto& replica : lighthouse_->Status().replicas) {
    if (replica.replica.replica_id == "a") drained = replica.drained;
  }
  EXPECT_TRUE(drained);
  auto entry =
      HistoryOf(LighthouseStatus::HistoryEntry::Kind::kOperatorDrained);
  ASSERT_TRUE(entry.has_value());
  EXPECT_THAT(entry->reason, HasSubstr("bob"));
}

TEST_F(OperatorActionsTest, AnUnknownReplicaIsNotFound) {
  const absl::Status killed = lighthouse_->Kill("zed", "alice", "x:1");
  EXPECT_EQ(killed.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(killed.message(), HasSubstr("zed"));
  EXPECT_EQ(lighthouse_->Drain("zed", "alice", "x:1").code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace sluice::lighthouse
