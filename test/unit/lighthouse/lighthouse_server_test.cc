// A lighthouse and its clients in one process, over loopback gRPC: the long
// poll, commit votes, watch events, leader redirects, shutdown, a quorum
// authority slow to record ids, which holds up no other call, a leader
// that steps down when its replicas stop calling, and the status's history
// and steps/s.
#include <atomic>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/lighthouse_client.h"
#include "lib/lighthouse/lighthouse_service.grpc.pb.h"
#include "lib/lighthouse/lighthouse_status.h"
#include "lib/lighthouse/lighthouse_status_history.h"
#include "lib/lighthouse/quorum_authority.h"
#include "lib/lighthouse/quorum_rules.h"
#include "sluice/lighthouse/lighthouse.h"
#include "sluice/support/failure.h"
#include "sluice/support/liveness.h"

namespace sluice::lighthouse {
namespace {

constexpr absl::Duration kLong = absl::Seconds(20);

std::unique_ptr<Lighthouse> StartLighthouse(
    int min_replicas = 1,
    std::unique_ptr<QuorumAuthority> authority = nullptr) {
  LighthouseOptions options;
  options.bind = "127.0.0.1:0";
  options.min_replicas = min_replicas;
  options.quorum_tick = absl::Milliseconds(20);
  auto lighthouse = Lighthouse::Start(options, std::move(authority));
  EXPECT_TRUE(lighthouse.ok()) << lighthouse.status();
  return lighthouse.ok() ? *std::move(lighthouse) : nullptr;
}

std::unique_ptr<LighthouseClient> ClientOf(std::vector<std::string> addresses) {
  auto client = LighthouseClient::Create(std::move(addresses));
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? *std::move(client) : nullptr;
}

proto::QuorumRequest Ask(const std::string& id, int64_t step = 0,
                         uint64_t incarnation = 1) {
  proto::QuorumRequest request;
  request.mutable_replica()->set_replica_id(id);
  request.mutable_replica()->set_address(id + ".host:1");
  request.mutable_replica()->set_step(step);
  request.mutable_replica()->set_incarnation(incarnation);
  return request;
}

proto::HeartbeatRequest Beat(const std::string& id) {
  proto::HeartbeatRequest request;
  request.set_replica_id(id);
  request.set_incarnation(1);
  return request;
}

proto::CommitRequest Vote(const std::string& id, int64_t quorum_id,
                          int64_t step, bool ok) {
  proto::CommitRequest request;
  request.set_replica_id(id);
  request.set_quorum_id(quorum_id);
  request.set_step(step);
  request.set_ok(ok);
  if (!ok) request.set_failure("allreduce failed");
  return request;
}

// Collects a watch's events.
struct EventLog {
  std::mutex mu;
  std::vector<proto::LighthouseEvent> events;

  LighthouseClient::EventCallback Callback() {
    return [this](const proto::LighthouseEvent& event) {
      std::lock_guard<std::mutex> lock(mu);
      events.push_back(event);
    };
  }
  // Waits (bounded) for an event of `kind`.
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

// Forms a quorum of `ids` (each asking from a thread of its own).
std::vector<absl::StatusOr<proto::Quorum>> FormQuorum(
    LighthouseClient& client, const std::vector<std::string>& ids,
    int64_t step = 0) {
  std::vector<std::future<absl::StatusOr<proto::Quorum>>> asks;
  for (const std::string& id : ids) {
    asks.push_back(std::async(std::launch::async, [&client, id, step] {
      return client.Quorum(Ask(id, step), kLong);
    }));
  }
  std::vector<absl::StatusOr<proto::Quorum>> quorums;
  for (auto& ask : asks) quorums.push_back(ask.get());
  return quorums;
}

TEST(LighthouseServerTest, QuorumWaitsForEveryHeartbeatingReplica) {
  auto lighthouse = StartLighthouse();
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  ASSERT_TRUE(client->Heartbeat(Beat("b"), kLong).ok());
  auto a = std::async(std::launch::async,
                      [&] { return client->Quorum(Ask("a", 4), kLong); });
  // b heartbeats: a's request waits for it (up to the 60 s join timeout).
  EXPECT_EQ(a.wait_for(std::chrono::milliseconds(500)),
            std::future_status::timeout);
  absl::StatusOr<proto::Quorum> b = client->Quorum(Ask("b", 6), kLong);
  ASSERT_TRUE(b.ok()) << b.status();
  absl::StatusOr<proto::Quorum> a_quorum = a.get();
  ASSERT_TRUE(a_quorum.ok()) << a_quorum.status();
  EXPECT_EQ(a_quorum->quorum_id(), 1);
  EXPECT_EQ(b->quorum_id(), 1);
  ASSERT_EQ(b->participants_size(), 2);
  EXPECT_EQ(b->participants(0).replica_id(), "a");
  EXPECT_EQ(b->participants(0).step(), 4);
  EXPECT_EQ(b->participants(1).address(), "b.host:1");
  EXPECT_EQ(b->reason(), "2 of 2 healthy replicas asked (min_replicas 1)");

  LighthouseStatus status = lighthouse->Status();
  EXPECT_EQ(status.quorum.quorum_id, 1);
  ASSERT_EQ(status.quorum.participants.size(), 2u);
  EXPECT_EQ(status.quorum.participants[0].replica_id, "a");
  EXPECT_EQ(status.quorum.participants[1].address, "b.host:1");
  EXPECT_EQ(status.quorum.reason, b->reason());
  EXPECT_EQ(absl::ToUnixMicros(status.quorum.created), b->created_us());
  ASSERT_EQ(status.replicas.size(), 2u);
  EXPECT_EQ(status.replicas[0].replica.step, 4);
  EXPECT_EQ(status.replicas[0].replica.incarnation, 1u);
  EXPECT_TRUE(status.replicas[0].in_quorum);
  EXPECT_TRUE(status.replicas[0].recovering);  // step 4 < 6
  EXPECT_FALSE(status.replicas[1].recovering);
  EXPECT_TRUE(status.replicas[1].healthy);
  EXPECT_FALSE(status.replicas[1].requesting);
  EXPECT_LT(status.replicas[1].heartbeat_age, absl::Seconds(5));
  EXPECT_TRUE(status.is_leader);
  EXPECT_EQ(status.leader_address, lighthouse->address());
  EXPECT_EQ(status.address, lighthouse->address());
  EXPECT_EQ(status.min_replicas, 1);
  EXPECT_EQ(status.heartbeat_timeout, absl::Seconds(5));
  EXPECT_LT(absl::Now() - status.now, absl::Seconds(5));
  // GetStatus answers the same over the wire.
  absl::StatusOr<proto::LighthouseStatus> remote = client->GetStatus(kLong);
  ASSERT_TRUE(remote.ok()) << remote.status();
  EXPECT_EQ(remote->quorum().quorum_id(), 1);
  EXPECT_EQ(remote->replicas_size(), 2);
}

TEST(LighthouseServerTest, QuorumDeadlineSaysHowManyAsked) {
  auto lighthouse = StartLighthouse();
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  ASSERT_TRUE(client->Heartbeat(Beat("b"), kLong).ok());
  ASSERT_TRUE(client->Heartbeat(Beat("c"), kLong).ok());
  absl::StatusOr<proto::Quorum> a =
      client->Quorum(Ask("a"), absl::Milliseconds(800));
  ASSERT_EQ(a.status().code(), absl::StatusCode::kDeadlineExceeded)
      << a.status();
  EXPECT_NE(a.status().message().find(absl::StrCat(
                "quorum request to lighthouse ", lighthouse->address(),
                ": lighthouse ", lighthouse->address(),
                ": no quorum for replica a within ")),
            std::string::npos)
      << a.status();
  EXPECT_NE(a.status().message().find(
                "1 of 3 healthy replicas asked, not more than half"),
            std::string::npos)
      << a.status();
  EXPECT_EQ(Classify(a.status()), FailureClass::kRetryable);
  // The withdrawn request no longer counts.
  EXPECT_FALSE(lighthouse->Status().replicas[0].requesting);
}

TEST(LighthouseServerTest, NewerRequestOfTheSameReplicaReplacesTheOlder) {
  auto lighthouse = StartLighthouse();
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  ASSERT_TRUE(client->Heartbeat(Beat("b"), kLong).ok());
  auto first = std::async(std::launch::async,
                          [&] { return client->Quorum(Ask("a", 1), kLong); });
  const absl::Time deadline = absl::Now() + kLong;
  while (absl::Now() < deadline &&
         !lighthouse->Status().replicas[0].requesting) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  auto second = std::async(std::launch::async,
                           [&] { return client->Quorum(Ask("a", 2), kLong); });
  absl::StatusOr<proto::Quorum> replaced = first.get();
  EXPECT_EQ(replaced.status().code(), absl::StatusCode::kAborted);
  EXPECT_NE(replaced.status().message().find(
                "the quorum request of replica a was replaced by a newer one"),
            std::string::npos)
      << replaced.status();
  ASSERT_TRUE(client->Quorum(Ask("b"), kLong).ok());
  absl::StatusOr<proto::Quorum> newer = second.get();
  ASSERT_TRUE(newer.ok()) << newer.status();
  EXPECT_EQ(newer->participants(0).step(), 2);
}

TEST(LighthouseServerTest, CommitVoteOutcomes) {
  auto lighthouse = StartLighthouse(/*min_replicas=*/2);
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  auto quorums = FormQuorum(*client, {"a", "b"});
  ASSERT_TRUE(quorums[0].ok()) << quorums[0].status();
  const int64_t id = quorums[0]->quorum_id();

  // Both vote ok: commit.
  auto a_ok = std::async(std::launch::async, [&] {
    return client->Commit(Vote("a", id, 1, true), kLong);
  });
  EXPECT_EQ(a_ok.wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout);
  absl::StatusOr<proto::CommitResponse> b_ok =
      client->Commit(Vote("b", id, 1, true), kLong);
  ASSERT_TRUE(b_ok.ok()) << b_ok.status();
  EXPECT_TRUE(b_ok->commit());
  EXPECT_TRUE(a_ok.get()->commit());

  // A vote against: neither commits, and the next quorum is a new
  // generation.
  auto a_two = std::async(std::launch::async, [&] {
    return client->Commit(Vote("a", id, 2, true), kLong);
  });
  absl::StatusOr<proto::CommitResponse> b_two =
      client->Commit(Vote("b", id, 2, false), kLong);
  ASSERT_TRUE(b_two.ok()) << b_two.status();
  EXPECT_FALSE(b_two->commit());
  EXPECT_EQ(b_two->reason(),
            absl::StrCat("replica b voted against step 2 of quorum ", id,
                         ": allreduce failed"));
  EXPECT_FALSE(a_two.get()->commit());

  // A vote that waits past its deadline names who did not vote.
  absl::StatusOr<proto::CommitResponse> late =
      client->Commit(Vote("a", id, 3, true), absl::Milliseconds(800));
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(late.status().message().find("no vote within"), std::string::npos)
      << late.status();
  EXPECT_NE(late.status().message().find(" from b"), std::string::npos)
      << late.status();

  quorums = FormQuorum(*client, {"a", "b"});
  ASSERT_TRUE(quorums[0].ok()) << quorums[0].status();
  EXPECT_EQ(quorums[0]->quorum_id(), id + 1);
  EXPECT_NE(quorums[0]->reason().find("new generation: a commit failed"),
            std::string::npos)
      << quorums[0]->reason();

  // A vote on the old quorum is stale.
  absl::StatusOr<proto::CommitResponse> stale =
      client->Commit(Vote("a", id, 4, true), kLong);
  ASSERT_TRUE(stale.ok()) << stale.status();
  EXPECT_FALSE(stale->commit());
  EXPECT_EQ(stale->reason(),
            absl::StrCat("stale quorum ", id, " (current ", id + 1, ")"));
}

TEST(LighthouseServerTest, LostWatcherFailsTheVoteAndIsReportedToPeers) {
  auto lighthouse = StartLighthouse();
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  EventLog a_events, b_events;
  proto::WatchRequest a_watch_request, b_watch_request;
  a_watch_request.set_replica_id("a");
  a_watch_request.set_incarnation(1);
  b_watch_request.set_replica_id("b");
  b_watch_request.set_incarnation(1);
  auto a_watch = client->Watch(a_watch_request, a_events.Callback());
  auto b_watch = client->Watch(b_watch_request, b_events.Callback());
  // Both watches are open once both replicas show up.
  const absl::Time deadline = absl::Now() + kLong;
  while (lighthouse->Status().replicas.size() < 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  auto quorums = FormQuorum(*client, {"a", "b"});
  ASSERT_TRUE(quorums[1].ok()) << quorums[1].status();
  const int64_t id = quorums[1]->quorum_id();
  auto formed = b_events.WaitFor(proto::LighthouseEvent::QUORUM_FORMED);
  ASSERT_TRUE(formed.has_value());
  EXPECT_EQ(formed->quorum_id(), id);
  ASSERT_TRUE(a_events.WaitFor(proto::LighthouseEvent::QUORUM_FORMED));

  auto a_vote = std::async(std::launch::async, [&] {
    return client->Commit(Vote("a", id, 1, true), kLong);
  });
  EXPECT_EQ(a_vote.wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout);
  // b's process "dies": its only watch stream ends.
  b_watch->Stop();
  absl::StatusOr<proto::CommitResponse> vote = a_vote.get();
  ASSERT_TRUE(vote.ok()) << vote.status();
  EXPECT_FALSE(vote->commit());
  EXPECT_EQ(vote->reason(), "replica b lost: its watch stream ended");
  auto lost = a_events.WaitFor(proto::LighthouseEvent::MEMBER_LOST);
  ASSERT_TRUE(lost.has_value());
  EXPECT_EQ(lost->quorum_id(), id);
  EXPECT_EQ(lost->replica_id(), "b");
  EXPECT_EQ(lost->reason(), "replica b lost: its watch stream ended");
  const LighthouseStatus status = lighthouse->Status();
  EXPECT_FALSE(status.replicas[1].healthy);
  // The page's history keeps the loss and why.
  ASSERT_FALSE(status.history.empty());
  const LighthouseStatus::HistoryEntry& newest = status.history.front();
  EXPECT_EQ(newest.kind, LighthouseStatus::HistoryEntry::Kind::kMemberLost);
  EXPECT_EQ(newest.quorum_id, id);
  EXPECT_EQ(newest.replica_id, "b");
  EXPECT_EQ(newest.reason, "replica b lost: its watch stream ended");
  EXPECT_LE(newest.time, status.now);

  // a alone forms the next quorum at once: b no longer counts.
  const absl::Time asked = absl::Now();
  absl::StatusOr<proto::Quorum> next = client->Quorum(Ask("a"), kLong);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->quorum_id(), id + 1);
  EXPECT_EQ(next->participants_size(), 1);
  EXPECT_LT(absl::Now() - asked, absl::Seconds(5));  // no heartbeat timeout
  a_watch->Stop();
}

// An authority that says another lighthouse leads.
class FollowerAuthority final : public QuorumAuthority {
 public:
  explicit FollowerAuthority(std::string leader) : leader_(std::move(leader)) {}
  bool IsLeader() const override { return false; }
  std::string LeaderAddress() const override { return leader_; }
  absl::StatusOr<int64_t> LastQuorumId() override { return 0; }
  absl::Status RecordQuorumId(int64_t) override {
    return absl::FailedPreconditionError("not the leader");
  }

 private:
  std::string leader_;
};

TEST(LighthouseServerTest, FollowerNamesTheLeaderAndClientsFollow) {
  auto leader = StartLighthouse();
  ASSERT_NE(leader, nullptr);
  auto follower = StartLighthouse(
      1, std::make_unique<FollowerAuthority>(leader->address()));
  ASSERT_NE(follower, nullptr);

  // Raw: UNAVAILABLE with the leader in the trailing metadata.
  auto stub = proto::Lighthouse::NewStub(grpc::CreateChannel(
      follower->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kLong));
  proto::HeartbeatResponse response;
  grpc::Status refused = stub->Heartbeat(&context, Beat("a"), &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(
      refused.error_message(),
      absl::StrCat("lighthouse ", follower->address(),
                   " is not the leader (leader: ", leader->address(), ")"));
  auto named =
      context.GetServerTrailingMetadata().find("sluice-lighthouse-leader");
  ASSERT_NE(named, context.GetServerTrailingMetadata().end());
  EXPECT_EQ(std::string(named->second.data(), named->second.size()),
            leader->address());
  // GetStatus still answers.
  LighthouseStatus status = follower->Status();
  EXPECT_FALSE(status.is_leader);
  EXPECT_EQ(status.leader_address, leader->address());

  // A client that knows only the follower ends up at the leader.
  auto client = ClientOf({follower->address()});
  absl::StatusOr<proto::Quorum> quorum = client->Quorum(Ask("a"), kLong);
  ASSERT_TRUE(quorum.ok()) << quorum.status();
  EXPECT_EQ(quorum->quorum_id(), 1);
  EXPECT_EQ(client->leader(), leader->address());
  EXPECT_EQ(leader->Status().quorum.quorum_id, 1);
}

TEST(LighthouseServerTest, ClientTriesTheNextAddressWhenOneIsDown) {
  auto down = StartLighthouse();
  ASSERT_NE(down, nullptr);
  const std::string down_address = down->address();
  down.reset();
  auto up = StartLighthouse();
  ASSERT_NE(up, nullptr);
  auto client = ClientOf({down_address, up->address()});
  absl::StatusOr<proto::Quorum> quorum = client->Quorum(Ask("a"), kLong);
  ASSERT_TRUE(quorum.ok()) << quorum.status();
  EXPECT_EQ(client->leader(), up->address());

  // With every lighthouse down the error is retryable and names one.
  auto lonely = ClientOf({down_address});
  absl::Status beat = lonely->Heartbeat(Beat("a"), absl::Milliseconds(500));
  // Unreachable, or still connecting when the deadline came.
  EXPECT_TRUE(beat.code() == absl::StatusCode::kUnavailable ||
              beat.code() == absl::StatusCode::kDeadlineExceeded)
      << beat;
  EXPECT_NE(beat.message().find("heartbeat to lighthouse " + down_address),
            std::string::npos)
      << beat;
  EXPECT_EQ(Classify(beat), FailureClass::kRetryable);
}

// An authority that leads but refuses to record ids (etcd unreachable).
class UnreachableAuthority final : public QuorumAuthority {
 public:
  bool IsLeader() const override { return true; }
  std::string LeaderAddress() const override { return ""; }
  absl::StatusOr<int64_t> LastQuorumId() override { return 5; }
  absl::Status RecordQuorumId(int64_t id) override {
    recorded_tries.fetch_add(1);
    last_tried.store(id);
    return absl::UnavailableError("etcd unreachable");
  }
  std::atomic<int> recorded_tries{0};
  std::atomic<int64_t> last_tried{0};
};

TEST(LighthouseServerTest, NoQuorumIssuedWhenTheAuthorityRefuses) {
  auto authority = std::make_unique<UnreachableAuthority>();
  UnreachableAuthority* seen = authority.get();
  auto lighthouse = StartLighthouse(1, std::move(authority));
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  absl::StatusOr<proto::Quorum> quorum =
      client->Quorum(Ask("a"), absl::Milliseconds(800));
  EXPECT_EQ(quorum.status().code(), absl::StatusCode::kDeadlineExceeded)
      << quorum.status();
  EXPECT_GT(seen->recorded_tries.load(), 0);
  EXPECT_EQ(seen->last_tried.load(), 6);  // above LastQuorumId
  EXPECT_EQ(lighthouse->Status().quorum.quorum_id, 0);
}

// Leads (until told otherwise) and records ids as a lighthouse alone does,
// but every RecordQuorumId waits until the test opens it, as a slow etcd
// would (up to 500 ms per endpoint). The wait is bounded, so that a
// lighthouse that blocks on it fails a test rather than hanging it.
class SlowAuthority final : public QuorumAuthority {
 public:
  static constexpr absl::Duration kHold = absl::Seconds(5);

  bool IsLeader() const override { return leader.load(); }
  std::string LeaderAddress() const override {
    return leader.load() ? "" : "127.0.0.1:1";
  }
  absl::StatusOr<int64_t> LastQuorumId() override {
    std::lock_guard<std::mutex> lock(mu_);
    return recorded_.empty() ? 0 : recorded_.back();
  }
  absl::Status RecordQuorumId(int64_t id) override {
    std::unique_lock<std::mutex> lock(mu_);
    ++entered_;
    changed_.notify_all();
    changed_.wait_for(lock, absl::ToChronoNanoseconds(kHold),
                      [this] { return open_; });
    ++returned_;
    if (!recorded_.empty() && id <= recorded_.back()) {
      return absl::FailedPreconditionError(
          absl::StrCat("quorum id ", id, " is not above ", recorded_.back()));
    }
    recorded_.push_back(id);
    return absl::OkStatus();
  }

  // Waits (bounded) until `calls` records began.
  bool WaitForRecords(int calls) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, absl::ToChronoNanoseconds(kLong),
                             [&] { return entered_ >= calls; });
  }
  // Whether a record began and has not returned.
  bool InFlight() {
    std::lock_guard<std::mutex> lock(mu_);
    return entered_ > returned_;
  }
  // Lets every record through, now and from now on.
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    changed_.notify_all();
  }
  std::vector<int64_t> recorded() {
    std::lock_guard<std::mutex> lock(mu_);
    return recorded_;
  }

  std::atomic<bool> leader{true};

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int entered_ = 0;
  int returned_ = 0;
  bool open_ = false;
  std::vector<int64_t> recorded_;
};

// What a call that needs none of the record's work may take while a record
// is in flight: nothing near SlowAuthority::kHold.
constexpr absl::Duration kQuick = absl::Milliseconds(100);

TEST(LighthouseServerTest, RecordingAQuorumIdHoldsUpNoOtherCall) {
  auto authority = std::make_unique<SlowAuthority>();
  SlowAuthority* slow = authority.get();
  auto lighthouse = StartLighthouse(1, std::move(authority));
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  auto a = std::async(std::launch::async,
                      [&] { return client->Quorum(Ask("a"), kLong); });
  ASSERT_TRUE(slow->WaitForRecords(1));

  absl::Time start = absl::Now();
  const absl::Status beat = client->Heartbeat(Beat("a"), kLong);
  const absl::Duration beat_took = absl::Now() - start;
  start = absl::Now();
  const LighthouseStatus status = lighthouse->Status();
  const absl::Duration status_took = absl::Now() - start;
  start = absl::Now();
  const absl::StatusOr<proto::LighthouseStatus> remote =
      client->GetStatus(kLong);
  const absl::Duration remote_took = absl::Now() - start;
  // Measured while the record was in flight, not after it.
  EXPECT_TRUE(slow->InFlight());
  slow->Open();

  EXPECT_TRUE(beat.ok()) << beat;
  EXPECT_LT(beat_took, kQuick);
  EXPECT_LT(status_took, kQuick);
  ASSERT_TRUE(remote.ok()) << remote.status();
  EXPECT_LT(remote_took, kQuick);
  // Nothing is issued before it is recorded.
  EXPECT_EQ(status.quorum.quorum_id, 0);
  EXPECT_EQ(remote->quorum().quorum_id(), 0);
  ASSERT_EQ(status.replicas.size(), 1u);
  EXPECT_TRUE(status.replicas[0].requesting);

  absl::StatusOr<proto::Quorum> quorum = a.get();
  ASSERT_TRUE(quorum.ok()) << quorum.status();
  EXPECT_EQ(quorum->quorum_id(), 1);
  EXPECT_EQ(slow->recorded(), std::vector<int64_t>{1});
  EXPECT_EQ(lighthouse->Status().quorum.quorum_id, 1);
}

TEST(LighthouseServerTest, RequestsMadeDuringTheRecordJoinTheQuorum) {
  auto authority = std::make_unique<SlowAuthority>();
  SlowAuthority* slow = authority.get();
  auto lighthouse = StartLighthouse(1, std::move(authority));
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  auto a = std::async(std::launch::async,
                      [&] { return client->Quorum(Ask("a"), kLong); });
  ASSERT_TRUE(slow->WaitForRecords(1));
  auto b = std::async(std::launch::async,
                      [&] { return client->Quorum(Ask("b"), kLong); });
  const absl::Time deadline = absl::Now() + kLong;
  while (absl::Now() < deadline &&
         !(lighthouse->Status().replicas.size() == 2 &&
           lighthouse->Status().replicas[1].requesting)) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_TRUE(slow->InFlight());
  slow->Open();

  // The quorum issued under the recorded id is what holds once the record
  // returned: a and b, not a alone.
  for (auto* ask : {&a, &b}) {
    absl::StatusOr<proto::Quorum> quorum = ask->get();
    ASSERT_TRUE(quorum.ok()) << quorum.status();
    EXPECT_EQ(quorum->quorum_id(), 1);
    ASSERT_EQ(quorum->participants_size(), 2);
    EXPECT_EQ(quorum->participants(0).replica_id(), "a");
    EXPECT_EQ(quorum->participants(1).replica_id(), "b");
  }
  EXPECT_EQ(slow->recorded(), std::vector<int64_t>{1});
}

TEST(LighthouseServerTest, IdRecordedForAQuorumThatNoLongerFormsIsSpent) {
  auto authority = std::make_unique<SlowAuthority>();
  SlowAuthority* slow = authority.get();
  auto lighthouse = StartLighthouse(1, std::move(authority));
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  auto a = std::async(std::launch::async,
                      [&] { return client->Quorum(Ask("a"), kLong); });
  ASSERT_TRUE(slow->WaitForRecords(1));
  // b shows up without asking: a alone is no longer more than half.
  ASSERT_TRUE(client->Heartbeat(Beat("b"), kLong).ok());
  EXPECT_TRUE(slow->InFlight());
  slow->Open();
  const absl::Time deadline = absl::Now() + kLong;
  while (absl::Now() < deadline && slow->InFlight()) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(lighthouse->Status().quorum.quorum_id, 0);

  // Once b asks too, the quorum takes the next id: 1 was recorded, so it
  // is never issued.
  absl::StatusOr<proto::Quorum> b = client->Quorum(Ask("b"), kLong);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->quorum_id(), 2);
  EXPECT_EQ(b->participants_size(), 2);
  absl::StatusOr<proto::Quorum> a_quorum = a.get();
  ASSERT_TRUE(a_quorum.ok()) << a_quorum.status();
  EXPECT_EQ(a_quorum->quorum_id(), 2);
  EXPECT_EQ(slow->recorded(), (std::vector<int64_t>{1, 2}));
}

TEST(LighthouseServerTest, QuorumRecordedAsTheLeadershipLapsedIsNotIssued) {
  auto authority = std::make_unique<SlowAuthority>();
  SlowAuthority* slow = authority.get();
  auto lighthouse = StartLighthouse(1, std::move(authority));
  ASSERT_NE(lighthouse, nullptr);
  // A raw call, so that no client retries it elsewhere.
  auto stub = proto::Lighthouse::NewStub(grpc::CreateChannel(
      lighthouse->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + kLong));
  proto::QuorumResponse response;
  auto waiting = std::async(std::launch::async, [&] {
    return stub->Quorum(&context, Ask("a"), &response);
  });
  ASSERT_TRUE(slow->WaitForRecords(1));
  slow->leader = false;
  slow->Open();
  const grpc::Status ended = waiting.get();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAVAILABLE)
      << ended.error_message();
  EXPECT_NE(ended.error_message().find("is not the leader"), std::string::npos)
      << ended.error_message();
  EXPECT_EQ(lighthouse->Status().quorum.quorum_id, 0);

  // Leading again, it starts above the id it recorded and did not issue.
  slow->leader = true;
  auto client = ClientOf({lighthouse->address()});
  absl::StatusOr<proto::Quorum> quorum = client->Quorum(Ask("a"), kLong);
  ASSERT_TRUE(quorum.ok()) << quorum.status();
  EXPECT_EQ(quorum->quorum_id(), 2);
  EXPECT_EQ(slow->recorded(), (std::vector<int64_t>{1, 2}));
}

// Leads until it steps down (or the test says otherwise), records ids in
// memory, and counts its step-downs, as several lighthouses over etcd would
// hand the leadership to another.
class HandOverAuthority final : public QuorumAuthority {
 public:
  bool IsLeader() const override { return leader.load(); }
  std::string LeaderAddress() const override {
    return leader.load() ? "" : "127.0.0.1:1";
  }
  absl::StatusOr<int64_t> LastQuorumId() override { return last_id.load(); }
  absl::Status RecordQuorumId(int64_t id) override {
    last_id.store(id);
    return absl::OkStatus();
  }
  bool CanStepDown() const override { return true; }
  void StepDown(const std::string& why) override {
    std::lock_guard<std::mutex> lock(mu);
    leader.store(false);
    reasons.push_back(why);
  }

  std::vector<std::string> Reasons() {
    std::lock_guard<std::mutex> lock(mu);
    return reasons;
  }
  // Waits (bounded) until it stepped down `times` times.
  bool WaitForStepDowns(size_t times) {
    const absl::Time deadline = absl::Now() + kLong;
    while (absl::Now() < deadline) {
      if (Reasons().size() >= times) return true;
      absl::SleepFor(absl::Milliseconds(5));
    }
    return false;
  }

  std::atomic<bool> leader{true};
  std::atomic<int64_t> last_id{0};
  std::mutex mu;
  std::vector<std::string> reasons;  // guarded by mu
};

constexpr absl::Duration kStepDownAfter = absl::Milliseconds(300);

std::unique_ptr<Lighthouse> StartWithStepDown(
    std::unique_ptr<QuorumAuthority> authority,
    absl::Duration step_down_after = kStepDownAfter) {
  LighthouseOptions options;
  options.bind = "127.0.0.1:0";
  options.quorum_tick = absl::Milliseconds(20);
  options.step_down_after = step_down_after;
  auto lighthouse = Lighthouse::Start(options, std::move(authority));
  EXPECT_TRUE(lighthouse.ok()) << lighthouse.status();
  return lighthouse.ok() ? *std::move(lighthouse) : nullptr;
}

TEST(LighthouseStepDownTest, LeaderNoReplicaCallsStepsDownOnce) {
  auto authority = std::make_unique<HandOverAuthority>();
  HandOverAuthority* seen = authority.get();
  auto lighthouse = StartWithStepDown(std::move(authority));
  ASSERT_NE(lighthouse, nullptr);
  const LighthouseStatus leading = lighthouse->Status();
  EXPECT_TRUE(leading.is_leader);
  EXPECT_GT(leading.leader_since, absl::UnixEpoch());
  EXPECT_LE(leading.leader_since, leading.now);
  EXPECT_EQ(leading.step_down_after, kStepDownAfter);
  EXPECT_EQ(leading.last_step_down, "");

  // Calls more often than the bound keep it leading well past the bound.
  auto client = ClientOf({lighthouse->address()});
  const absl::Time calls_start = absl::Now();
  while (absl::Now() - calls_start < 3 * kStepDownAfter) {
    ASSERT_TRUE(client->Heartbeat(Beat("a"), kLong).ok());
    absl::SleepFor(kStepDownAfter / 4);
  }
  EXPECT_TRUE(seen->Reasons().empty());
  const absl::Time last_call = absl::Now();
  ASSERT_TRUE(client->Heartbeat(Beat("b"), kLong).ok());

  ASSERT_TRUE(seen->WaitForStepDowns(1));
  const absl::Duration took = absl::Now() - last_call;
  EXPECT_GE(took, kStepDownAfter);
  EXPECT_LT(took, kStepDownAfter + absl::Seconds(1));
  const std::vector<std::string> reasons = seen->Reasons();
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("no replica called for 0."), std::string::npos)
      << reasons[0];
  EXPECT_NE(reasons[0].find("(step_down_after 0.3 s; 2 replicas known, the "
                            "last call from b)"),
            std::string::npos)
      << reasons[0];
  const LighthouseStatus stepped = lighthouse->Status();
  EXPECT_FALSE(stepped.is_leader);
  EXPECT_EQ(stepped.leader_since, absl::UnixEpoch());
  EXPECT_EQ(stepped.last_step_down.rfind("stepped down at ", 0), 0u)
      << stepped.last_step_down;
  EXPECT_NE(stepped.last_step_down.find(reasons[0]), std::string::npos)
      << stepped.last_step_down;
  // A call now is refused: another lighthouse is to lead.
  grpc::ClientContext context;
  auto stub = proto::Lighthouse::NewStub(grpc::CreateChannel(
      lighthouse->address(), grpc::InsecureChannelCredentials()));
  proto::HeartbeatResponse response;
  EXPECT_EQ(stub->Heartbeat(&context, Beat("a"), &response).error_code(),
            grpc::StatusCode::UNAVAILABLE);

  // Leading again, it does not step down before a replica calls in the new
  // term, however long none does: no flapping.
  seen->leader.store(true);
  absl::SleepFor(4 * kStepDownAfter);
  EXPECT_EQ(seen->Reasons().size(), 1u);
  const LighthouseStatus again = lighthouse->Status();
  EXPECT_TRUE(again.is_leader);
  EXPECT_GT(again.leader_since, stepped.now);
  // Its page still says when it last stepped down.
  EXPECT_EQ(again.last_step_down, stepped.last_step_down);
}

TEST(LighthouseStepDownTest, FreshLeaderWithoutReplicasNeverStepsDown) {
  auto authority = std::make_unique<HandOverAuthority>();
  HandOverAuthority* seen = authority.get();
  auto lighthouse = StartWithStepDown(std::move(authority));
  ASSERT_NE(lighthouse, nullptr);
  absl::SleepFor(5 * kStepDownAfter);
  EXPECT_TRUE(seen->Reasons().empty());
  EXPECT_TRUE(lighthouse->Status().is_leader);
}

TEST(LighthouseStepDownTest, LighthouseAloneNeverStepsDown) {
  auto lighthouse = StartWithStepDown(nullptr);
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  ASSERT_TRUE(client->Heartbeat(Beat("a"), kLong).ok());
  absl::SleepFor(5 * kStepDownAfter);
  const LighthouseStatus status = lighthouse->Status();
  EXPECT_TRUE(status.is_leader);
  EXPECT_EQ(status.step_down_after, absl::ZeroDuration());
  EXPECT_EQ(status.last_step_down, "");
  EXPECT_TRUE(client->Heartbeat(Beat("a"), kLong).ok());
}

TEST(LighthouseStepDownTest, BoundDefaultsToHeartbeatTimeoutOrLivenessBound) {
  const absl::Duration liveness = LivenessTimeout();
  for (absl::Duration heartbeat_timeout :
       {liveness - absl::Milliseconds(1), liveness + absl::Seconds(5)}) {
    LighthouseOptions options;
    options.bind = "127.0.0.1:0";
    options.heartbeat_timeout = heartbeat_timeout;
    auto lighthouse =
        Lighthouse::Start(options, std::make_unique<HandOverAuthority>());
    ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
    EXPECT_EQ((*lighthouse)->Status().step_down_after,
              std::max(heartbeat_timeout, liveness + kLivenessPingTimeout))
        << "heartbeat timeout " << heartbeat_timeout;
  }
  LighthouseOptions negative;
  negative.bind = "127.0.0.1:0";
  negative.step_down_after = absl::Milliseconds(-1);
  auto refused = Lighthouse::Start(negative);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(),
            "lighthouse: step_down_after must not be negative, got -1ms");
}

TEST(LighthouseServerTest, ShutdownEndsWaitingCallsAtOnce) {
  auto lighthouse = StartLighthouse();
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  ASSERT_TRUE(client->Heartbeat(Beat("b"), kLong).ok());
  // A raw call, so that no client retries it after the shutdown.
  auto stub = proto::Lighthouse::NewStub(grpc::CreateChannel(
      lighthouse->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
  proto::QuorumResponse response;
  auto waiting = std::async(std::launch::async, [&] {
    return stub->Quorum(&context, Ask("a"), &response);
  });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(300)),
            std::future_status::timeout);
  const absl::Time start = absl::Now();
  lighthouse->Shutdown();
  const grpc::Status ended = waiting.get();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(ended.error_message().find(
                "is shutting down: quorum request of replica a ended"),
            std::string::npos)
      << ended.error_message();
}

TEST(LighthouseServerTest, RejectsARequestWithoutReplicaOrIncarnation) {
  auto lighthouse = StartLighthouse();
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  absl::Status beat = client->Heartbeat(proto::HeartbeatRequest(), kLong);
  EXPECT_EQ(beat.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(beat.message().find("the request names no replica_id"),
            std::string::npos)
      << beat;
  EXPECT_EQ(Classify(beat), FailureClass::kFatal);
  proto::HeartbeatRequest no_incarnation;
  no_incarnation.set_replica_id("a");
  beat = client->Heartbeat(no_incarnation, kLong);
  EXPECT_EQ(beat.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(
      beat.message().find("the request of replica a names no incarnation"),
      std::string::npos)
      << beat;
}

using HistoryKind = LighthouseStatus::HistoryEntry::Kind;

// The entries of `kind`, newest first.
std::vector<LighthouseStatus::HistoryEntry> EntriesOf(
    const LighthouseStatus& status, HistoryKind kind) {
  std::vector<LighthouseStatus::HistoryEntry> entries;
  for (const LighthouseStatus::HistoryEntry& entry : status.history) {
    if (entry.kind == kind) entries.push_back(entry);
  }
  return entries;
}

proto::QuorumRequest AskAs(const std::string& id, uint64_t incarnation,
                           int world_size) {
  proto::QuorumRequest request = Ask(id, /*step=*/0, incarnation);
  request.mutable_replica()->set_world_size(world_size);
  return request;
}

TEST(LighthouseHistoryTest, FastQuorumKeepsTheReasonOfItsGeneration) {
  auto lighthouse = StartLighthouse(/*min_replicas=*/2);
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  auto a = std::async(std::launch::async,
                      [&] { return client->Quorum(AskAs("a", 1, 4), kLong); });
  absl::StatusOr<proto::Quorum> formed =
      client->Quorum(AskAs("b", 1, 2), kLong);
  ASSERT_TRUE(formed.ok()) << formed.status();
  ASSERT_TRUE(a.get().ok());
  const std::string generation_reason =
      "2 of 2 healthy replicas asked (min_replicas 2)";
  ASSERT_EQ(formed->reason(), generation_reason);

  // The same members ask again: a fast quorum of the same generation.
  auto quorums = FormQuorum(*client, {"a", "b"});
  ASSERT_TRUE(quorums[0].ok()) << quorums[0].status();
  ASSERT_EQ(quorums[0]->quorum_id(), formed->quorum_id());
  const LighthouseStatus status = lighthouse->Status();
  EXPECT_EQ(status.quorum.reason, "fast quorum: every participant of quorum " +
                                      std::to_string(formed->quorum_id()) +
                                      " asked again");
  EXPECT_EQ(status.generation_reason, generation_reason);
  EXPECT_EQ(absl::ToUnixMicros(status.generation_formed), formed->created_us());
  EXPECT_GT(status.quorum.created, status.generation_formed);

  // One formation in the history, with its members as they formed it.
  const auto generations = EntriesOf(status, HistoryKind::kGenerationFormed);
  ASSERT_EQ(generations.size(), 1u);
  const LighthouseStatus::HistoryEntry& generation = generations[0];
  EXPECT_EQ(generation.quorum_id, formed->quorum_id());
  EXPECT_EQ(generation.reason, generation_reason);
  EXPECT_EQ(absl::ToUnixMicros(generation.time), formed->created_us());
  EXPECT_EQ(generation.participant_count, 2);
  ASSERT_EQ(generation.participants.size(), 2u);
  EXPECT_EQ(generation.participants[0].replica_id, "a");
  EXPECT_EQ(generation.participants[0].world_size, 4);
  EXPECT_EQ(generation.participants[0].incarnation, 1u);
  EXPECT_EQ(generation.participants[1].world_size, 2);
  EXPECT_EQ(generation.participants[1].address, "");  // not kept
  // A lighthouse alone leads from its start, before any quorum.
  ASSERT_FALSE(status.history.empty());
  EXPECT_EQ(status.history.back().kind, HistoryKind::kLeading);
  EXPECT_EQ(status.history.back().reason, "leads alone");
  EXPECT_EQ(status.history.front().kind, HistoryKind::kGenerationFormed);
}

TEST(LighthouseHistoryTest, RecordsARestartAndTheLossItCauses) {
  auto lighthouse = StartLighthouse(/*min_replicas=*/2);
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  auto quorums = FormQuorum(*client, {"a", "b"});
  ASSERT_TRUE(quorums[0].ok()) << quorums[0].status();
  const int64_t id = quorums[0]->quorum_id();
  EXPECT_TRUE(
      EntriesOf(lighthouse->Status(), HistoryKind::kReplicaRestarted).empty());

  // a's process restarts: a new incarnation of a known replica id.
  proto::HeartbeatRequest restarted = Beat("a");
  restarted.set_incarnation(2);
  ASSERT_TRUE(client->Heartbeat(restarted, kLong).ok());
  const LighthouseStatus status = lighthouse->Status();
  const auto restarts = EntriesOf(status, HistoryKind::kReplicaRestarted);
  ASSERT_EQ(restarts.size(), 1u);
  EXPECT_EQ(restarts[0].replica_id, "a");
  EXPECT_EQ(restarts[0].incarnation, 2u);
  EXPECT_EQ(restarts[0].reason, "new incarnation 2, was 1");
  const auto losses = EntriesOf(status, HistoryKind::kMemberLost);
  ASSERT_EQ(losses.size(), 1u);
  EXPECT_EQ(losses[0].replica_id, "a");
  EXPECT_EQ(losses[0].quorum_id, id);
  EXPECT_EQ(losses[0].reason, "replica a restarted (incarnation 2, was 1)");
  EXPECT_GE(losses[0].time, restarts[0].time);

  // Heard again as the same incarnation: nothing more to record.
  ASSERT_TRUE(client->Heartbeat(restarted, kLong).ok());
  EXPECT_EQ(lighthouse->Status().history.size(), status.history.size());
}

TEST(LighthouseHistoryTest, StepsPerSecondCountsEachCommittedStepOnce) {
  auto lighthouse = StartLighthouse(/*min_replicas=*/2);
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  auto quorums = FormQuorum(*client, {"a", "b"});
  ASSERT_TRUE(quorums[0].ok()) << quorums[0].status();
  const int64_t id = quorums[0]->quorum_id();
  EXPECT_EQ(lighthouse->Status().steps_per_second, 0);
  constexpr int kSteps = 5;
  for (int step = 1; step <= kSteps + 1; ++step) {
    // The last step is voted against: it does not commit.
    const bool ok = step <= kSteps;
    auto a_vote = std::async(std::launch::async, [&] {
      return client->Commit(Vote("a", id, step, ok), kLong);
    });
    ASSERT_TRUE(client->Commit(Vote("b", id, step, true), kLong).ok());
    ASSERT_TRUE(a_vote.get().ok());
  }
  const LighthouseStatus status = lighthouse->Status();
  EXPECT_EQ(status.committed_steps, kSteps);
  // Over at least 1 s however quickly they came, and never more steps than
  // committed.
  EXPECT_GT(status.steps_per_second, 0);
  EXPECT_LE(status.steps_per_second, kSteps);
}

TEST(StatusHistoryTest, KeepsOnlyTheNewestEntries) {
  StatusHistory history;
  const absl::Time start = absl::FromUnixSeconds(1700000000);
  const int recorded = 2 * StatusHistory::kMaxEntries + 50;
  for (int i = 0; i < recorded; ++i) {
    history.Record(proto::HistoryEntry::PAUSED, absl::StrCat("pause ", i),
                   start + absl::Seconds(i));
  }
  proto::LighthouseStatus status;
  history.AddTo(status);
  ASSERT_EQ(status.history_size(), StatusHistory::kMaxEntries);
  EXPECT_EQ(status.history(0).reason(), absl::StrCat("pause ", recorded - 1));
  EXPECT_EQ(status.history(0).time_us(),
            absl::ToUnixMicros(start + absl::Seconds(recorded - 1)));
  EXPECT_EQ(status.history(StatusHistory::kMaxEntries - 1).reason(),
            absl::StrCat("pause ", recorded - StatusHistory::kMaxEntries));
}

// A quorum of `size` replicas with `id_bytes`-byte ids.
proto::Quorum BigQuorum(int64_t id, int size, size_t id_bytes) {
  proto::Quorum quorum;
  quorum.set_quorum_id(id);
  quorum.set_created_us(1700000000000000 + id);
  for (int i = 0; i < size; ++i) {
    proto::ReplicaInfo& participant = *quorum.add_participants();
    participant.set_replica_id(absl::StrCat(i, std::string(id_bytes, '"')));
    participant.set_address("127.0.0.1:40000");
    participant.set_step(1000000 + i);
    participant.set_world_size(64);
    participant.set_incarnation(0xfedcba9876543210u + i);
  }
  quorum.set_reason(std::string(4096, 'r'));
  return quorum;
}

TEST(StatusHistoryTest, CutsLongIdsReasonsAndParticipantLists) {
  StatusHistory history;
  history.GenerationFormed(BigQuorum(3, 40, 1000));
  // 1000 two-byte characters: the cut may not split one.
  std::string long_id;
  for (int i = 0; i < 1000; ++i) long_id += "\u00e9";
  history.MemberLost(3, long_id, "lost " + long_id, absl::Now());
  proto::LighthouseStatus status;
  history.AddTo(status);
  ASSERT_EQ(status.history_size(), 2);
  const proto::HistoryEntry& lost = status.history(0);
  EXPECT_LE(lost.replica_id().size(), StatusHistory::kMaxReplicaIdBytes);
  EXPECT_GE(lost.replica_id().size(), StatusHistory::kMaxReplicaIdBytes - 4);
  EXPECT_EQ(lost.replica_id(),
            long_id.substr(0, lost.replica_id().size() - 3) + "\u2026");
  EXPECT_EQ((lost.replica_id().size() - 3) % 2, 0u);  // whole characters
  EXPECT_LE(lost.reason().size(), StatusHistory::kMaxReasonBytes);
  const proto::HistoryEntry& formed = status.history(1);
  EXPECT_EQ(formed.participant_count(), 40);
  ASSERT_EQ(formed.participants_size(),
            static_cast<int>(StatusHistory::kMaxListedParticipants));
  EXPECT_LE(formed.participants(0).replica_id().size(),
            StatusHistory::kMaxReplicaIdBytes);
  EXPECT_EQ(formed.participants(7).step(), 1000007);
  EXPECT_LE(formed.reason().size(), StatusHistory::kMaxReasonBytes);
  EXPECT_LE(status.generation_reason().size(), StatusHistory::kMaxReasonBytes);
  EXPECT_EQ(TruncateUtf8("short", 128), "short");
}

// status.json with the history full of the largest entries (ids of
// characters JSON escapes) stays far under 1 MB.
TEST(StatusHistoryTest, FullHistoryKeepsTheStatusJsonSmall) {
  StatusHistory history;
  for (int64_t id = 1; id <= 2 * StatusHistory::kMaxEntries; ++id) {
    history.GenerationFormed(BigQuorum(id, 100, 1000));
  }
  proto::LighthouseStatus status;
  history.AddTo(status);
  ASSERT_EQ(status.history_size(), StatusHistory::kMaxEntries);
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  ASSERT_TRUE(
      google::protobuf::util::MessageToJsonString(status, &json, options).ok());
  std::printf("status.json with a full history: %zu bytes\n", json.size());
  EXPECT_LT(json.size(), 512u * 1024);
}

TEST(StepRateTest, CountsTheLastTenSeconds) {
  StepRate rate;
  const absl::Time start = absl::FromUnixSeconds(1700000000);
  EXPECT_EQ(rate.PerSecond(start), 0);
  rate.Committed(start);
  // One step just now reads as one per second, not a thousand.
  EXPECT_EQ(rate.PerSecond(start + absl::Milliseconds(1)), 1);
  // Ten steps a second for 20 s.
  for (int i = 1; i < 200; ++i) {
    rate.Committed(start + i * absl::Milliseconds(100));
  }
  EXPECT_EQ(rate.total(), 200);
  EXPECT_DOUBLE_EQ(rate.PerSecond(start + absl::Milliseconds(19950)), 10);
  // 5 s later without a step: only those of the last 10 s count.
  EXPECT_DOUBLE_EQ(rate.PerSecond(start + absl::Seconds(25)), 4.9);
  EXPECT_EQ(rate.PerSecond(start + absl::Seconds(40)), 0);
  EXPECT_EQ(rate.total(), 200);
  // Over the time since the first step while that is under 10 s.
  StepRate young;
  for (int i = 0; i < 8; ++i) {
    young.Committed(start + i * absl::Milliseconds(500));
  }
  EXPECT_DOUBLE_EQ(young.PerSecond(start + absl::Seconds(4)), 2);
}

// sluice_lighthouse serves Lighthouse::Status on its page as the proto it
// was made from: nothing may be lost on the way.
TEST(LighthouseStatusTest, ProtoRoundTripKeepsEveryField) {
  proto::LighthouseStatus status;
  proto::Quorum& quorum = *status.mutable_quorum();
  quorum.set_quorum_id(7);
  quorum.set_created_us(1700000000123456);
  quorum.set_reason("2 of 2 healthy replicas asked (min_replicas 1)");
  for (const char* id : {"a", "b"}) {
    proto::ReplicaInfo& info = *quorum.add_participants();
    info.set_replica_id(id);
    info.set_address(absl::StrCat(id, ".host:1"));
    info.set_step(41);
    info.set_world_size(8);
    info.set_incarnation(0xfedcba9876543210u);
    proto::ReplicaStatus& replica = *status.add_replicas();
    *replica.mutable_replica() = info;
    replica.set_heartbeat_age_ms(1234);
    replica.set_healthy(true);
    replica.set_in_quorum(true);
    replica.set_recovering(id[0] == 'a');
    replica.set_requesting(id[0] == 'b');
  }
  status.set_min_replicas(2);
  status.set_heartbeat_timeout_ms(5000);
  status.set_address("127.0.0.1:29510");
  status.set_is_leader(true);
  status.set_leader_address("127.0.0.1:29510");
  status.set_now_us(1700000001654321);
  status.set_leader_since_us(1700000000654321);
  status.set_step_down_after_ms(5000);
  status.set_last_step_down("stepped down at 2023-11-14T22:13:20.654Z: why");
  status.set_authority_trouble("etcd unreachable for 2.1s (refused)");
  status.set_generation_reason("2 of 2 healthy replicas asked");
  status.set_generation_formed_us(1700000000000001);
  proto::HistoryEntry& formed = *status.add_history();
  formed.set_kind(proto::HistoryEntry::GENERATION_FORMED);
  formed.set_time_us(1700000000000001);
  formed.set_quorum_id(7);
  *formed.add_participants() = quorum.participants(0);
  formed.set_participant_count(2);
  formed.set_reason("2 of 2 healthy replicas asked");
  proto::HistoryEntry& restarted = *status.add_history();
  restarted.set_kind(proto::HistoryEntry::REPLICA_RESTARTED);
  restarted.set_time_us(1700000000000002);
  restarted.set_replica_id("b");
  restarted.set_incarnation(0xfedcba9876543211u);
  restarted.set_reason("new incarnation 2, was 1");
  status.set_steps_per_second(12.5);
  status.set_committed_steps(1234);

  const LighthouseStatus plain = StatusFromProto(status);
  ASSERT_EQ(plain.history.size(), 2u);
  EXPECT_EQ(plain.history[0].participants[0].incarnation, 0xfedcba9876543210u);
  EXPECT_EQ(plain.history[1].kind, HistoryKind::kReplicaRestarted);
  EXPECT_EQ(plain.steps_per_second, 12.5);
  EXPECT_EQ(plain.quorum.participants[1].incarnation, 0xfedcba9876543210u);
  EXPECT_EQ(plain.replicas[0].heartbeat_age, absl::Milliseconds(1234));
  EXPECT_EQ(absl::ToUnixMicros(plain.now), 1700000001654321);
  EXPECT_EQ(absl::ToUnixMicros(plain.leader_since), 1700000000654321);
  EXPECT_EQ(plain.step_down_after, absl::Seconds(5));
  EXPECT_EQ(plain.last_step_down,
            "stepped down at 2023-11-14T22:13:20.654Z: why");
  EXPECT_EQ(StatusToProto(plain).SerializeAsString(),
            status.SerializeAsString());
}

}  // namespace
}  // namespace sluice::lighthouse

namespace sluice::lighthouse {
namespace {

std::unique_ptr<Lighthouse> StartLimitedLighthouse(
    int max_replicas, absl::Duration heartbeat_timeout,
    absl::Duration forget_after) {
  LighthouseOptions options;
  options.bind = "127.0.0.1:0";
  options.quorum_tick = absl::Milliseconds(20);
  options.heartbeat_timeout = heartbeat_timeout;
  options.forget_after = forget_after;
  options.max_replicas = max_replicas;
  auto lighthouse = Lighthouse::Start(options);
  EXPECT_TRUE(lighthouse.ok()) << lighthouse.status();
  return lighthouse.ok() ? *std::move(lighthouse) : nullptr;
}

// Every RPC that names a replica refuses an id that breaks the rules, and
// never writes it raw.
TEST(LighthouseLimitsTest, EveryRpcRefusesAnInvalidReplicaId) {
  auto lighthouse = StartLighthouse();
  ASSERT_NE(lighthouse, nullptr);
  auto stub = proto::Lighthouse::NewStub(grpc::CreateChannel(
      lighthouse->address(), grpc::InsecureChannelCredentials()));
  const std::string forged = "a\nlighthouse x: quorum 9 formed with evil";
  const auto expect_refused = [](const grpc::Status& status) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.error_message().find('\n'), std::string::npos)
        << status.error_message();
    EXPECT_NE(status.error_message().find("has \"\\n\" at byte 1: a replica "
                                          "id is made of A-Z a-z 0-9 . _ : / "
                                          "-"),
              std::string::npos)
        << status.error_message();
  };
  {
    grpc::ClientContext context;
    proto::HeartbeatResponse response;
    proto::HeartbeatRequest request = Beat(forged);
    expect_refused(stub->Heartbeat(&context, request, &response));
  }
  {
    grpc::ClientContext context;
    proto::QuorumResponse response;
    expect_refused(stub->Quorum(&context, Ask(forged), &response));
  }
  {
    grpc::ClientContext context;
    proto::CommitResponse response;
    expect_refused(
        stub->Commit(&context, Vote(forged, 1, 1, false), &response));
  }
  {
    grpc::ClientContext context;
    proto::WatchRequest request;
    request.set_replica_id(forged);
    request.set_incarnation(1);
    auto reader = stub->Watch(&context, request);
    proto::LighthouseEvent event;
    EXPECT_FALSE(reader->Read(&event));
    expect_refused(reader->Finish());
  }
  {
    grpc::ClientContext context;
    proto::HeartbeatResponse response;
    const grpc::Status status = stub->Heartbeat(
        &context, Beat(std::string(kMaxReplicaIdBytes + 1, 'x')), &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("a replica id is at most 128 bytes"),
              std::string::npos)
        << status.error_message();
  }
  {
    grpc::ClientContext context;
    proto::QuorumResponse response;
    proto::QuorumRequest request = Ask("a");
    request.mutable_replica()->set_address(std::string(300, 'h') + ":1");
    const grpc::Status status = stub->Quorum(&context, request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(status.error_message().find("the quorum request of replica a: "
                                          "address"),
              std::string::npos)
        << status.error_message();
  }
  EXPECT_TRUE(lighthouse->Status().replicas.empty());
}

// A failed vote's text reaches the log and the other participants without
// its newlines, and cut.
TEST(LighthouseLimitsTest, AVoteFailureIsBoundedForTheOtherParticipants) {
  auto lighthouse = StartLighthouse(/*min_replicas=*/2);
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  auto quorums = FormQuorum(*client, {"a", "b"});
  ASSERT_TRUE(quorums[0].ok()) << quorums[0].status();
  proto::CommitRequest vote = Vote("a", quorums[0]->quorum_id(), 1, false);
  vote.set_failure("x\nlighthouse y: forged" + std::string(5000, 'z'));
  absl::StatusOr<proto::CommitResponse> answer = client->Commit(vote, kLong);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_FALSE(answer->commit());
  EXPECT_EQ(answer->reason().find('\n'), std::string::npos);
  EXPECT_NE(answer->reason().find("x\\x0alighthouse y: forged"),
            std::string::npos)
      << answer->reason();
  EXPECT_LT(answer->reason().size(), kMaxFailureBytes + 200);
}

// Contributors reach the reasons and the log as the voter's id does: a
// contributor that is no replica id is refused, and valid ones are judged.
TEST(LighthouseLimitsTest, AVoteNamingAForgedContributorIsRefused) {
  auto lighthouse = StartLighthouse(/*min_replicas=*/2);
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  auto quorums = FormQuorum(*client, {"a", "b"});
  ASSERT_TRUE(quorums[0].ok()) << quorums[0].status();
  const int64_t id = quorums[0]->quorum_id();
  proto::CommitRequest forged = Vote("a", id, 1, true);
  forged.add_contributors("a");
  forged.add_contributors("b\nlighthouse x: step 1 commits");
  absl::StatusOr<proto::CommitResponse> refused = client->Commit(forged, kLong);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find(
                "the commit vote of replica a names a contributor that is "
                "not a replica id: replica id \"b\\n"),
            std::string::npos)
      << refused.status();
  // Valid contributors reach the rule: a alone is too few to commit.
  proto::CommitRequest alone = Vote("a", id, 2, true);
  alone.add_contributors("a");
  absl::StatusOr<proto::CommitResponse> answer = client->Commit(alone, kLong);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_FALSE(answer->commit());
  EXPECT_EQ(answer->reason(),
            absl::StrCat("step 2 of quorum ", id,
                         " has 1 contributors {a}, fewer than min_replicas 2"));
}

TEST(LighthouseLimitsTest, PastMaxReplicasANewIdIsRefused) {
  auto lighthouse = StartLimitedLighthouse(
      /*max_replicas=*/3, absl::Seconds(5), absl::Seconds(60));
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  for (const char* id : {"a", "b", "c"}) {
    ASSERT_TRUE(client->Heartbeat(Beat(id), kLong).ok()) << id;
  }
  const absl::Status refused = client->Heartbeat(Beat("d"), kLong);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
  EXPECT_NE(refused.message().find("replica d is refused: 3 replicas are "
                                   "known, max_replicas 3"),
            std::string::npos)
      << refused;
  EXPECT_EQ(client->Quorum(Ask("d"), absl::Seconds(1)).status().code(),
            absl::StatusCode::kResourceExhausted);
  // The known ones go on: a alone is not more than half of 3, so its
  // request waits rather than being refused.
  EXPECT_TRUE(client->Heartbeat(Beat("a"), kLong).ok());
  auto quorum = client->Quorum(Ask("a"), absl::Milliseconds(500));
  EXPECT_NE(quorum.status().code(), absl::StatusCode::kResourceExhausted)
      << quorum.status();
  EXPECT_EQ(lighthouse->Status().replicas.size(), 3u);
}

TEST(LighthouseLimitsTest, ANewIncarnationCannotTakeAWatchingReplicasPlace) {
  auto lighthouse = StartLighthouse();
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  EventLog events;
  proto::WatchRequest watch_request;
  watch_request.set_replica_id("a");
  watch_request.set_incarnation(1);
  auto watch = client->Watch(watch_request, events.Callback());
  const absl::Time deadline = absl::Now() + kLong;
  while (lighthouse->Status().replicas.empty() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_TRUE(client->Heartbeat(Beat("a"), kLong).ok());
  proto::HeartbeatRequest spoofed = Beat("a");
  spoofed.set_incarnation(77);
  const absl::Status refused = client->Heartbeat(spoofed, kLong);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_EQ(lighthouse->Status().replicas.at(0).replica.incarnation, 1u);
  // The process dies (its stream ends): its restart is taken.
  watch->Stop();
  absl::Status restarted = refused;
  while (!restarted.ok() && absl::Now() < deadline) {
    restarted = client->Heartbeat(spoofed, kLong);
    if (!restarted.ok()) absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_TRUE(restarted.ok()) << restarted;
  EXPECT_EQ(lighthouse->Status().replicas.at(0).replica.incarnation, 77u);
}

// 20,000 ids that each heartbeat once: the lighthouse forgets them, the
// status lists at most 500 rows and status.json stays under 1 MB meanwhile.
TEST(LighthouseLimitsTest, OneShotIdsAreForgottenAndTheStatusStaysSmall) {
  auto lighthouse = StartLimitedLighthouse(
      /*max_replicas=*/10000, absl::Milliseconds(200), absl::Milliseconds(400));
  ASSERT_NE(lighthouse, nullptr);
  auto client = ClientOf({lighthouse->address()});
  constexpr int kIds = 20000;
  constexpr int kThreads = 8;
  std::atomic<int> admitted{0}, refused{0}, other{0};
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t) {
    senders.emplace_back([&, t] {
      for (int i = t; i < kIds; i += kThreads) {
        // The longest id there may be.
        std::string id = absl::StrCat(i, "-");
        id.resize(kMaxReplicaIdBytes, 'x');
        const absl::Status beat = client->Heartbeat(Beat(id), kLong);
        if (beat.ok()) {
          ++admitted;
        } else if (beat.code() == absl::StatusCode::kResourceExhausted) {
          ++refused;
        } else {
          ++other;
        }
      }
    });
  }
  size_t largest_json = 0, most_rows = 0;
  while (admitted + refused + other < kIds) {
    const proto::LighthouseStatus status = StatusToProto(lighthouse->Status());
    std::string json;
    google::protobuf::util::JsonPrintOptions options;
    options.always_print_primitive_fields = true;
    options.preserve_proto_field_names = true;
    ASSERT_TRUE(
        google::protobuf::util::MessageToJsonString(status, &json, options)
            .ok());
    largest_json = std::max(largest_json, json.size());
    most_rows = std::max<size_t>(most_rows, status.replicas_size());
    absl::SleepFor(absl::Milliseconds(50));
  }
  for (std::thread& sender : senders) sender.join();
  std::printf(
      "20000 one-shot ids: %d admitted, %d refused; status.json at most %zu "
      "bytes, %zu rows\n",
      admitted.load(), refused.load(), largest_json, most_rows);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(admitted + refused, kIds);
  EXPECT_LT(largest_json, 1024u * 1024);
  EXPECT_LE(most_rows, 500u);
  // Forgotten 400 ms after their heartbeat, a tick later at most.
  const absl::Time deadline = absl::Now() + kLong;
  while (!lighthouse->Status().replicas.empty() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_TRUE(lighthouse->Status().replicas.empty());
  // Room again for a new id.
  EXPECT_TRUE(client->Heartbeat(Beat("late"), kLong).ok());
}

}  // namespace
}  // namespace sluice::lighthouse
