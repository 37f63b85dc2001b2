// EtcdQuorumAuthority against a real etcd on 127.0.0.1: one leader among
// several lighthouses, only the leader records quorum ids, failover when the
// leader resigns, steps down, is killed (-9) or stopped, ids that only grow
// across restarts, and an unreachable etcd that fails calls with UNAVAILABLE in
// bounded time.
#include "lib/lighthouse/etcd_quorum_authority.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/integration/ha/etcd_process.h"
#include "test/integration/ha/logged_process.h"
#include "test/util/wait_until.h"

namespace sluice::lighthouse {
namespace {

using ::sluice::testing::WaitUntil;
using testing::EtcdProcess;
using ::testing::HasSubstr;
using testing::LoggedProcess;

// Long enough for a lease to expire and a follower to notice, under the
// sanitizers on a loaded machine.
constexpr absl::Duration kFailoverTimeout = absl::Seconds(15);

// The ids an authority_child printed as recorded, from line `from` on.
std::vector<int64_t> RecordedIds(const std::vector<std::string>& lines,
                                 size_t from = 0) {
  std::vector<int64_t> ids;
  for (size_t i = from; i < lines.size(); ++i) {
    int64_t id = 0;
    if (absl::StartsWith(lines[i], "recorded ") &&
        absl::SimpleAtoi(lines[i].substr(9), &id)) {
      ids.push_back(id);
    }
  }
  return ids;
}

class EtcdQuorumAuthorityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<EtcdProcess>> etcd = EtcdProcess::Start();
    ASSERT_TRUE(etcd.ok()) << etcd.status();
    etcd_ = *std::move(etcd);
  }

  EtcdQuorumAuthorityOptions Options(const std::string& address) {
    EtcdQuorumAuthorityOptions options;
    options.endpoints = {etcd_->endpoint()};
    options.address = address;
    options.prefix = "/test/";
    options.lease_ttl = absl::Seconds(2);
    return options;
  }

  std::unique_ptr<EtcdQuorumAuthority> NewAuthority(
      const std::string& address) {
    absl::StatusOr<std::unique_ptr<EtcdQuorumAuthority>> authority =
        EtcdQuorumAuthority::Create(Options(address));
    EXPECT_TRUE(authority.ok()) << authority.status();
    return authority.ok() ? *std::move(authority) : nullptr;
  }

  std::unique_ptr<LoggedProcess> StartChild(const std::string& address,
                                            bool record) {
    std::vector<std::string> argv = {"test/integration/ha/authority_child",
                                     "--etcd=" + etcd_->endpoint(),
                                     "--address=" + address, "--prefix=/test/"};
    if (record) argv.push_back("--record");
    absl::StatusOr<std::unique_ptr<LoggedProcess>> child =
        LoggedProcess::Start("authority_child " + address, argv);
    EXPECT_TRUE(child.ok()) << child.status();
    return child.ok() ? *std::move(child) : nullptr;
  }

  std::unique_ptr<EtcdProcess> etcd_;
};

TEST_F(EtcdQuorumAuthorityTest, OneLeaderAndOnlyItRecords) {
  auto a = NewAuthority("127.0.0.1:1001");
  auto b = NewAuthority("127.0.0.1:1002");
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return a->IsLeader() != b->IsLeader() && !a->LeaderAddress().empty() &&
               a->LeaderAddress() == b->LeaderAddress();
      },
      absl::Seconds(10)))
      << "a leads: " << a->IsLeader() << ", b leads: " << b->IsLeader();
  EtcdQuorumAuthority* leader = a->IsLeader() ? a.get() : b.get();
  EtcdQuorumAuthority* follower = a->IsLeader() ? b.get() : a.get();
  EXPECT_EQ(leader->LeaderAddress(),
            leader == a.get() ? "127.0.0.1:1001" : "127.0.0.1:1002");

  absl::StatusOr<int64_t> last = leader->LastQuorumId();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(*last, 0);
  ASSERT_TRUE(leader->RecordQuorumId(1).ok());
  ASSERT_TRUE(leader->RecordQuorumId(2).ok());

  absl::Status refused = follower->RecordQuorumId(3);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("is not the leader"));
  EXPECT_THAT(refused.message(), HasSubstr(leader->LeaderAddress()));

  absl::Status again = leader->RecordQuorumId(2);
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition) << again;
  EXPECT_THAT(again.message(), HasSubstr("already holds 2"));

  absl::StatusOr<int64_t> seen = follower->LastQuorumId();
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_EQ(*seen, 2);
}

TEST_F(EtcdQuorumAuthorityTest, StaleReadLosesTheCompareAndSwap) {
  auto a = NewAuthority("127.0.0.1:1001");
  ASSERT_TRUE(a);
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, absl::Seconds(10)));
  ASSERT_TRUE(a->LastQuorumId().ok());
  // Another writer moves the id behind the leader's back.
  absl::StatusOr<std::unique_ptr<EtcdClient>> client =
      EtcdClient::Create({etcd_->endpoint()}, absl::Seconds(1));
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Put({a->quorum_id_key(), "7", 0}).ok());

  absl::Status lost = a->RecordQuorumId(1);
  EXPECT_EQ(lost.code(), absl::StatusCode::kFailedPrecondition) << lost;
  EXPECT_THAT(lost.message(),
              HasSubstr("the quorum id moved to 7 (this lighthouse had read "
                        "0)"));
  // The failure re-read the id: the next id above it goes through.
  EXPECT_EQ(a->RecordQuorumId(7).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(a->RecordQuorumId(8).ok());
  absl::StatusOr<std::optional<EtcdKeyValue>> stored =
      (*client)->Get(a->quorum_id_key());
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->value, "8");
}

// The leader's key vanishes (its lease revoked behind its back) and another
// lighthouse's key takes its place: the former leader records nothing.
TEST_F(EtcdQuorumAuthorityTest, LeaderThatLostItsKeyRecordsNothing) {
  auto a = NewAuthority("127.0.0.1:1001");
  ASSERT_TRUE(a);
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, absl::Seconds(10)));
  absl::StatusOr<std::unique_ptr<EtcdClient>> client =
      EtcdClient::Create({etcd_->endpoint()}, absl::Seconds(1));
  ASSERT_TRUE(client.ok());
  absl::StatusOr<std::optional<EtcdKeyValue>> key =
      (*client)->Get(a->leader_key());
  ASSERT_TRUE(key.ok() && key->has_value());
  ASSERT_TRUE((*client)->RevokeLease((*key)->lease).ok());
  ASSERT_TRUE((*client)->Put({a->leader_key(), "127.0.0.1:9999", 0}).ok());

  // Whether its next poll or the transaction notices first, it refuses.
  absl::Status refused = a->RecordQuorumId(1);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("127.0.0.1:9999"));
  EXPECT_TRUE(WaitUntil([&] { return a->LeaderAddress() == "127.0.0.1:9999"; },
                        absl::Seconds(5)));
  EXPECT_FALSE(a->IsLeader());
  absl::StatusOr<std::optional<EtcdKeyValue>> id =
      (*client)->Get(a->quorum_id_key());
  ASSERT_TRUE(id.ok());
  EXPECT_FALSE(id->has_value()) << (*id)->value;
}

TEST_F(EtcdQuorumAuthorityTest, FollowerTakesOverWhenTheLeaderResigns) {
  auto a = NewAuthority("127.0.0.1:1001");
  ASSERT_TRUE(a);
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, absl::Seconds(10)));
  ASSERT_TRUE(a->RecordQuorumId(5).ok());
  auto b = NewAuthority("127.0.0.1:1002");
  ASSERT_TRUE(WaitUntil([&] { return b->LeaderAddress() == "127.0.0.1:1001"; },
                        absl::Seconds(10)));
  EXPECT_FALSE(b->IsLeader());

  a.reset();  // revokes its lease: no need to wait for the TTL
  ASSERT_TRUE(WaitUntil([&] { return b->IsLeader(); }, kFailoverTimeout));
  EXPECT_EQ(b->LeaderAddress(), "127.0.0.1:1002");
  absl::StatusOr<int64_t> last = b->LastQuorumId();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(*last, 5);
  EXPECT_TRUE(b->RecordQuorumId(6).ok());
}

// A leader that steps down stops leading at once, its key goes with its
// revoked lease, the follower takes over within its poll, and the one that
// stepped down stays out of the campaign for a TTL: it takes the key back
// only when no one else has it by then.
TEST_F(EtcdQuorumAuthorityTest, LeaderThatStepsDownHandsOverAndStaysOut) {
  auto a = NewAuthority("127.0.0.1:1001");
  ASSERT_TRUE(a);
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, absl::Seconds(10)));
  ASSERT_TRUE(a->RecordQuorumId(5).ok());
  auto b = NewAuthority("127.0.0.1:1002");
  ASSERT_TRUE(WaitUntil([&] { return b->LeaderAddress() == "127.0.0.1:1001"; },
                        absl::Seconds(10)));

  EXPECT_TRUE(a->CanStepDown());
  const absl::Time stepped = absl::Now();
  a->StepDown("no replica reaches it");
  EXPECT_FALSE(a->IsLeader());
  absl::Status refused = a->RecordQuorumId(6);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  ASSERT_TRUE(WaitUntil([&] { return b->IsLeader(); }, kFailoverTimeout));
  // The revoked lease freed the key at once: no TTL to wait out.
  EXPECT_LT(absl::Now() - stepped, absl::Milliseconds(1500));
  ASSERT_TRUE(WaitUntil([&] { return a->LeaderAddress() == "127.0.0.1:1002"; },
                        absl::Seconds(10)));
  absl::StatusOr<int64_t> last = b->LastQuorumId();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(*last, 5);
  EXPECT_TRUE(b->RecordQuorumId(6).ok());

  // With the follower gone too the key is free at once, but the one that
  // stepped down takes it only after its TTL out of the campaign.
  b.reset();
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, kFailoverTimeout));
  EXPECT_GE(absl::Now() - stepped, absl::Seconds(2));
  // As a lighthouse catching up as leader: the id moved on meanwhile.
  last = a->LastQuorumId();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(*last, 6);
  EXPECT_TRUE(a->RecordQuorumId(7).ok());
}

TEST_F(EtcdQuorumAuthorityTest, FollowerTakesOverAfterKill9OfTheLeader) {
  auto child = StartChild("127.0.0.1:2001", /*record=*/false);
  ASSERT_TRUE(child);
  ASSERT_TRUE(
      child->WaitForLine("leader 127.0.0.1:2001", absl::Seconds(10)).ok())
      << child->Tail();
  auto b = NewAuthority("127.0.0.1:2002");
  ASSERT_TRUE(WaitUntil([&] { return b->LeaderAddress() == "127.0.0.1:2001"; },
                        absl::Seconds(10)));

  const absl::Time killed = absl::Now();
  child->Kill();
  // The dead leader's key lives until its lease expires: nobody may lead
  // before that (the lease was renewed at most a third of its TTL ago).
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_FALSE(b->IsLeader());
  EXPECT_EQ(b->LeaderAddress(), "127.0.0.1:2001");
  ASSERT_TRUE(WaitUntil([&] { return b->IsLeader(); }, kFailoverTimeout));
  const absl::Duration failover = absl::Now() - killed;
  std::printf("failover after kill -9 of the leader: %s\n",
              absl::FormatDuration(failover).c_str());
  EXPECT_TRUE(b->RecordQuorumId(1).ok());
}

// The classic split brain: the leader stops (SIGSTOP) long enough to lose its
// lease, another lighthouse takes over and issues quorums, then the old
// leader wakes up. It must not record a single id after that.
TEST_F(EtcdQuorumAuthorityTest, StoppedLeaderRecordsNothingAfterWakingUp) {
  auto first = StartChild("127.0.0.1:3001", /*record=*/true);
  ASSERT_TRUE(first);
  ASSERT_TRUE(first->WaitForLine("recorded 3", absl::Seconds(10)).ok())
      << first->Tail();
  auto second = StartChild("127.0.0.1:3002", /*record=*/true);
  ASSERT_TRUE(second);
  ASSERT_TRUE(
      second->WaitForLine("follower 127.0.0.1:3001", absl::Seconds(10)).ok())
      << second->Tail();

  first->Stop();
  ASSERT_TRUE(
      second->WaitForLine("leader 127.0.0.1:3002", kFailoverTimeout).ok())
      << second->Tail();
  ASSERT_TRUE(second->WaitForLine("recorded", absl::Seconds(10)).ok());
  const size_t first_lines_before_wake = first->Lines().size();
  first->Continue();
  ASSERT_TRUE(
      first->WaitForLine("follower 127.0.0.1:3002", absl::Seconds(10)).ok())
      << first->Tail();
  absl::SleepFor(absl::Milliseconds(500));

  // Every id recorded once, by one of them.
  std::map<int64_t, std::string> recorded_by;
  for (LoggedProcess* process : {first.get(), second.get()}) {
    for (int64_t id : RecordedIds(process->Lines())) {
      auto [it, inserted] = recorded_by.emplace(id, process->name());
      EXPECT_TRUE(inserted) << "quorum id " << id << " recorded by "
                            << it->second << " and by " << process->name();
    }
  }
  // What the woken one printed as recorded after waking came from
  // transactions etcd applied before the stop: below every id of the new
  // leader.
  const std::vector<int64_t> second_ids = RecordedIds(second->Lines());
  ASSERT_FALSE(second_ids.empty());
  for (int64_t id : RecordedIds(first->Lines(), first_lines_before_wake)) {
    EXPECT_LT(id, second_ids.front());
  }
  // Contiguous: no id skipped or lost between the two leaders.
  ASSERT_FALSE(recorded_by.empty());
  EXPECT_EQ(recorded_by.begin()->first, 1);
  EXPECT_EQ(recorded_by.rbegin()->first,
            static_cast<int64_t>(recorded_by.size()));
}

TEST_F(EtcdQuorumAuthorityTest, QuorumIdOnlyGrowsAcrossRestarts) {
  {
    auto a = NewAuthority("127.0.0.1:4001");
    ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, absl::Seconds(10)));
    ASSERT_TRUE(a->RecordQuorumId(41).ok());
  }
  // etcd itself restarts too, from its data directory.
  ASSERT_TRUE(etcd_->Restart().ok());
  auto b = NewAuthority("127.0.0.1:4001");
  ASSERT_TRUE(WaitUntil([&] { return b->IsLeader(); }, kFailoverTimeout));
  absl::StatusOr<int64_t> last = b->LastQuorumId();
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(*last, 41);
  absl::Status old = b->RecordQuorumId(3);
  EXPECT_EQ(old.code(), absl::StatusCode::kFailedPrecondition) << old;
  EXPECT_TRUE(b->RecordQuorumId(42).ok());
}

TEST_F(EtcdQuorumAuthorityTest, EtcdDownFailsWithUnavailableInBoundedTime) {
  auto a = NewAuthority("127.0.0.1:5001");
  ASSERT_TRUE(WaitUntil([&] { return a->IsLeader(); }, absl::Seconds(10)));
  ASSERT_TRUE(a->LastQuorumId().ok());
  etcd_->Kill();

  const absl::Time start = absl::Now();
  absl::StatusOr<int64_t> last = a->LastQuorumId();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  EXPECT_EQ(last.status().code(), absl::StatusCode::kUnavailable)
      << last.status();
  EXPECT_THAT(last.status().message(), HasSubstr(etcd_->endpoint()));
  // Leadership lapses with the lease it can no longer renew.
  EXPECT_TRUE(WaitUntil([&] { return !a->IsLeader(); }, absl::Seconds(5)));
  absl::Status record = a->RecordQuorumId(1);
  EXPECT_TRUE(absl::IsUnavailable(record) || absl::IsFailedPrecondition(record))
      << record;
}

TEST_F(EtcdQuorumAuthorityTest, DeadEndpointsAreSkipped) {
  absl::StatusOr<int> dead_port = testing::PickFreePort();
  ASSERT_TRUE(dead_port.ok());
  const std::string dead = absl::StrCat("http://127.0.0.1:", *dead_port);
  EtcdQuorumAuthorityOptions options = Options("127.0.0.1:6001");
  options.endpoints = {dead, etcd_->endpoint()};
  auto a = EtcdQuorumAuthority::Create(options);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(WaitUntil([&] { return (*a)->IsLeader(); }, absl::Seconds(10)));
  EXPECT_TRUE((*a)->RecordQuorumId(1).ok());

  options.endpoints = {dead};
  auto alone = EtcdQuorumAuthority::Create(options);
  ASSERT_TRUE(alone.ok()) << alone.status();
  absl::StatusOr<int64_t> last = (*alone)->LastQuorumId();
  EXPECT_EQ(last.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(last.status().message(), HasSubstr(dead));
}

TEST(EtcdQuorumAuthorityOptionsTest, RejectsBadOptions) {
  EtcdQuorumAuthorityOptions options;
  options.address = "127.0.0.1:1";
  options.endpoints = {"https://127.0.0.1:2379"};
  EXPECT_THAT(EtcdQuorumAuthority::Create(options).status().message(),
              HasSubstr("is https but this process has no TLS configured"));
  options.endpoints = {"127.0.0.1"};
  EXPECT_THAT(EtcdQuorumAuthority::Create(options).status().message(),
              HasSubstr("is not http://host:port"));
  options.endpoints = {};
  EXPECT_THAT(EtcdQuorumAuthority::Create(options).status().message(),
              HasSubstr("no etcd endpoint"));
  options.endpoints = {"http://127.0.0.1:2379"};
  options.address = "";
  EXPECT_THAT(EtcdQuorumAuthority::Create(options).status().message(),
              HasSubstr("address is empty"));
  EXPECT_EQ(EtcdClient::SplitEndpoints("http://a:1, http://b:2,,"),
            (std::vector<std::string>{"http://a:1", "http://b:2"}));
}

}  // namespace
}  // namespace sluice::lighthouse
