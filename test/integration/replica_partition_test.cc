// Replica groups under the failures a real network makes (issue 29): a host
// that vanishes or a partition sends no reset, so only liveness tells the
// lighthouse and the peers that a replica is gone. Each replica is a
// manager_replica process running as a fault user of its own
// (test/util/network_faults) under a lighthouse in this process, all on
// 127.0.0.1 in a network namespace of the test's own, so that one replica
// is cut off alone, from everyone or from some. Liveness is 1 s everywhere
// and the lighthouse's heartbeat timeout 30 s: a replica lost within the
// bound below was lost by liveness, never by missed heartbeats.
//
// A quorum is consistent when every replica in it agrees on its id and
// members (the same generation, size and ranks by replica id on each) and
// no replica commits a step that the others of its quorum did not: every
// step committed carries the same state checksum on every replica that
// committed it, and a replica cut off commits nothing alone.
//
// Every wait is bounded; replicas are killed and reaped whatever happens.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/collective/store_service.h"
#include "sluice/lighthouse/lighthouse.h"
#include "sluice/support/liveness.h"
#include "test/util/child_process.h"
#include "test/util/network_faults.h"
#include "test/util/wait_until.h"

namespace sluice::ft {
namespace {

using ::sluice::lighthouse::Lighthouse;
using ::sluice::lighthouse::LighthouseOptions;
using ::sluice::lighthouse::ReplicaStatus;
using ::sluice::test_util::kFirstFaultUser;
using ::sluice::test_util::NetworkFaults;
using ::sluice::test_util::RunAsUser;
using ::sluice::test_util::Traffic;
using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;
using ::sluice::testing::WaitUntil;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr absl::Duration kLiveness = absl::Seconds(1);
// What the bound leaves for a loaded machine: the lighthouse's wait slices
// (20 ms) and tick (100 ms), a lost member's event on its way to the
// peers, their abort, a line written and read back.
constexpr absl::Duration kMargin = absl::Seconds(2);
// Silence for the liveness timeout, then a ping (or TCP keepalive probe)
// unanswered for a second: a silent peer is known by then, plus the margin.
absl::Duration Bound() { return kLiveness + kLivenessPingTimeout + kMargin; }
// Far above Bound(): nothing in these tests is detected by heartbeats.
constexpr absl::Duration kHeartbeatTimeout = absl::Seconds(30);
// Starting a replica and its first steps, and a run to its last step.
constexpr absl::Duration kStartup = absl::Seconds(60);
constexpr absl::Duration kRun = absl::Seconds(90);

// The step whose allreduce replica C holds up (stopped before its part)
// while the network is cut: late enough that A and B, started after C,
// are in its quorum by then.
constexpr int64_t kFaultStep = 3;

// The start of a line of the fault step ("commit step=3 ").
std::string FaultStepLine(const std::string& kind) {
  return absl::StrCat(kind, " step=", kFaultStep, " ");
}

// Each replica's user: BlackholeUser and its kind cut off that one alone.
constexpr int kUserA = kFirstFaultUser;
constexpr int kUserB = kFirstFaultUser + 1;
constexpr int kUserC = kFirstFaultUser + 2;

// The value of `key=` in `line` ("commit step=3 generation=2 commit=1").
std::string Field(const std::string& line, const std::string& key) {
  for (absl::string_view part : absl::StrSplit(line, ' ')) {
    if (absl::StartsWith(part, key + "=")) {
      return std::string(part.substr(key.size() + 1));
    }
  }
  return "";
}

int64_t IntField(const std::string& line, const std::string& key) {
  int64_t value = -1;
  EXPECT_TRUE(absl::SimpleAtoi(Field(line, key), &value))
      << "no " << key << " in '" << line << "'";
  return value;
}

// When the replica printed `line`, by its at_ms field.
absl::Time At(const std::string& line) {
  return absl::FromUnixMillis(IntField(line, "at_ms"));
}

std::string SecondsText(absl::Duration d) {
  return absl::StrCat(absl::ToDoubleMilliseconds(d) / 1000.0, " s");
}

// Flags of a replica of 1024 floats that trains to `until_step`, each step
// at least 200 ms (so that peers that start a little apart meet in the
// same quorum before the fault step), with a collective timeout far above
// the bound: a collective that fails within the bound failed by liveness.
std::vector<std::string> Flags(int64_t until_step,
                               std::vector<std::string> more = {}) {
  std::vector<std::string> flags = {
      "--floats=1024", absl::StrCat("--until_step=", until_step),
      "--min_step_ms=200", "--collective_timeout_ms=60000"};
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

// One manager_replica process running as a fault user, killed and reaped
// on destruction.
class Replica {
 public:
  Replica(const std::string& lighthouse, std::string id, int uid,
          const std::vector<std::string>& flags,
          std::vector<std::string> environment = {})
      : id_(std::move(id)),
        child_(Options(lighthouse, id_, uid, flags, std::move(environment))) {
    EXPECT_TRUE(child_.started()) << child_.start_error();
  }

  const std::string& id() const { return id_; }

  // The exit code once the process exits within `timeout`; none (and the
  // process is killed) otherwise.
  std::optional<int> Wait(absl::Duration timeout) {
    const int code = child_.WaitForExit(timeout);
    child_.Kill();
    if (code < 0) return std::nullopt;
    return code;
  }
  bool Running() { return child_.Running(); }

  std::vector<std::string> LinesStarting(const std::string& prefix) const {
    std::vector<std::string> found;
    for (const std::string& line : child_.Lines()) {
      if (absl::StartsWith(line, prefix)) found.push_back(line);
    }
    return found;
  }
  // The first line starting with `prefix` that `matches` within `timeout`.
  std::optional<std::string> WaitForLine(
      const std::string& prefix, absl::Duration timeout,
      const std::function<bool(const std::string&)>& matches =
          [](const std::string&) { return true; }) const {
    return child_.WaitForLineMatching(
        [&](const std::string& line) {
          return absl::StartsWith(line, prefix) && matches(line);
        },
        timeout);
  }
  std::string Stderr() const { return child_.Stderr(); }
  std::string Output() const {
    return absl::StrCat("--- ", id_, " stdout:\n",
                        absl::StrJoin(child_.Lines(), "\n"), "\n--- ", id_,
                        " stderr:\n", child_.Stderr());
  }

  // The checksum of the state at each step it printed, the last print of
  // a step winning (a heal replaces the state at the step it reached).
  std::map<int64_t, std::string> Crcs() const {
    std::map<int64_t, std::string> crcs;
    for (const std::string& line : LinesStarting("state ")) {
      crcs[IntField(line, "step")] = Field(line, "crc");
    }
    return crcs;
  }

 private:
  static ChildProcessOptions Options(const std::string& lighthouse,
                                     const std::string& id, int uid,
                                     const std::vector<std::string>& flags,
                                     std::vector<std::string> environment) {
    std::vector<std::string> argv = {
        Runfile("test/integration/manager_replica"),
        "--lighthouse=" + lighthouse, "--replica_id=" + id};
    argv.insert(argv.end(), flags.begin(), flags.end());
    ChildProcessOptions options;
    options.argv = RunAsUser(uid, std::move(argv));
    environment.push_back(absl::StrCat("SLUICE_LIVENESS_TIMEOUT_MS=",
                                       absl::ToInt64Milliseconds(kLiveness)));
    options.environment = std::move(environment);
    // The test's own fault and replica variables are not the replica's.
    options.unset_environment = {"SLUICE_FAULTS", "SLUICE_LIGHTHOUSE",
                                 "SLUICE_REPLICA_ID"};
    options.name = id;
    options.stderr_to = ChildProcessOptions::Stderr::kOwnFile;
    return options;
  }

  const std::string id_;
  ChildProcess child_;
};

// Every replica in `replicas` that printed a quorum agrees on it: the same
// size, and ranks in the order of their replica ids.
void ExpectConsistentQuorums(const std::vector<const Replica*>& replicas) {
  // generation -> replica id -> (rank, size)
  std::map<int64_t, std::map<std::string, std::pair<int64_t, int64_t>>> seen;
  for (const Replica* r : replicas) {
    for (const std::string& line : r->LinesStarting("quorum ")) {
      seen[IntField(line, "generation")][r->id()] = {IntField(line, "rank"),
                                                     IntField(line, "size")};
    }
  }
  for (const auto& [generation, members] : seen) {
    std::set<int64_t> sizes;
    int64_t last_rank = -1;
    for (const auto& [id, rank_size] : members) {  // by replica id
      sizes.insert(rank_size.second);
      EXPECT_GT(rank_size.first, last_rank)
          << "generation " << generation << ": " << id << " has rank "
          << rank_size.first << " after a replica of rank " << last_rank;
      EXPECT_LT(rank_size.first, rank_size.second);
      last_rank = rank_size.first;
    }
    EXPECT_EQ(sizes.size(), 1u) << "generation " << generation
                                << " has different sizes on its replicas";
    EXPECT_LE(members.size(), static_cast<size_t>(*sizes.begin()));
  }
}

// Every step committed by more than one of `replicas` left the same state
// on each.
void ExpectSameStates(const std::vector<const Replica*>& replicas) {
  std::map<int64_t, std::map<std::string, std::string>> by_step;
  for (const Replica* r : replicas) {
    for (const auto& [step, crc] : r->Crcs()) by_step[step][r->id()] = crc;
  }
  for (const auto& [step, crcs] : by_step) {
    std::set<std::string> distinct;
    for (const auto& [id, crc] : crcs) distinct.insert(crc);
    EXPECT_EQ(distinct.size(), 1u)
        << "step " << step << ": "
        << absl::StrJoin(crcs, ", ", absl::PairFormatter("="));
  }
}

// The line of `replica` that committed `step` (commit=1), "" if none.
std::string CommitOf(const Replica& replica, int64_t step) {
  for (const std::string& line :
       replica.LinesStarting(absl::StrCat("commit step=", step, " "))) {
    if (IntField(line, "commit") == 1) return line;
  }
  return "";
}

// The quorum line of `replica` for `generation`, "" if none.
std::string QuorumOf(const Replica& replica, int64_t generation) {
  for (const std::string& line : replica.LinesStarting("quorum ")) {
    if (IntField(line, "generation") == generation) return line;
  }
  return "";
}

struct Trio {
  std::unique_ptr<Replica> a, b, c;
};

class ReplicaPartitionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(RunAsUser(kUserA, {})[0].c_str(), X_OK) != 0) {
      GTEST_SKIP() << "no setpriv to run replicas as fault users";
    }
    absl::StatusOr<NetworkFaults> faults =
        test_util::StartNetworkFaultTest(kLiveness);
    if (!faults.ok()) GTEST_SKIP() << faults.status();
    faults_.emplace(std::move(*faults));
  }

  void TearDown() override {
    if (faults_) faults_->Heal().IgnoreError();
    if (lighthouse_) lighthouse_->Shutdown();
  }

  void StartLighthouse(int min_replicas) {
    store_ = ccl::NewStoreService();
    LighthouseOptions options;
    options.bind = "127.0.0.1:0";
    options.min_replicas = min_replicas;
    options.join_timeout = absl::Seconds(2);
    options.heartbeat_timeout = kHeartbeatTimeout;
    options.extra_services = {store_.get()};
    absl::StatusOr<std::unique_ptr<Lighthouse>> lighthouse =
        Lighthouse::Start(options);
    ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
    lighthouse_ = *std::move(lighthouse);
  }

  const std::string& address() const { return lighthouse_->address(); }
  int lighthouse_port() const {
    int port = 0;
    EXPECT_TRUE(
        absl::SimpleAtoi(address().substr(address().rfind(':') + 1), &port));
    return port;
  }

  std::optional<ReplicaStatus> StatusOf(const std::string& replica) const {
    for (const ReplicaStatus& status : lighthouse_->Status().replicas) {
      if (status.replica.replica_id == replica) return status;
    }
    return std::nullopt;
  }
  bool Healthy(const std::string& replica) const {
    std::optional<ReplicaStatus> status = StatusOf(replica);
    return status.has_value() && status->healthy;
  }

  // How long after `cut` the lighthouse held `replica` unhealthy; none if
  // it still did not after `timeout`.
  std::optional<absl::Duration> WaitUntilLost(const std::string& replica,
                                              absl::Time cut,
                                              absl::Duration timeout) {
    if (!WaitUntil([&] { return !Healthy(replica); }, timeout)) {
      return std::nullopt;
    }
    return absl::Now() - cut;
  }

  // Starts C with `c_flags`, which stop it before its part of the
  // allreduce of kFaultStep printing `stopped`, then A and B with `flags`;
  // returns once C stopped with A and B in its quorum, inside the
  // allreduce it holds up.
  void StartTrio(const std::vector<std::string>& flags,
                 const std::vector<std::string>& c_flags,
                 const std::string& stopped, Trio* trio) {
    // C asks first, so that it is in the first quorum.
    trio->c =
        std::make_unique<Replica>(address(), "replica-c", kUserC, c_flags);
    ASSERT_TRUE(trio->c->WaitForLine("state step=0 ", kStartup))
        << trio->c->Output();
    trio->a = std::make_unique<Replica>(address(), "replica-a", kUserA, flags);
    trio->b = std::make_unique<Replica>(address(), "replica-b", kUserB, flags);
    ASSERT_TRUE(trio->c->WaitForLine(stopped, kStartup)) << trio->c->Output();
    std::set<std::string> members;
    for (const auto& participant : lighthouse_->Status().quorum.participants) {
      members.insert(participant.replica_id);
    }
    ASSERT_EQ(members,
              (std::set<std::string>{"replica-a", "replica-b", "replica-c"}))
        << "C's quorum is not all three\n"
        << trio->a->Output() << "\n"
        << trio->b->Output() << "\n"
        << trio->c->Output();
    // Long enough for A and B to be inside the allreduce.
    absl::SleepFor(absl::Milliseconds(300));
  }

  // The survivors of replica `lost`, cut off at `cut` mid-allreduce at the
  // fault step: each failed that allreduce within the bound, voted against
  // the step and committed it in a newer quorum of the survivors alone,
  // which is the lighthouse's now. The detection times are printed for the
  // record.
  void ExpectSurvivorsCommitWithoutIt(
      const std::vector<const Replica*>& survivors, absl::Time cut,
      const std::string& lost) {
    std::set<int64_t> generations;
    for (const Replica* r : survivors) {
      const std::vector<std::string> errors =
          r->LinesStarting(FaultStepLine("allreduce_error"));
      ASSERT_EQ(errors.size(), 1u) << r->Output();
      const absl::Duration detected = At(errors[0]) - cut;
      std::fprintf(stderr, "%s: allreduce failed: detected after %s: %s\n",
                   r->id().c_str(), SecondsText(detected).c_str(),
                   errors[0].c_str());
      EXPECT_LT(detected, Bound()) << errors[0];
      const std::vector<std::string> commits =
          r->LinesStarting(FaultStepLine("commit"));
      ASSERT_EQ(commits.size(), 2u) << r->Output();
      EXPECT_EQ(IntField(commits[0], "commit"), 0);
      EXPECT_EQ(IntField(commits[1], "commit"), 1);
      const int64_t generation = IntField(commits[1], "generation");
      EXPECT_GT(generation, IntField(commits[0], "generation"));
      const std::string quorum = QuorumOf(*r, generation);
      ASSERT_FALSE(quorum.empty()) << r->Output();
      EXPECT_EQ(IntField(quorum, "size"),
                static_cast<int64_t>(survivors.size()))
          << r->Output();
      generations.insert(generation);
    }
    EXPECT_EQ(generations.size(), 1u);
    // The lighthouse's current quorum is theirs alone, without `lost`.
    const lighthouse::LighthouseStatus status = lighthouse_->Status();
    std::set<std::string> members, expected;
    for (const auto& participant : status.quorum.participants) {
      members.insert(participant.replica_id);
    }
    for (const Replica* r : survivors) expected.insert(r->id());
    EXPECT_EQ(members, expected);
    EXPECT_EQ(members.count(lost), 0u);
    ExpectConsistentQuorums(survivors);
    ExpectSameStates(survivors);
  }

  std::optional<NetworkFaults> faults_;
  std::unique_ptr<grpc::Service> store_;
  std::unique_ptr<Lighthouse> lighthouse_;
};

// C is blackholed both ways, as a host that lost power, while A and B wait
// for it in the allreduce of the fault step (it stopped before its part):
// the lighthouse loses it by liveness, A and B abort the allreduce, vote
// against the step and commit it in a quorum of two.
TEST_F(ReplicaPartitionTest, ABlackholedReplicaIsLostAndTheRestCommitWithout) {
  StartLighthouse(2);
  Trio trio;
  ASSERT_NO_FATAL_FAILURE(StartTrio(
      Flags(6), Flags(6, {absl::StrCat("--hang_at_step=", kFaultStep)}),
      absl::StrCat("hanging step=", kFaultStep), &trio));
  Replica &a = *trio.a, &b = *trio.b;

  const absl::Time cut = absl::Now();
  ASSERT_TRUE(faults_->BlackholeUser(kUserC, Traffic::kBothWays).ok());
  const std::optional<absl::Duration> lost =
      WaitUntilLost("replica-c", cut, Bound() + kMargin);
  ASSERT_TRUE(lost.has_value()) << "replica-c still healthy";
  std::fprintf(stderr, "the lighthouse lost replica-c: detected after %s\n",
               SecondsText(*lost).c_str());
  EXPECT_LT(*lost, Bound());

  ASSERT_EQ(a.Wait(kRun), 0) << a.Output();
  ASSERT_EQ(b.Wait(kRun), 0) << b.Output();
  ExpectSurvivorsCommitWithoutIt({&a, &b}, cut, "replica-c");
  EXPECT_EQ(a.Crcs().count(6), 1u) << a.Output();
  EXPECT_EQ(b.Crcs().count(6), 1u) << b.Output();
}

// C is cut off from the lighthouse alone (its peers still reach it) while
// A and B wait for it in the allreduce of the fault step: the lighthouse
// loses it by liveness, and only its lost-member event can end their
// allreduce. They go on in a quorum of two. C fails the allreduce once
// awake (its peers closed their connections), but its vote cannot reach
// the lighthouse: it commits nothing without them.
TEST_F(ReplicaPartitionTest, AReplicaCutOffFromTheLighthouseCommitsNothing) {
  StartLighthouse(2);
  Trio trio;
  ASSERT_NO_FATAL_FAILURE(
      StartTrio(Flags(6),
                Flags(6, {absl::StrCat("--pause_at_step=", kFaultStep),
                          "--pause_ms=4000", "--commit_timeout_ms=2000"}),
                absl::StrCat("pausing step=", kFaultStep), &trio));
  Replica &a = *trio.a, &b = *trio.b, &c = *trio.c;

  const absl::Time cut = absl::Now();
  ASSERT_TRUE(faults_->BlackholeUserToPort(kUserC, lighthouse_port()).ok());
  const std::optional<absl::Duration> lost =
      WaitUntilLost("replica-c", cut, Bound() + kMargin);
  ASSERT_TRUE(lost.has_value()) << "replica-c still healthy";
  std::fprintf(stderr, "the lighthouse lost replica-c: detected after %s\n",
               SecondsText(*lost).c_str());
  EXPECT_LT(*lost, Bound());

  ASSERT_EQ(a.Wait(kRun), 0) << a.Output();
  ASSERT_EQ(b.Wait(kRun), 0) << b.Output();
  ExpectSurvivorsCommitWithoutIt({&a, &b}, cut, "replica-c");
  for (const Replica* r : {&a, &b}) {
    EXPECT_THAT(r->LinesStarting(FaultStepLine("allreduce_error")),
                ::testing::ElementsAre(HasSubstr(" was lost")))
        << r->Output();
  }

  // C's vote on the step fails at its commit timeout: the lighthouse is
  // out of reach, and C commits nothing the others did not.
  const std::optional<std::string> vote =
      c.WaitForLine(FaultStepLine("commit"), kStartup);
  ASSERT_TRUE(vote.has_value()) << c.Output();
  EXPECT_EQ(IntField(*vote, "commit"), 0) << c.Output();
  for (int64_t step = kFaultStep; step <= 6; ++step) {
    EXPECT_EQ(CommitOf(c, step), "") << c.Output();
  }
  // Nor has it seen a quorum after the one it was cut off in.
  const int64_t survivors = IntField(CommitOf(a, kFaultStep), "generation");
  for (const std::string& line : c.LinesStarting("quorum ")) {
    EXPECT_LT(IntField(line, "generation"), survivors) << line;
  }
  EXPECT_TRUE(c.Running()) << c.Output();
}

// C is cut off from its peers alone (the lighthouse still hears it) in the
// allreduce of the fault step: nobody is lost, so only the Gloo
// connections' liveness can end the allreduce, on all three and within the
// bound rather than at the collective's 60 s timeout. They vote against
// the step; the next quorum is all three again and cannot connect its
// group while the partition lasts, so nobody commits and nobody splits
// off. Once healed, all three commit again, together.
TEST_F(ReplicaPartitionTest, AReplicaCutOffFromItsPeersStallsItsQuorumWhole) {
  StartLighthouse(2);
  Trio trio;
  ASSERT_NO_FATAL_FAILURE(StartTrio(
      Flags(7),
      Flags(7,
            {absl::StrCat("--pause_at_step=", kFaultStep), "--pause_ms=1000"}),
      absl::StrCat("pausing step=", kFaultStep), &trio));
  Replica &a = *trio.a, &b = *trio.b, &c = *trio.c;

  const absl::Time cut = absl::Now();
  ASSERT_TRUE(faults_->BlackholeUserExceptPort(kUserC, lighthouse_port()).ok());
  for (const Replica* r : {&a, &b, &c}) {
    const std::optional<std::string> error =
        r->WaitForLine(FaultStepLine("allreduce_error"), Bound() + kMargin);
    ASSERT_TRUE(error.has_value()) << r->Output();
    const absl::Duration detected = At(*error) - cut;
    std::fprintf(stderr, "%s: allreduce failed: detected after %s: %s\n",
                 r->id().c_str(), SecondsText(detected).c_str(),
                 error->c_str());
    EXPECT_LT(detected, Bound()) << *error;
    EXPECT_THAT(*error, HasSubstr("a connection to a peer failed"));
  }
  EXPECT_TRUE(Healthy("replica-c"));
  // The partition holds a while longer: a new quorum forms and stalls.
  absl::SleepFor(absl::Seconds(2));
  EXPECT_TRUE(Healthy("replica-c"));

  const absl::Time healed = absl::Now();
  ASSERT_TRUE(faults_->Heal().ok());
  for (Replica* r : {&a, &b, &c}) {
    ASSERT_EQ(r->Wait(kRun), 0) << r->Output();
  }
  for (const Replica* r : {&a, &b, &c}) {
    for (const std::string& line : r->LinesStarting("commit ")) {
      if (IntField(line, "step") >= kFaultStep &&
          IntField(line, "commit") == 1) {
        EXPECT_GT(At(line), healed) << r->id() << ": " << line;
      }
    }
    // Every quorum since the cut held all three.
    for (const std::string& line : r->LinesStarting("quorum ")) {
      if (At(line) > cut) {
        EXPECT_EQ(IntField(line, "size"), 3) << line;
      }
    }
    EXPECT_FALSE(CommitOf(*r, kFaultStep).empty()) << r->Output();
  }
  std::fprintf(stderr, "the step committed: resumed after %s of the heal\n",
               SecondsText(At(CommitOf(a, kFaultStep)) - healed).c_str());
  ExpectConsistentQuorums({&a, &b, &c});
  ExpectSameStates({&a, &b, &c});
  EXPECT_EQ(c.Crcs().count(7), 1u) << c.Output();
}

// C, behind at step 0, heals from A (the first of the up-to-date replicas
// in its round-robin), which goes silent mid-transfer: its healing
// service hangs after the first 1 MiB chunk and it is blackholed. The heal
// from A fails within the bound, not at the 30 s heal timeout, and C heals
// from B, with which it trains on.
TEST_F(ReplicaPartitionTest, ASilentPeerMidHealIsLeftForTheNext) {
  StartLighthouse(2);
  std::vector<std::string> flags = {"--floats=1048576", "--until_step=14",
                                    "--min_step_ms=200",
                                    "--collective_timeout_ms=60000"};
  std::vector<std::string> at5 = flags;
  at5.push_back("--start_step=5");
  Replica a(address(), "replica-a", kUserA, at5,
            {"SLUICE_FAULTS=manager.heal.send=hang:60000@nth=2"});
  Replica b(address(), "replica-b", kUserB, at5);
  ASSERT_TRUE(a.WaitForLine("quorum ", kStartup)) << a.Output();
  ASSERT_TRUE(b.WaitForLine("quorum ", kStartup)) << b.Output();
  std::vector<std::string> at0 = flags;
  at0.push_back("--start_step=0");
  Replica c(address(), "replica-c", kUserC, at0);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return absl::StrContains(
            a.Stderr(), "fault point manager.heal.send fired on hit 2");
      },
      kStartup))
      << a.Output() << "\n"
      << c.Output();

  const absl::Time cut = absl::Now();
  ASSERT_TRUE(faults_->BlackholeUser(kUserA, Traffic::kBothWays).ok());
  const std::optional<std::string> quorum =
      c.WaitForLine("quorum ", Bound() + kMargin);
  ASSERT_TRUE(quorum.has_value()) << c.Output();
  const absl::Duration healed = At(*quorum) - cut;
  std::fprintf(stderr,
               "replica-c healed from another peer: recovered after %s: %s\n",
               SecondsText(healed).c_str(), quorum->c_str());
  EXPECT_LT(healed, Bound()) << *quorum;
  EXPECT_EQ(Field(*quorum, "healed_from"), "replica-b") << c.Output();
  EXPECT_THAT(c.Stderr(),
              HasSubstr("healing from replica replica-a at 127.0.0.1:"));
  EXPECT_THAT(c.Stderr(), HasSubstr("went silent"));
  // The lighthouse loses A within the same bound; the heal, whose bytes
  // wait for their acknowledgement, may give A up a little sooner.
  const std::optional<absl::Duration> lost =
      WaitUntilLost("replica-a", cut, Bound() + kMargin);
  ASSERT_TRUE(lost.has_value()) << "replica-a still healthy";
  EXPECT_LT(*lost, Bound());

  ASSERT_EQ(b.Wait(kRun), 0) << b.Output();
  ASSERT_EQ(c.Wait(kRun), 0) << c.Output();
  // C's state at the step it healed to, and at every step after, is B's.
  const int64_t max_step = IntField(*quorum, "max_step");
  EXPECT_GE(max_step, 5);
  EXPECT_EQ(c.Crcs()[max_step], b.Crcs()[max_step]) << c.Output();
  EXPECT_EQ(c.Crcs().count(14), 1u) << c.Output();
  ExpectConsistentQuorums({&b, &c});
  ExpectSameStates({&b, &c});
}

// C is blackholed both ways mid-allreduce, A and B go on without it, and
// the network heals: C's vote on the step it was cut off in is refused,
// and it rejoins a later quorum, heals to its peers' step and from then on
// commits every step with them.
TEST_F(ReplicaPartitionTest, AHealedPartitionRejoinsALaterQuorum) {
  StartLighthouse(2);
  // Long enough for A and B to be training still when C is back.
  constexpr int64_t kUntil = 40;
  Trio trio;
  ASSERT_NO_FATAL_FAILURE(StartTrio(
      Flags(kUntil),
      Flags(kUntil,
            {absl::StrCat("--pause_at_step=", kFaultStep), "--pause_ms=1500"}),
      absl::StrCat("pausing step=", kFaultStep), &trio));
  Replica &a = *trio.a, &b = *trio.b, &c = *trio.c;

  const absl::Time cut = absl::Now();
  ASSERT_TRUE(faults_->BlackholeUser(kUserC, Traffic::kBothWays).ok());
  const std::optional<absl::Duration> lost =
      WaitUntilLost("replica-c", cut, Bound() + kMargin);
  ASSERT_TRUE(lost.has_value()) << "replica-c still healthy";
  std::fprintf(stderr, "the lighthouse lost replica-c: detected after %s\n",
               SecondsText(*lost).c_str());
  EXPECT_LT(*lost, Bound());
  const std::optional<std::string> survived = a.WaitForLine(
      FaultStepLine("commit"), kStartup,
      [](const std::string& line) { return IntField(line, "commit") == 1; });
  ASSERT_TRUE(survived.has_value()) << a.Output();

  const absl::Time healed = absl::Now();
  ASSERT_TRUE(faults_->Heal().ok());
  const std::optional<std::string> rejoined =
      c.WaitForLine("quorum ", kRun, [&](const std::string& line) {
        return At(line) > healed && IntField(line, "size") == 3;
      });
  ASSERT_TRUE(rejoined.has_value()) << c.Output();
  std::fprintf(stderr, "replica-c rejoined after %s of the heal: %s\n",
               SecondsText(At(*rejoined) - healed).c_str(), rejoined->c_str());
  EXPECT_GT(IntField(*rejoined, "generation"),
            IntField(*survived, "generation"));
  EXPECT_GT(IntField(*rejoined, "max_step"), kFaultStep);
  EXPECT_NE(Field(*rejoined, "healed_from"), "") << c.Output();

  for (Replica* r : {&a, &b, &c}) {
    ASSERT_EQ(r->Wait(kRun), 0) << r->Output();
  }
  // C voted on the step in the quorum it was cut off in, and lost: it
  // healed past the step instead of committing it.
  const std::vector<std::string> votes =
      c.LinesStarting(FaultStepLine("commit"));
  ASSERT_EQ(votes.size(), 1u) << c.Output();
  EXPECT_EQ(IntField(votes[0], "commit"), 0);
  EXPECT_LT(IntField(votes[0], "generation"),
            IntField(*survived, "generation"));
  ExpectConsistentQuorums({&a, &b, &c});
  ExpectSameStates({&a, &b, &c});
  for (const Replica* r : {&a, &b, &c}) {
    EXPECT_EQ(r->Crcs().count(kUntil), 1u) << r->Output();
  }
}

}  // namespace
}  // namespace sluice::ft
