// Two sluice_lighthouse processes over a real etcd and three replica
// processes, in a network namespace of the test's own, under the failures a
// real network makes (issue 29): packets that stop, with no reset.
//
//  (a) the leader cut off from etcd but not from the replicas: its lease
//      lapses and the follower leads;
//  (b) the leader cut off from the replicas but not from etcd: it keeps its
//      lease, so it steps down once no replica has called for its
//      step-down bound, and the follower leads;
//  (c) etcd cut off from everyone for less than the lease: nothing changes
//      and training goes on;
//  (d) the leader frozen (SIGSTOP), which sends nothing and closes nothing:
//      the replicas find it silent and go to the follower once it leads,
//      and woken up it does not lead again;
//  (e) etcd killed for longer than the lease, then restarted: no
//      lighthouse leads meanwhile, each says so once in its log, on its
//      page and to the replicas, and training resumes at once on etcd's
//      return.
//
// Each scenario polls both lighthouses' status pages throughout and asserts
// that no two lighthouses ever led at the same time, that the quorum ids the
// replicas saw only grew and were never issued twice, and that training
// (the replicas' quorums, one per step) resumed within the bound
// docs/lighthouse.md states for the scenario. Each lighthouse runs as a
// fault user of its own (test_util::RunAsUser), so that its connections
// alone can be cut whatever their ports.
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/lighthouse/lighthouse_client.h"
#include "sluice/support/liveness.h"
#include "test/integration/ha/etcd_process.h"
#include "test/integration/ha/ha_cluster.h"
#include "test/util/network_faults.h"

namespace sluice::lighthouse::testing {
namespace {

using test_util::kFirstFaultUser;
using test_util::NetworkFaults;
using test_util::Traffic;
using ::testing::HasSubstr;

// The settings of the cluster, and what the bounds are made of.
constexpr absl::Duration kLiveness = absl::Seconds(1);
// Run as fault users, which RunAsUser lets read the runfiles.
constexpr char kLighthouse[] = "tools/sluice_lighthouse/sluice_lighthouse";
constexpr absl::Duration kLeaseTtl = absl::Seconds(3);
constexpr absl::Duration kHeartbeatTimeout = absl::Milliseconds(1500);
constexpr absl::Duration kJoinTimeout = absl::Seconds(1);
constexpr absl::Duration kQuorumTick = absl::Milliseconds(100);
// EtcdQuorumAuthorityOptions' defaults: the lease's renewal and the leader
// key's reads, and every etcd request's timeout.
constexpr absl::Duration kEtcdPoll = absl::Milliseconds(200);
constexpr absl::Duration kEtcdRequest = absl::Milliseconds(500);
// etcd looks for expired leases twice a second.
constexpr absl::Duration kEtcdExpiryCheck = absl::Milliseconds(500);
// LighthouseOptions::step_down_after's default with these settings: the
// larger of the heartbeat timeout and the liveness bound (the latter).
const absl::Duration kStepDownAfter = kLiveness + kLivenessPingTimeout;
// How long (c) keeps etcd cut off: less than the lease, with room for the
// renewals around it (docs/lighthouse.md: below TTL - 2 polls - a request,
// 2.1 s here).
constexpr absl::Duration kEtcdCut = absl::Milliseconds(1500);

// The bounds of docs/lighthouse.md, "Partitions", for these settings. Once
// a lighthouse leads and has caught up, a replica gets a quorum within a
// tick and the client's pauses; the etcd calls of taking over (the
// campaign, reading the last id, recording the new one) are a request each.
const absl::Duration kTakeOver = kEtcdPoll + 3 * kEtcdRequest + kQuorumTick;
// (a): the old leader's lease lapses unrenewed and etcd deletes its key.
const absl::Duration kBoundCutFromEtcd =
    kLeaseTtl + kEtcdExpiryCheck + kTakeOver;
// (b): the leader steps down (its revoked lease frees the key at once); a
// replica's call in flight to it fails within the liveness bound.
const absl::Duration kBoundCutFromReplicas =
    kStepDownAfter + kQuorumTick + kTakeOver + kLiveness + kLivenessPingTimeout;
// (d): the frozen leader's lease lapses unrenewed, as in (a); the replicas
// found it silent long before (a heartbeat unanswered for 1 s) and call the
// follower, which answers within a quorum poll's pause once it leads.
const absl::Duration kBoundFrozenLeader =
    kLeaseTtl + kEtcdExpiryCheck + kTakeOver;
// (c): training needs no etcd while its members stay: no pause beyond a
// step's own pace (replica_child's 200 ms) and scheduling.
constexpr absl::Duration kMaxStepGap = absl::Seconds(1);
// Scheduling on a loaded 2-core machine under the sanitizers.
constexpr absl::Duration kSlack = absl::Seconds(1);

// replica_child heartbeats every 100 ms, each call taking a little.
constexpr absl::Duration kReplicaCallInterval = absl::Milliseconds(150);
// The step-down's time is the lighthouse's wall clock, the cut the test's:
// the same machine's, read a few system calls apart.
constexpr absl::Duration kLocalClockSkew = absl::Milliseconds(5);

constexpr absl::Duration kSetUpTimeout = absl::Seconds(30);
constexpr absl::Duration kPollEvery = absl::Milliseconds(50);
constexpr int kReplicas = 3;
constexpr char kAllMembers[] = "replica_0,replica_1,replica_2";

// Whether etcd answers the test (root, never cut off on its own) at once.
bool EtcdAnswers(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(std::chrono::milliseconds(300));
  client.set_read_timeout(std::chrono::milliseconds(300));
  httplib::Result health = client.Get("/health");
  return health && health->status == 200;
}

int64_t IntOf(const nlohmann::json& json, const char* key) {
  auto it = json.find(key);
  if (it == json.end()) return 0;
  if (it->is_number_integer()) return it->get<int64_t>();
  int64_t value = 0;
  if (it->is_string()) absl::SimpleAtoi(it->get<std::string>(), &value);
  return value;
}

// One read of a lighthouse's status page.
struct Observation {
  absl::Time now;  // the lighthouse's, when it answered
  bool leader = false;
  std::string authority_trouble;
  absl::Time leader_since;  // UnixEpoch when not leading
  std::string leader_address;
  std::string last_step_down;
};

// A quorum a replica printed, and when the test first saw it.
struct SeenQuorum {
  ObservedQuorum quorum;
  absl::Time seen;
};

class LighthousePartitionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<NetworkFaults> faults =
        test_util::StartNetworkFaultTest(kLiveness);
    if (!faults.ok()) GTEST_SKIP() << faults.status();
    faults_.emplace(*std::move(faults));
    absl::StatusOr<std::unique_ptr<EtcdProcess>> etcd = EtcdProcess::Start();
    ASSERT_TRUE(etcd.ok()) << etcd.status();
    etcd_ = *std::move(etcd);
    for (int i = 0; i < 2; ++i) {
      absl::StatusOr<int> port = PickFreePort();
      ASSERT_TRUE(port.ok()) << port.status();
      ports_.push_back(*port);
      addresses_.push_back(absl::StrCat("127.0.0.1:", *port));
    }
    observations_.resize(2);

    // The first one started leads.
    ASSERT_NO_FATAL_FAILURE(StartLighthouseNumber(0));
    ASSERT_TRUE(ObserveUntil([&] { return Last(0).leader; }, kSetUpTimeout))
        << lighthouses_[0].process->Tail();
    ASSERT_NO_FATAL_FAILURE(StartLighthouseNumber(1));
    // The follower first: replicas must follow it to the leader.
    for (int i = 0; i < kReplicas; ++i) {
      absl::StatusOr<std::unique_ptr<LoggedProcess>> replica = StartReplica(
          absl::StrCat("replica_", i), addresses_[1] + "," + addresses_[0]);
      ASSERT_TRUE(replica.ok()) << replica.status();
      replicas_.push_back(*std::move(replica));
    }
    ASSERT_TRUE(ObserveUntil(
        [&] {
          for (const std::vector<SeenQuorum>& seen : seen_) {
            if (seen.empty() || seen.back().quorum.members != kAllMembers ||
                seen.back().quorum.lighthouse != addresses_[0]) {
              return false;
            }
          }
          return true;
        },
        kSetUpTimeout))
        << "no quorum of all three from " << addresses_[0] << "\n"
        << Tails();
    EXPECT_FALSE(Last(1).leader);
    EXPECT_EQ(Last(1).leader_address, addresses_[0]);
  }

  void TearDown() override {
    if (faults_.has_value()) {
      EXPECT_TRUE(faults_->Heal().ok());
    }
    // A sanitizer's report in a child reaches only its output: the child is
    // killed, not left to exit with the report's status.
    std::vector<LoggedProcess*> children;
    for (LighthouseProcess& lighthouse : lighthouses_) {
      children.push_back(lighthouse.process.get());
    }
    for (std::unique_ptr<LoggedProcess>& replica : replicas_) {
      children.push_back(replica.get());
    }
    for (LoggedProcess* child : children) {
      for (const std::string& line : child->Lines()) {
        EXPECT_FALSE(absl::StrContains(line, "Sanitizer"))
            << child->name() << ": " << line << "\n"
            << child->Tail(60);
      }
    }
    replicas_.clear();
    lighthouses_.clear();
    etcd_.reset();
  }

  // The user lighthouse `i` runs as.
  static int UserOf(int i) { return kFirstFaultUser + i; }

  void StartLighthouseNumber(int i) {
    const std::vector<std::string> argv = test_util::RunAsUser(
        UserOf(i), {kLighthouse, "--http_port=0", "--address=" + addresses_[i],
                    "--etcd=" + etcd_->endpoint(),
                    absl::StrCat("--etcd_lease_ttl_ms=",
                                 absl::ToInt64Milliseconds(kLeaseTtl)),
                    "--min_replicas=2",
                    absl::StrCat("--heartbeat_timeout_ms=",
                                 absl::ToInt64Milliseconds(kHeartbeatTimeout)),
                    absl::StrCat("--join_timeout_ms=",
                                 absl::ToInt64Milliseconds(kJoinTimeout)),
                    absl::StrCat("--quorum_tick_ms=",
                                 absl::ToInt64Milliseconds(kQuorumTick)),
                    absl::StrCat("--liveness_timeout_ms=",
                                 absl::ToInt64Milliseconds(kLiveness))});
    absl::StatusOr<std::unique_ptr<LoggedProcess>> process =
        LoggedProcess::Start(absl::StrCat("lighthouse ", i), argv);
    ASSERT_TRUE(process.ok()) << process.status();
    LighthouseProcess lighthouse;
    lighthouse.process = *std::move(process);
    lighthouse.address = addresses_[i];
    absl::StatusOr<std::string> page =
        lighthouse.process->WaitForLine("status page at ", kSetUpTimeout);
    ASSERT_TRUE(page.ok()) << page.status();
    lighthouse.status_url = page->substr(page->find("status page at ") + 15);
    ASSERT_EQ(lighthouses_.size(), static_cast<size_t>(i));
    lighthouses_.push_back(std::move(lighthouse));
  }

  // Reads both status pages and every replica's new quorums once.
  void Poll() {
    for (size_t i = 0; i < lighthouses_.size(); ++i) {
      if (frozen_[i]) continue;  // it would not answer
      absl::StatusOr<nlohmann::json> status =
          FetchStatus(lighthouses_[i].status_url);
      // The pages are never cut off: a failed read is the lighthouse's.
      if (!status.ok()) {
        ADD_FAILURE() << "lighthouse " << i << ": " << status.status();
        continue;
      }
      Observation observation;
      observation.now = absl::FromUnixMicros(IntOf(*status, "now_us"));
      observation.leader = status->value("is_leader", false);
      observation.leader_since =
          absl::FromUnixMicros(IntOf(*status, "leader_since_us"));
      observation.leader_address = status->value("leader_address", "");
      observation.last_step_down = status->value("last_step_down", "");
      observation.authority_trouble = status->value("authority_trouble", "");
      step_down_after_ms_[i] = IntOf(*status, "step_down_after_ms");
      observations_[i].push_back(std::move(observation));
    }
    const absl::Time now = absl::Now();
    last_poll_ = now;
    seen_.resize(replicas_.size());
    for (size_t r = 0; r < replicas_.size(); ++r) {
      std::vector<ObservedQuorum> quorums = ObservedQuorums(*replicas_[r]);
      for (size_t q = seen_[r].size(); q < quorums.size(); ++q) {
        seen_[r].push_back(SeenQuorum{quorums[q], now});
      }
    }
  }

  // Polls until `done` holds (true) or `timeout` passed (false).
  bool ObserveUntil(const std::function<bool()>& done, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (true) {
      Poll();
      if (done()) return true;
      if (absl::Now() >= deadline) return false;
      absl::SleepFor(kPollEvery);
    }
  }

  void ObserveFor(absl::Duration duration) {
    ObserveUntil([] { return false; }, duration);
  }

  // The last read of lighthouse `i`'s page; an empty one before any.
  const Observation& Last(int i) const {
    static const Observation* const kNone = new Observation();
    return observations_[i].empty() ? *kNone : observations_[i].back();
  }

  int64_t LargestId() const {
    int64_t largest = 0;
    for (const std::vector<SeenQuorum>& seen : seen_) {
      for (const SeenQuorum& quorum : seen) {
        largest = std::max(largest, quorum.quorum.id);
      }
    }
    return largest;
  }

  // How long after `since` the last replica got its first quorum since then
  // from lighthouse `i` with an id above `above`; nullopt (a failure) when
  // one got none within `timeout`.
  std::optional<absl::Duration> AwaitQuorumsFrom(int i, int64_t above,
                                                 absl::Time since,
                                                 absl::Duration timeout) {
    auto first_from = [&](int r) -> std::optional<absl::Time> {
      for (const SeenQuorum& seen : seen_[r]) {
        if (seen.seen >= since && seen.quorum.lighthouse == addresses_[i] &&
            seen.quorum.id > above) {
          return seen.seen;
        }
      }
      return std::nullopt;
    };
    const bool all = ObserveUntil(
        [&] {
          for (int r = 0; r < kReplicas; ++r) {
            if (!first_from(r).has_value()) return false;
          }
          return true;
        },
        timeout);
    if (!all) {
      ADD_FAILURE() << "not every replica got a quorum from lighthouse " << i
                    << " above " << above << " within "
                    << absl::FormatDuration(timeout) << "\n"
                    << Tails();
      return std::nullopt;
    }
    absl::Duration last = absl::ZeroDuration();
    for (int r = 0; r < kReplicas; ++r) {
      last = std::max(last, *first_from(r) - since);
    }
    return last;
  }

  // The longest any replica went without a new quorum between `from` and
  // the last poll.
  absl::Duration LongestStepGap(absl::Time from) const {
    absl::Duration longest = absl::ZeroDuration();
    for (const std::vector<SeenQuorum>& seen : seen_) {
      absl::Time previous = from;
      for (const SeenQuorum& quorum : seen) {
        if (quorum.seen < from) continue;
        longest = std::max(longest, quorum.seen - previous);
        previous = quorum.seen;
      }
      longest = std::max(longest, last_poll_ - previous);
    }
    return longest;
  }

  // No two lighthouses led at the same instant. A page that says it leads
  // says since when, without a break; two such spans of different
  // lighthouses must not overlap. (Two pages read one after the other may
  // both say they lead when the leadership moved between the reads; their
  // spans then do not overlap.)
  void ExpectNeverTwoLeaders() const {
    std::vector<std::pair<absl::Time, absl::Time>> spans[2];
    for (int i = 0; i < 2; ++i) {
      for (const Observation& observation : observations_[i]) {
        if (!observation.leader) continue;
        const absl::Time since = observation.leader_since > absl::UnixEpoch()
                                     ? observation.leader_since
                                     : observation.now;
        spans[i].emplace_back(since, observation.now);
      }
    }
    int overlaps = 0;
    for (const auto& [since0, now0] : spans[0]) {
      for (const auto& [since1, now1] : spans[1]) {
        if (since0 <= now1 && since1 <= now0 && ++overlaps <= 3) {
          ADD_FAILURE() << "both lighthouses led: lighthouse 0 from " << since0
                        << " to " << now0 << ", lighthouse 1 from " << since1
                        << " to " << now1;
        }
      }
    }
    EXPECT_EQ(overlaps, 0);
    EXPECT_GT(spans[0].size() + spans[1].size(), 0u);
  }

  // Quorum ids as the replicas saw them: each replica's only grow, a new
  // quorum (other members or another lighthouse) has a larger id than
  // every one before it, and no id was issued for two different quorums.
  void ExpectQuorumIdsNeverReused() const {
    std::map<int64_t, std::string> issued;  // id → "lighthouse members"
    for (int r = 0; r < kReplicas; ++r) {
      const SeenQuorum* previous = nullptr;
      for (const SeenQuorum& seen : seen_[r]) {
        const ObservedQuorum& quorum = seen.quorum;
        const std::string what = quorum.lighthouse + " " + quorum.members;
        auto [it, inserted] = issued.emplace(quorum.id, what);
        EXPECT_EQ(it->second, what)
            << "quorum id " << quorum.id << " issued twice";
        if (previous != nullptr) {
          const ObservedQuorum& before = previous->quorum;
          if (before.lighthouse == quorum.lighthouse &&
              before.members == quorum.members) {
            EXPECT_GE(quorum.id, before.id) << "replica " << r;
          } else {
            EXPECT_GT(quorum.id, before.id)
                << "replica " << r << ": quorum " << quorum.id << " from "
                << what << " after quorum " << before.id << " from "
                << before.lighthouse << " " << before.members;
          }
        }
        previous = &seen;
      }
    }
  }

  // Every id lighthouse `later` issued is above every id `earlier` did.
  void ExpectIdsAbove(int later, int earlier) const {
    int64_t earlier_largest = 0;
    int64_t later_smallest = INT64_MAX;
    for (const std::vector<SeenQuorum>& seen : seen_) {
      for (const SeenQuorum& quorum : seen) {
        if (quorum.quorum.lighthouse == addresses_[earlier]) {
          earlier_largest = std::max(earlier_largest, quorum.quorum.id);
        } else if (quorum.quorum.lighthouse == addresses_[later]) {
          later_smallest = std::min(later_smallest, quorum.quorum.id);
        }
      }
    }
    EXPECT_GT(later_smallest, earlier_largest);
  }

  int LinesOf(int i, const std::string& text) const {
    int count = 0;
    for (const std::string& line : lighthouses_[i].process->Lines()) {
      count += absl::StrContains(line, text);
    }
    return count;
  }

  std::string Tails() const {
    std::string tails;
    for (const LighthouseProcess& lighthouse : lighthouses_) {
      absl::StrAppend(&tails, lighthouse.process->name(), ":\n",
                      lighthouse.process->Tail(), "\n");
    }
    for (const std::unique_ptr<LoggedProcess>& replica : replicas_) {
      absl::StrAppend(&tails, replica->name(), ":\n", replica->Tail(30), "\n");
    }
    return tails;
  }

  std::optional<NetworkFaults> faults_;
  std::unique_ptr<EtcdProcess> etcd_;
  std::vector<int> ports_;
  std::vector<std::string> addresses_;
  std::vector<LighthouseProcess> lighthouses_;
  std::vector<std::unique_ptr<LoggedProcess>> replicas_;
  std::vector<std::vector<Observation>> observations_;
  std::vector<std::vector<SeenQuorum>> seen_;
  int64_t step_down_after_ms_[2] = {0, 0};
  bool frozen_[2] = {false, false};  // stopped with SIGSTOP
  absl::Time last_poll_;
};

// (a) The leader's etcd connections go silent; the replicas still reach
// it. Its lease lapses unrenewed (it stops leading on its own clock first),
// etcd deletes its key and the follower leads.
TEST_F(LighthousePartitionTest, LeaderCutOffFromEtcdHandsOverToTheFollower) {
  const int64_t before = LargestId();
  const absl::Time cut = absl::Now();
  ASSERT_TRUE(
      faults_->BlackholeUserToPort(UserOf(0), etcd_->client_port()).ok());
  const std::optional<absl::Duration> resumed = AwaitQuorumsFrom(
      1, before, cut, kBoundCutFromEtcd + kSlack + absl::Seconds(10));
  ASSERT_TRUE(resumed.has_value());
  std::printf(
      "(a) leader cut off from etcd: every replica resumed after %s "
      "under the other lighthouse (bound %s)\n",
      absl::FormatDuration(*resumed).c_str(),
      absl::FormatDuration(kBoundCutFromEtcd).c_str());
  EXPECT_LT(*resumed, kBoundCutFromEtcd + kSlack);
  EXPECT_FALSE(Last(0).leader);

  // Healed, the former leader finds its lease gone and follows.
  ASSERT_TRUE(faults_->Heal().ok());
  EXPECT_TRUE(ObserveUntil(
      [&] {
        return !Last(0).leader && Last(0).leader_address == addresses_[1] &&
               Last(1).leader;
      },
      kLeaseTtl + absl::Seconds(10)))
      << Tails();
  ObserveFor(absl::Seconds(1));
  EXPECT_FALSE(Last(0).leader);
  EXPECT_TRUE(Last(1).leader);
  // Its replicas reached it: nothing to step down for.
  EXPECT_EQ(LinesOf(0, "steps down as leader"), 0) << Tails();
  EXPECT_EQ(Last(0).last_step_down, "");

  ExpectNeverTwoLeaders();
  ExpectQuorumIdsNeverReused();
  ExpectIdsAbove(1, 0);
}

// (b) The replicas' connections to the leader go silent; etcd still hears
// it, so its lease holds. No replica calls it, so it steps down once, says
// so in its log and on its page, and the follower leads.
TEST_F(LighthousePartitionTest, LeaderCutOffFromReplicasStepsDown) {
  const int64_t before = LargestId();
  const absl::Time cut = absl::Now();
  ASSERT_TRUE(faults_->Blackhole(ports_[0], Traffic::kBothWays).ok());
  const std::optional<absl::Duration> resumed = AwaitQuorumsFrom(
      1, before, cut, kBoundCutFromReplicas + kSlack + absl::Seconds(10));
  ASSERT_TRUE(resumed.has_value());
  // "stepped down at 2026-11-29T04:17:29.123Z: no replica called for ...".
  const std::string said = Last(0).last_step_down;
  absl::Time stepped_down;
  std::string error;
  ASSERT_TRUE(absl::ParseTime("stepped down at %Y-%m-%dT%H:%M:%E*SZ",
                              said.substr(0, said.find(": ")), &stepped_down,
                              &error))
      << "'" << said << "': " << error << "\n"
      << Tails();
  EXPECT_THAT(said, HasSubstr(": no replica called for "));
  std::printf(
      "(b) leader cut off from the replicas: detected after %s, when it "
      "stepped down (bound %s); every replica resumed after %s under "
      "the other lighthouse (bound %s)\n",
      absl::FormatDuration(stepped_down - cut).c_str(),
      absl::FormatDuration(kStepDownAfter + kQuorumTick).c_str(),
      absl::FormatDuration(*resumed).c_str(),
      absl::FormatDuration(kBoundCutFromReplicas).c_str());
  EXPECT_EQ(step_down_after_ms_[0], absl::ToInt64Milliseconds(kStepDownAfter));
  // Not before the bound: calls came until the cut, or at most one
  // heartbeat interval of the replicas before it.
  EXPECT_GE(stepped_down - cut,
            kStepDownAfter - kReplicaCallInterval - kLocalClockSkew);
  EXPECT_LT(stepped_down - cut, kStepDownAfter + kQuorumTick + kSlack);
  EXPECT_LT(*resumed, kBoundCutFromReplicas + kSlack);
  EXPECT_FALSE(Last(0).leader);

  // Healed, it stays a follower (the other holds the key), and said so once.
  ASSERT_TRUE(faults_->Heal().ok());
  ObserveFor(kLeaseTtl + absl::Seconds(1));
  EXPECT_FALSE(Last(0).leader);
  EXPECT_EQ(Last(0).leader_address, addresses_[1]);
  EXPECT_TRUE(Last(1).leader);
  EXPECT_EQ(LinesOf(0, "steps down as leader: no replica called for"), 1)
      << Tails();
  EXPECT_EQ(LinesOf(1, "steps down as leader"), 0) << Tails();
  for (const Observation& observation : observations_[0]) {
    if (observation.now > stepped_down) {
      EXPECT_FALSE(observation.leader) << "led again at " << observation.now;
    }
  }

  ExpectNeverTwoLeaders();
  ExpectQuorumIdsNeverReused();
  ExpectIdsAbove(1, 0);
}

// (c) etcd goes silent for everyone, for less than the lease: the leader
// keeps leading (its lease outlives the cut), the follower does not take
// over, and training, which needs etcd only for a new generation, goes on.
TEST_F(LighthousePartitionTest, EtcdCutOffForLessThanTheLeaseChangesNothing) {
  const int64_t before = LargestId();
  const absl::Time term = Last(0).leader_since;
  const absl::Time cut = absl::Now();
  ASSERT_TRUE(
      faults_->Blackhole(etcd_->client_port(), Traffic::kBothWays).ok());
  // Cut off indeed.
  EXPECT_FALSE(EtcdAnswers(etcd_->client_port()));
  ObserveFor(kEtcdCut - (absl::Now() - cut));
  ASSERT_TRUE(faults_->Heal().ok());
  const absl::Time healed = absl::Now();
  EXPECT_TRUE(EtcdAnswers(etcd_->client_port()));
  std::vector<size_t> at_heal;
  for (const std::vector<SeenQuorum>& seen : seen_) {
    at_heal.push_back(seen.size());
  }
  const bool stepped = ObserveUntil(
      [&] {
        for (int r = 0; r < kReplicas; ++r) {
          if (seen_[r].size() <= at_heal[r]) return false;
        }
        return true;
      },
      absl::Seconds(10));
  EXPECT_TRUE(stepped) << Tails();
  const absl::Duration after_heal = absl::Now() - healed;
  // Long enough for a lease the cut had spent to lapse.
  ObserveFor(kLeaseTtl);
  const absl::Duration gap = LongestStepGap(cut);
  std::printf(
      "(c) etcd cut off for %s: the longest a replica went without "
      "a quorum was %s (bound %s); each rejoined after %s of the "
      "heal\n",
      absl::FormatDuration(kEtcdCut).c_str(), absl::FormatDuration(gap).c_str(),
      absl::FormatDuration(kMaxStepGap).c_str(),
      absl::FormatDuration(after_heal).c_str());
  EXPECT_LT(gap, kMaxStepGap);

  // The same leader in the same term at every read, and the same generation.
  for (const Observation& observation : observations_[0]) {
    if (observation.now < cut) continue;
    EXPECT_TRUE(observation.leader) << "not leading at " << observation.now;
    EXPECT_EQ(observation.leader_since, term);
  }
  for (const Observation& observation : observations_[1]) {
    EXPECT_FALSE(observation.leader) << "led at " << observation.now;
  }
  for (const std::vector<SeenQuorum>& seen : seen_) {
    for (const SeenQuorum& quorum : seen) {
      if (quorum.seen < cut) continue;
      EXPECT_EQ(quorum.quorum.id, before);
      EXPECT_EQ(quorum.quorum.lighthouse, addresses_[0]);
    }
  }
  EXPECT_EQ(LinesOf(0, "no longer the leader"), 0) << Tails();

  ExpectNeverTwoLeaders();
  ExpectQuorumIdsNeverReused();
}

// (d) The leader freezes: SIGSTOP, so that it answers nothing and closes
// nothing, as a hung host does. Its lease lapses unrenewed and the
// follower leads; the replicas, which found it silent by an unanswered
// heartbeat, avoid it meanwhile (though the follower still names it until
// its lease lapses) and go to the new leader at once. Woken up, it finds its
// lease gone and does not lead, nor issue an id, again.
TEST_F(LighthousePartitionTest, FrozenLeaderIsLeftForTheFollower) {
  const int64_t before = LargestId();
  const absl::Time frozen = absl::Now();
  lighthouses_[0].process->Stop();
  frozen_[0] = true;
  const std::optional<absl::Duration> resumed = AwaitQuorumsFrom(
      1, before, frozen, kBoundFrozenLeader + kSlack + absl::Seconds(20));
  ASSERT_TRUE(resumed.has_value());
  std::printf(
      "(d) leader frozen: every replica resumed after %s under the other "
      "lighthouse (bound %s)\n",
      absl::FormatDuration(*resumed).c_str(),
      absl::FormatDuration(kBoundFrozenLeader).c_str());
  EXPECT_LT(*resumed, kBoundFrozenLeader + kSlack);

  ObserveFor(absl::Seconds(1));
  lighthouses_[0].process->Continue();
  const absl::Time woken = absl::Now();
  frozen_[0] = false;
  std::vector<size_t> at_wake;
  for (const std::vector<SeenQuorum>& seen : seen_) {
    at_wake.push_back(seen.size());
  }
  ObserveFor(kLeaseTtl + absl::Seconds(1));
  EXPECT_FALSE(Last(0).leader);
  EXPECT_EQ(Last(0).leader_address, addresses_[1]);
  EXPECT_TRUE(Last(1).leader);
  for (const Observation& observation : observations_[0]) {
    if (observation.now > frozen) {
      EXPECT_FALSE(observation.leader) << "led again at " << observation.now;
    }
  }
  // Training went on under the new leader alone after the wake.
  for (int r = 0; r < kReplicas; ++r) {
    EXPECT_GT(seen_[r].size(), at_wake[r]) << "replica " << r << "\n"
                                           << Tails();
    for (size_t q = at_wake[r]; q < seen_[r].size(); ++q) {
      EXPECT_EQ(seen_[r][q].quorum.lighthouse, addresses_[1])
          << "replica " << r << " after the wake at " << woken;
    }
  }

  ExpectNeverTwoLeaders();
  ExpectQuorumIdsNeverReused();
  ExpectIdsAbove(1, 0);
}

// (e) etcd dies for longer than the lease. No lighthouse may lead without
// it; both say so once in their logs, on their pages (neither names a
// leader, rather than contradicting each other) and in the error a
// replica's call gets. On etcd's return the leader's lease, which etcd
// kept, is renewed and training resumes within a second.
TEST_F(LighthousePartitionTest, EtcdLostIsSaidOnceAndTrainingResumesOnReturn) {
  const int64_t before = LargestId();
  etcd_->Kill();
  const absl::Time killed = absl::Now();
  EXPECT_TRUE(ObserveUntil(
      [&] {
        return !Last(0).leader && !Last(1).leader &&
               Last(0).leader_address.empty() &&
               Last(1).leader_address.empty() &&
               absl::StrContains(Last(0).authority_trouble,
                                 "etcd unreachable for") &&
               absl::StrContains(Last(1).authority_trouble,
                                 "etcd unreachable for");
      },
      kLeaseTtl + kSlack + absl::Seconds(5)))
      << Tails();
  const absl::Time leaderless = absl::Now();
  std::printf("(e) etcd killed: no lighthouse led or named a leader after %s\n",
              absl::FormatDuration(leaderless - killed).c_str());
  // What a replica's call is told.
  absl::StatusOr<std::unique_ptr<LighthouseClient>> client =
      LighthouseClient::Create(addresses_);
  ASSERT_TRUE(client.ok()) << client.status();
  proto::HeartbeatRequest beat;
  beat.set_replica_id("observer");
  beat.set_incarnation(1);
  const absl::Status refused = (*client)->Heartbeat(beat, absl::Seconds(1));
  EXPECT_THAT(refused.message(), HasSubstr("is not the leader (leader: "
                                           "unknown; etcd unreachable for"));
  ObserveFor(absl::Seconds(2));

  ASSERT_TRUE(etcd_->Restart().ok());
  const absl::Time back = absl::Now();
  for (int r = 0; r < kReplicas; ++r) {
    for (const SeenQuorum& seen : seen_[r]) {
      EXPECT_FALSE(seen.seen > leaderless && seen.seen < back)
          << "replica " << r << " got quorum " << seen.quorum.id
          << " while no lighthouse led\n"
          << Tails();
    }
  }
  // The quorum may go on with the same id (the same participants ask
  // again, and no other lighthouse can have led meanwhile), or a new one
  // forms when a request was withdrawn during the outage.
  const std::optional<absl::Duration> resumed =
      AwaitQuorumsFrom(0, before - 1, back, absl::Seconds(20));
  ASSERT_TRUE(resumed.has_value());
  std::printf(
      "(e) etcd back after %s: every replica had a quorum %s later\n",
      absl::FormatDuration(back - killed).c_str(),
      absl::FormatDuration(*resumed).c_str());
  EXPECT_LT(*resumed, absl::Seconds(1) + kSlack);
  ObserveFor(absl::Milliseconds(500));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(LinesOf(i, "etcd does not answer"), 1) << Tails();
    EXPECT_EQ(LinesOf(i, "etcd answers again after"), 1) << Tails();
    EXPECT_EQ(Last(i).authority_trouble, "");
  }
  ExpectNeverTwoLeaders();
  ExpectQuorumIdsNeverReused();
}

}  // namespace
}  // namespace sluice::lighthouse::testing
