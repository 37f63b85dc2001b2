// Two sluice_lighthouse processes over one etcd and three replica processes
// that know both: the replicas follow the leader, keep getting quorums with
// growing ids after kill -9 of the leading lighthouse (and again after the
// other one is killed once the first is back), and no quorum id is ever
// issued twice.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/integration/ha/etcd_process.h"
#include "test/integration/ha/ha_cluster.h"

namespace sluice::lighthouse::testing {
namespace {

constexpr absl::Duration kTimeout = absl::Seconds(30);
constexpr char kMembers[] = "replica_0,replica_1,replica_2";

class LighthouseFailoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto etcd = EtcdProcess::Start();
    ASSERT_TRUE(etcd.ok()) << etcd.status();
    etcd_ = *std::move(etcd);
    for (int i = 0; i < 2; ++i) {
      absl::StatusOr<int> port = PickFreePort();
      ASSERT_TRUE(port.ok()) << port.status();
      addresses_.push_back(absl::StrCat("127.0.0.1:", *port));
    }
  }

  // Lighthouse `i` on its fixed port (replicas and the other lighthouse
  // know it by that address).
  absl::StatusOr<LighthouseProcess> StartLighthouseNumber(int i) {
    return StartLighthouse(
        absl::StrCat("lighthouse ", i),
        {"--address=" + addresses_[i], "--etcd=" + etcd_->endpoint(),
         "--etcd_lease_ttl_ms=2000", "--min_replicas=2",
         "--heartbeat_timeout_ms=1500", "--join_timeout_ms=1000"});
  }

  // Waits until the lighthouse's page says it leads.
  bool WaitForLeader(const LighthouseProcess& lighthouse) {
    const absl::Time deadline = absl::Now() + kTimeout;
    while (absl::Now() < deadline) {
      auto status = FetchStatus(lighthouse.status_url);
      if (status.ok() && (*status)["is_leader"] == true) return true;
      absl::SleepFor(absl::Milliseconds(50));
    }
    return false;
  }

  // Waits until every replica got a quorum of all three from `lighthouse`
  // with an id above `above`; returns the largest id seen.
  int64_t WaitForQuorumsFrom(const std::string& lighthouse, int64_t above) {
    int64_t largest = 0;
    for (auto& replica : replicas_) {
      const absl::Time deadline = absl::Now() + kTimeout;
      bool found = false;
      while (!found && absl::Now() < deadline) {
        for (const ObservedQuorum& quorum : ObservedQuorums(*replica)) {
          if (quorum.lighthouse == lighthouse && quorum.id > above &&
              quorum.members == kMembers) {
            found = true;
            largest = std::max(largest, quorum.id);
          }
        }
        if (!found) absl::SleepFor(absl::Milliseconds(50));
      }
      EXPECT_TRUE(found) << replica->name() << " got no quorum of all three "
                         << "from " << lighthouse << " above " << above
                         << "; its last lines:\n"
                         << replica->Tail();
    }
    return largest;
  }

  std::unique_ptr<EtcdProcess> etcd_;
  std::vector<std::string> addresses_;
  std::vector<std::unique_ptr<LoggedProcess>> replicas_;
};

TEST_F(LighthouseFailoverTest, ReplicasKeepGettingQuorumsAcrossKills) {
  absl::StatusOr<LighthouseProcess> first = StartLighthouseNumber(0);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(WaitForLeader(*first)) << first->process->Tail();
  absl::StatusOr<LighthouseProcess> second = StartLighthouseNumber(1);
  ASSERT_TRUE(second.ok()) << second.status();
  auto second_status = FetchStatus(second->status_url);
  ASSERT_TRUE(second_status.ok()) << second_status.status();
  EXPECT_EQ((*second_status)["is_leader"], false);
  EXPECT_EQ((*second_status)["leader_address"], addresses_[0]);

  // The follower first: replicas must follow it to the leader.
  const std::string both = addresses_[1] + "," + addresses_[0];
  for (const char* id : {"replica_0", "replica_1", "replica_2"}) {
    auto replica = StartReplica(id, both);
    ASSERT_TRUE(replica.ok()) << replica.status();
    replicas_.push_back(*std::move(replica));
  }
  const int64_t before_kill = WaitForQuorumsFrom(addresses_[0], 0);
  ASSERT_GT(before_kill, 0);

  const absl::Time killed = absl::Now();
  first->process->Kill();
  const int64_t after_kill = WaitForQuorumsFrom(addresses_[1], before_kill);
  const absl::Duration failover = absl::Now() - killed;
  std::printf(
      "kill -9 of the leading lighthouse to a quorum of all three "
      "from the other: %s\n",
      absl::FormatDuration(failover).c_str());
  ASSERT_GT(after_kill, before_kill);

  // The killed one comes back as a follower; then the leader dies too.
  first = StartLighthouseNumber(0);
  ASSERT_TRUE(first.ok()) << first.status();
  auto back = FetchStatus(first->status_url);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)["is_leader"], false);
  second->process->Kill();
  const int64_t after_second_kill =
      WaitForQuorumsFrom(addresses_[0], after_kill);
  ASSERT_GT(after_second_kill, after_kill);

  // One quorum per id, from one lighthouse, and each replica's ids grow.
  std::map<int64_t, std::string> issued;  // id → "lighthouse members"
  for (auto& replica : replicas_) {
    int64_t previous = 0;
    for (const ObservedQuorum& quorum : ObservedQuorums(*replica)) {
      const std::string what = quorum.lighthouse + " " + quorum.members;
      auto [it, inserted] = issued.emplace(quorum.id, what);
      EXPECT_EQ(it->second, what)
          << "quorum id " << quorum.id << " issued twice";
      EXPECT_GE(quorum.id, previous) << replica->name();
      previous = quorum.id;
    }
  }
  // Ids from a later leader are above every id of an earlier one.
  int64_t last_of_first_term = 0;
  for (const auto& [id, what] : issued) {
    if (id <= before_kill) last_of_first_term = id;
  }
  for (const auto& [id, what] : issued) {
    if (what.rfind(addresses_[1], 0) == 0) {
      EXPECT_GT(id, last_of_first_term);
    }
  }
}

// etcd down at start: the lighthouse cannot learn the last quorum id, so it
// exits at once with an error naming the endpoint instead of serving.
TEST_F(LighthouseFailoverTest, UnreachableEtcdStopsTheLighthouseAtStart) {
  const std::string endpoint = etcd_->endpoint();
  etcd_->Kill();
  auto lighthouse = LoggedProcess::Start(
      "lighthouse", {"tools/sluice_lighthouse/sluice_lighthouse",
                     "--address=" + addresses_[0], "--etcd=" + endpoint});
  ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
  ASSERT_TRUE((*lighthouse)->WaitForExit(kTimeout)) << (*lighthouse)->Tail();
  absl::StatusOr<std::string> error =
      (*lighthouse)->WaitForLine("sluice_lighthouse: ", absl::Seconds(1));
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_THAT(*error, ::testing::HasSubstr("etcd unreachable"));
  EXPECT_THAT(*error, ::testing::HasSubstr(endpoint));
}

}  // namespace
}  // namespace sluice::lighthouse::testing
