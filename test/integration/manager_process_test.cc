// The manager with replica groups in processes of their own
// (manager_replica) under a lighthouse in this process, on 127.0.0.1:
// healing (and healing past a peer that sends damaged bytes), commit votes,
// and a replica killed in the middle of an allreduce. Every wait is
// bounded; children are killed and reaped whatever happens.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/collective/store_service.h"
#include "sluice/lighthouse/lighthouse.h"
#include "test/util/child_process.h"

namespace sluice::ft {
namespace {

using ::sluice::lighthouse::Lighthouse;
using ::sluice::lighthouse::LighthouseOptions;
using ::testing::HasSubstr;

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;

std::vector<std::string> ReplicaCommand(const std::string& lighthouse,
                                        const std::string& replica_id,
                                        const std::vector<std::string>& flags) {
  std::vector<std::string> command = {
      Runfile("test/integration/manager_replica"), "--lighthouse=" + lighthouse,
      "--replica_id=" + replica_id};
  command.insert(command.end(), flags.begin(), flags.end());
  return command;
}

// `command` (a runfile's path, then its arguments) with `environment` on
// top of the test's; the test's own fault and replica variables are not
// the replica's. Its stdout and stderr go to files of their own: the tests
// parse stdout and search stderr.
ChildProcessOptions ReplicaOptions(const std::string& name,
                                   std::vector<std::string> command,
                                   std::vector<std::string> environment) {
  ChildProcessOptions options;
  options.argv = std::move(command);
  options.environment = std::move(environment);
  options.unset_environment = {"SLUICE_FAULTS", "SLUICE_LIGHTHOUSE",
                               "SLUICE_REPLICA_ID"};
  options.name = name;
  options.stderr_to = ChildProcessOptions::Stderr::kOwnFile;
  return options;
}

// One manager_replica (or sluice_run) process, killed and reaped on
// destruction.
class ReplicaProcess {
 public:
  // A manager_replica with `flags`.
  ReplicaProcess(const std::string& lighthouse, const std::string& replica_id,
                 const std::vector<std::string>& flags,
                 std::vector<std::string> environment = {})
      : ReplicaProcess(replica_id,
                       ReplicaCommand(lighthouse, replica_id, flags),
                       std::move(environment)) {}

  // `command` and `environment` as ReplicaOptions takes them; `name`
  // names its output files.
  ReplicaProcess(const std::string& name, std::vector<std::string> command,
                 std::vector<std::string> environment)
      : child_(
            ReplicaOptions(name, std::move(command), std::move(environment))) {
    EXPECT_TRUE(child_.started()) << child_.start_error();
  }

  void Stop() { child_.Stop(); }
  void Kill() { child_.Kill(); }

  // The exit code once the process exits within `timeout`; none (and the
  // process is killed) otherwise.
  std::optional<int> Wait(absl::Duration timeout) {
    const int code = child_.WaitForExit(timeout);
    child_.Kill();
    if (code < 0) return std::nullopt;
    return code;
  }

  std::vector<std::string> Lines() const { return child_.Lines(); }
  std::string Stderr() const { return child_.Stderr(); }
  // The lines that start with `prefix`.
  std::vector<std::string> LinesStarting(const std::string& prefix) const {
    std::vector<std::string> found;
    for (const std::string& line : Lines()) {
      if (line.rfind(prefix, 0) == 0) found.push_back(line);
    }
    return found;
  }
  // Waits up to `timeout` for a line starting with `prefix`.
  bool WaitForLine(const std::string& prefix, absl::Duration timeout) const {
    return !child_.WaitForLine(prefix, timeout).empty();
  }
  std::string Output() const {
    return absl::StrCat(absl::StrJoin(Lines(), "\n"), "\n--- stderr:\n",
                        Stderr());
  }

 private:
  ChildProcess child_;
};

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

// The crc of the state at `step` that `replica` printed, "" if none.
std::string CrcAt(const ReplicaProcess& replica, int64_t step) {
  std::string crc;
  for (const std::string& line : replica.LinesStarting("state ")) {
    if (IntField(line, "step") == step) crc = Field(line, "crc");
  }
  return crc;
}

class ManagerProcessTest : public ::testing::Test {
 protected:
  void StartLighthouse(int min_replicas,
                       absl::Duration heartbeat_timeout = absl::Seconds(5)) {
    store_ = ccl::NewStoreService();
    LighthouseOptions options;
    options.bind = "127.0.0.1:0";
    options.min_replicas = min_replicas;
    options.join_timeout = absl::Seconds(2);
    options.heartbeat_timeout = heartbeat_timeout;
    options.extra_services = {store_.get()};
    absl::StatusOr<std::unique_ptr<Lighthouse>> lighthouse =
        Lighthouse::Start(options);
    ASSERT_TRUE(lighthouse.ok()) << lighthouse.status();
    lighthouse_ = *std::move(lighthouse);
  }
  void TearDown() override {
    if (lighthouse_) lighthouse_->Shutdown();
  }
  const std::string& address() const { return lighthouse_->address(); }

  // Replica C at step 0 joins A and B at step 5 (2 MiB of state each):
  // it heals, and from then on all three hold the same state.
  void HealTest(std::vector<std::string> a_environment,
                const std::string& expected_source) {
    StartLighthouse(3);
    const std::vector<std::string> flags = {"--floats=524288",
                                            "--until_step=8"};
    std::vector<std::string> at5 = flags;
    at5.push_back("--start_step=5");
    ReplicaProcess a(address(), "replica-a", at5, a_environment);
    ReplicaProcess b(address(), "replica-b", at5);
    std::vector<std::string> at0 = flags;
    at0.push_back("--start_step=0");
    ReplicaProcess c(address(), "replica-c", at0);
    for (ReplicaProcess* r : {&a, &b, &c}) {
      EXPECT_EQ(r->Wait(absl::Seconds(60)), 0) << r->Output();
    }
    const std::vector<std::string> quorums = c.LinesStarting("quorum ");
    ASSERT_FALSE(quorums.empty()) << c.Output();
    EXPECT_EQ(Field(quorums[0], "healed_from"), expected_source) << c.Output();
    EXPECT_EQ(IntField(quorums[0], "max_step"), 5);
    EXPECT_EQ(IntField(quorums[0], "size"), 3);
    // The healed state is the peers' state at step 5, by checksum and by
    // value ((1 % 97) * 0.25 + 5), not the one C started with...
    const std::string crc5 = CrcAt(a, 5);
    ASSERT_FALSE(crc5.empty()) << a.Output();
    EXPECT_EQ(CrcAt(b, 5), crc5);
    EXPECT_EQ(CrcAt(c, 5), crc5) << c.Output();
    EXPECT_NE(CrcAt(c, 0), crc5);
    for (const std::string& line : c.LinesStarting("state step=5 ")) {
      EXPECT_EQ(Field(line, "v1"), "5.25");
    }
    // ...and every later step agrees on all three replicas.
    for (int64_t step = 6; step <= 8; ++step) {
      const std::string crc = CrcAt(a, step);
      EXPECT_FALSE(crc.empty()) << "step " << step << "\n" << a.Output();
      EXPECT_EQ(CrcAt(b, step), crc) << "step " << step;
      EXPECT_EQ(CrcAt(c, step), crc) << "step " << step << "\n" << c.Output();
    }
    healer_stderr_ = c.Stderr();
  }

  std::string healer_stderr_;
  std::unique_ptr<grpc::Service> store_;
  std::unique_ptr<Lighthouse> lighthouse_;
};

TEST_F(ManagerProcessTest, AReplicaBehindHealsFromAnUpToDatePeer) {
  // C (rank 2 of 3) starts its round-robin over [A, B] at 2 % 2 = 0: A.
  HealTest({}, "replica-a");
}

TEST_F(ManagerProcessTest, DamagedBytesAreCaughtAndTheNextPeerServes) {
  HealTest({"SLUICE_FAULTS=manager.heal.send=error@nth=1"}, "replica-b");
  EXPECT_THAT(healer_stderr_,
              HasSubstr("healing from replica replica-a at 127.0.0.1:"));
  EXPECT_THAT(healer_stderr_, HasSubstr("failed: checksum mismatch over "
                                        "2097152 bytes"));
}

TEST_F(ManagerProcessTest, OneVoteAgainstFailsTheStepForEveryReplica) {
  StartLighthouse(3);
  const std::vector<std::string> flags = {"--floats=1024", "--until_step=4"};
  std::vector<std::string> failing = flags;
  failing.push_back("--report_error_at_step=2");
  ReplicaProcess a(address(), "replica-a", flags);
  ReplicaProcess b(address(), "replica-b", failing);
  ReplicaProcess c(address(), "replica-c", flags);
  for (ReplicaProcess* r : {&a, &b, &c}) {
    ASSERT_EQ(r->Wait(absl::Seconds(60)), 0) << r->Output();
  }
  for (ReplicaProcess* r : {&a, &b, &c}) {
    // Steps 0 and 1: every vote for, committed; step 2 refused once, then
    // committed in a quorum with a higher id.
    std::vector<std::pair<int64_t, int>> votes;
    for (const std::string& line : r->LinesStarting("commit ")) {
      votes.push_back({IntField(line, "step"), IntField(line, "commit")});
    }
    const std::vector<std::pair<int64_t, int>> expected = {
        {0, 1}, {1, 1}, {2, 0}, {2, 1}, {3, 1}};
    EXPECT_EQ(votes, expected) << r->Output();
    const std::vector<std::string> commits = r->LinesStarting("commit step=2 ");
    ASSERT_EQ(commits.size(), 2u) << r->Output();
    EXPECT_GT(IntField(commits[1], "generation"),
              IntField(commits[0], "generation"))
        << r->Output();
  }
  EXPECT_FALSE(CrcAt(a, 4).empty());
  EXPECT_EQ(CrcAt(b, 4), CrcAt(a, 4));
  EXPECT_EQ(CrcAt(c, 4), CrcAt(a, 4));
}

// C stops (kill) or freezes (stop) at step 2 while the replicas of its
// quorum are inside its allreduce; they must fail it long before the
// collective timeout, vote against the step and commit it in a smaller,
// newer quorum. (A replica that started late may have missed C's quorum
// and joined the survivors' by healing.)
void ExpectSurvivorsRecover(const ReplicaProcess& a, const ReplicaProcess& b,
                            bool lost_by_lighthouse) {
  int failed = 0;
  for (const ReplicaProcess* r : {&a, &b}) {
    const std::vector<std::string> errors = r->LinesStarting("allreduce_error");
    if (errors.empty()) continue;
    ++failed;
    ASSERT_EQ(errors.size(), 1u) << r->Output();
    EXPECT_EQ(IntField(errors[0], "step"), 2);
    // Far below the 60 s collective timeout.
    EXPECT_LT(IntField(errors[0], "ms"), 15000) << errors[0];
    if (lost_by_lighthouse) {
      // The lighthouse's MEMBER_LOST aborted the group.
      EXPECT_THAT(errors[0], HasSubstr("replica replica-c of quorum "));
      EXPECT_THAT(errors[0], HasSubstr(" was lost"));
    }
    const std::vector<std::string> commits = r->LinesStarting("commit step=2 ");
    ASSERT_EQ(commits.size(), 2u) << r->Output();
    EXPECT_EQ(IntField(commits[0], "commit"), 0);
    EXPECT_EQ(IntField(commits[1], "commit"), 1);
    // The quorum that committed is smaller and newer.
    const std::vector<std::string> quorums = r->LinesStarting("quorum ");
    ASSERT_GE(quorums.size(), 2u);
    EXPECT_EQ(IntField(quorums.back(), "size"), 2) << r->Output();
    EXPECT_GT(IntField(quorums.back(), "generation"),
              IntField(commits[0], "generation"));
  }
  EXPECT_GE(failed, 1) << a.Output() << "\n" << b.Output();
  EXPECT_FALSE(CrcAt(a, 5).empty());
  EXPECT_EQ(CrcAt(b, 5), CrcAt(a, 5));
}

const std::vector<std::string>& SurvivorFlags() {
  // A collective timeout far above what the survivors should wait.
  static const auto* const flags = new std::vector<std::string>{
      "--floats=1024", "--until_step=5", "--collective_timeout_ms=60000"};
  return *flags;
}

std::vector<std::string> HangingFlags() {
  std::vector<std::string> flags = SurvivorFlags();
  flags.push_back("--hang_at_step=2");
  return flags;
}

TEST_F(ManagerProcessTest, AKilledReplicaFailsTheAllreduceAtOnce) {
  StartLighthouse(2);
  // C asks first, so that it is in the first quorum and reaches step 2.
  ReplicaProcess c(address(), "replica-c", HangingFlags());
  ASSERT_TRUE(c.WaitForLine("state step=0 ", absl::Seconds(60))) << c.Output();
  ReplicaProcess a(address(), "replica-a", SurvivorFlags());
  ReplicaProcess b(address(), "replica-b", SurvivorFlags());
  ASSERT_TRUE(c.WaitForLine("hanging step=2", absl::Seconds(60))) << c.Output();
  // Long enough for A and B to be inside the allreduce of step 2.
  absl::SleepFor(absl::Milliseconds(500));
  c.Kill();
  ASSERT_EQ(a.Wait(absl::Seconds(60)), 0) << a.Output();
  ASSERT_EQ(b.Wait(absl::Seconds(60)), 0) << b.Output();
  // Its connections closed with it, or the lighthouse saw its watch end:
  // whichever came first failed the allreduce.
  ExpectSurvivorsRecover(a, b, /*lost_by_lighthouse=*/false);
}

TEST_F(ManagerProcessTest, AFrozenReplicaIsLostAndTheAllreduceAborted) {
  // A stopped process keeps its connections open: only the lighthouse,
  // missing its heartbeats for 1 s, can tell its peers.
  StartLighthouse(2, absl::Seconds(1));
  // C asks first, so that it is in the first quorum and reaches step 2.
  ReplicaProcess c(address(), "replica-c", HangingFlags());
  ASSERT_TRUE(c.WaitForLine("state step=0 ", absl::Seconds(60))) << c.Output();
  ReplicaProcess a(address(), "replica-a", SurvivorFlags());
  ReplicaProcess b(address(), "replica-b", SurvivorFlags());
  ASSERT_TRUE(c.WaitForLine("hanging step=2", absl::Seconds(60))) << c.Output();
  absl::SleepFor(absl::Milliseconds(500));
  c.Stop();
  ASSERT_EQ(a.Wait(absl::Seconds(60)), 0) << a.Output();
  ASSERT_EQ(b.Wait(absl::Seconds(60)), 0) << b.Output();
  ExpectSurvivorsRecover(a, b, /*lost_by_lighthouse=*/true);
}

// A training step of a .mlir program through the tfrt_ft quorum ops: a
// replica at `step` holding w = [w0, w1] joins the quorum, allreduces w and
// votes; the function returns the generation, the step, the vote, w as
// start_quorum returned it, and the average.
std::string QuorumProgram(int64_t step, float w0, float w1) {
  return absl::StrFormat(R"(
func.func @train() -> (i64, i64, i1, !t.tensor, !t.tensor) {
  %%ch0 = tfrt.new.chain
  %%a = tfrt_dht.create_uninitialized_tensor.f32.2 [1 : i64, 2 : i64]
  %%ch1 = tfrt_dht.set_tensor_with_constant_values.f32 %%a, %%ch0 [%f : f32, %f : f32]
  %%i = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %%ch2 = tfrt_dht.set_tensor_with_constant_values.f32 %%i, %%ch1 [1.0 : f32, 0.0 : f32, 0.0 : f32, 1.0 : f32]
  %%w = tfrt_math.matmul.f32 %%a, %%i, %%ch2
  %%s = tfrt.constant.i64 %d
  %%group, %%generation, %%step, %%w1 = tfrt_ft.start_quorum %%s, %%w : !t.tensor
  %%c0 = tfrt.new.chain
  %%c1, %%avg = tfrt_ccl.allreduce %%group, %%w1, %%c0 {reduction = "avg"} : !t.tensor
  %%commit = tfrt_ft.should_commit %%step, %%avg : !t.tensor
  tfrt.return %%generation, %%step, %%commit, %%w1, %%avg : i64, i64, i1, !t.tensor, !t.tensor
}
)",
                         w0, w1, step);
}

ReplicaProcess StartProgram(const std::string& lighthouse,
                            const std::string& replica_id,
                            const std::string& program) {
  const std::string path = absl::StrCat(TempDir(), "/", replica_id, ".mlir");
  std::ofstream(path) << program;
  return ReplicaProcess(
      replica_id, {Runfile("tools/sluice_run/sluice_run"), path},
      {"SLUICE_LIGHTHOUSE=" + lighthouse, "SLUICE_REPLICA_ID=" + replica_id});
}

// A sluice_lighthouse process alone (no etcd), listening on `address`
// ("127.0.0.1:0" picks a port).
class LighthouseProcess {
 public:
  explicit LighthouseProcess(const std::string& address,
                             const std::vector<std::string>& flags = {}) {
    ChildProcessOptions options;
    options.argv = {Runfile("tools/sluice_lighthouse/sluice_lighthouse"),
                    "--address=" + address, "--min_replicas=2",
                    "--join_timeout_ms=2000"};
    options.argv.insert(options.argv.end(), flags.begin(), flags.end());
    options.name = "lighthouse";
    child_.emplace(std::move(options));
    EXPECT_TRUE(child_->started()) << child_->start_error();
    const std::string listening =
        child_->WaitForLine("lighthouse listening on ", absl::Seconds(30));
    address_ = listening.substr(listening.rfind(' ') + 1);
  }
  // "" when it did not start.
  const std::string& address() const { return address_; }
  void Kill() { child_->Kill(); }
  void Stop() { child_->Stop(); }
  void Continue() { child_->Continue(); }
  std::vector<std::string> Lines() const { return child_->Lines(); }
  std::string Output() const { return absl::StrJoin(child_->Lines(), "\n"); }

 private:
  std::optional<ChildProcess> child_;
  std::string address_;
};

// The largest value of `key` among `replica`'s lines that start with
// `prefix` and were printed before `before_ms` (Unix milliseconds).
int64_t LargestBefore(const ReplicaProcess& replica, const std::string& prefix,
                      const std::string& key, int64_t before_ms) {
  int64_t largest = -1;
  for (const std::string& line : replica.LinesStarting(prefix)) {
    if (IntField(line, "at_ms") < before_ms) {
      largest = std::max(largest, IntField(line, key));
    }
  }
  return largest;
}

// The lone lighthouse is killed mid-training and restarted on its port. It
// remembers nothing, yet it must never issue the replicas an id they still
// hold (they would keep a group whose peers moved on, or wait in its new
// store for keys set in the old one): training resumes within the downtime
// and a few seconds, far below the 60 s quorum timeout.
TEST_F(ManagerProcessTest, ARestartedLighthouseNeverReissuesAHeldQuorumId) {
  constexpr absl::Duration kDowntime = absl::Seconds(2);
  // Rejoining: the replicas' next call after the downtime, a quorum (the
  // join rules), a new group and a step of 100 ms, with room for a loaded
  // machine.
  constexpr absl::Duration kResumeBound = absl::Seconds(6);
  std::optional<LighthouseProcess> lighthouse;
  lighthouse.emplace("127.0.0.1:0");
  const std::string address = lighthouse->address();
  ASSERT_FALSE(address.empty()) << lighthouse->Output();
  const std::vector<std::string> flags = {"--floats=1024", "--until_step=40",
                                          "--min_step_ms=100"};
  ReplicaProcess a(address, "replica-a", flags);
  ReplicaProcess b(address, "replica-b", flags);
  ASSERT_TRUE(a.WaitForLine("commit step=8 ", absl::Seconds(60))) << a.Output();
  lighthouse->Kill();
  const int64_t killed_ms = absl::ToUnixMillis(absl::Now());
  absl::SleepFor(kDowntime);
  lighthouse.reset();
  lighthouse.emplace(address);
  ASSERT_EQ(lighthouse->address(), address) << lighthouse->Output();
  const int64_t restarted_ms = absl::ToUnixMillis(absl::Now());
  ASSERT_EQ(a.Wait(absl::Seconds(60)), 0) << a.Output();
  ASSERT_EQ(b.Wait(absl::Seconds(60)), 0) << b.Output();

  for (const ReplicaProcess* r : {&a, &b}) {
    const int64_t held = LargestBefore(*r, "quorum ", "generation", killed_ms);
    ASSERT_GT(held, 0) << r->Output();
    int64_t first_commit_after = -1;
    for (const std::string& line : r->LinesStarting("commit ")) {
      if (IntField(line, "at_ms") < restarted_ms) continue;
      // Every quorum of the new lighthouse is above what the replica held.
      EXPECT_GT(IntField(line, "generation"), held) << r->Output();
      if (first_commit_after < 0 && IntField(line, "commit") == 1) {
        first_commit_after = IntField(line, "at_ms");
      }
    }
    ASSERT_GE(first_commit_after, 0) << r->Output();
    const absl::Duration stall =
        absl::Milliseconds(first_commit_after - killed_ms);
    std::printf("lighthouse down %s: the first commit came %s after the kill\n",
                absl::FormatDuration(kDowntime).c_str(),
                absl::FormatDuration(stall).c_str());
    EXPECT_LT(stall, kDowntime + kResumeBound) << r->Output();
  }
  for (int64_t step = 1; step <= 40; ++step) {
    const std::string crc = CrcAt(a, step);
    EXPECT_FALSE(crc.empty()) << "step " << step;
    EXPECT_EQ(CrcAt(b, step), crc) << "step " << step;
  }
}

// The lone lighthouse is stopped (SIGSTOP) for four heartbeat timeouts.
// Woken, it must not take its own silence for its replicas': it loses no
// one, and training goes on in the same generation.
TEST_F(ManagerProcessTest, AStoppedLighthouseBlamesNoReplicaWhenItWakes) {
  constexpr absl::Duration kStopped = absl::Seconds(4);
  LighthouseProcess lighthouse("127.0.0.1:0", {"--heartbeat_timeout_ms=1000"});
  ASSERT_FALSE(lighthouse.address().empty()) << lighthouse.Output();
  const std::vector<std::string> flags = {"--floats=1024", "--until_step=30",
                                          "--min_step_ms=100"};
  ReplicaProcess a(lighthouse.address(), "replica-a", flags);
  ReplicaProcess b(lighthouse.address(), "replica-b", flags);
  ASSERT_TRUE(a.WaitForLine("commit step=5 ", absl::Seconds(60)))
      << a.Output();
  lighthouse.Stop();
  const int64_t stopped_ms = absl::ToUnixMillis(absl::Now());
  absl::SleepFor(kStopped);
  lighthouse.Continue();
  ASSERT_EQ(a.Wait(absl::Seconds(60)), 0) << a.Output();
  ASSERT_EQ(b.Wait(absl::Seconds(60)), 0) << b.Output();

  int said_asleep = 0;
  for (const std::string& line : lighthouse.Lines()) {
    EXPECT_FALSE(absl::StrContains(line, " lost")) << lighthouse.Output();
    said_asleep += absl::StrContains(line, "did not run for ");
  }
  EXPECT_EQ(said_asleep, 1) << lighthouse.Output();
  for (const ReplicaProcess* r : {&a, &b}) {
    const int64_t held =
        LargestBefore(*r, "quorum ", "generation", stopped_ms);
    for (const std::string& line : r->LinesStarting("commit ")) {
      EXPECT_EQ(IntField(line, "commit"), 1) << r->Output();
      EXPECT_EQ(IntField(line, "generation"), held) << r->Output();
    }
  }
  EXPECT_FALSE(CrcAt(a, 30).empty());
  EXPECT_EQ(CrcAt(b, 30), CrcAt(a, 30));
}

// The longest A went between two committed steps after `from_ms`.
int64_t LongestCommitGapMs(const ReplicaProcess& replica, int64_t from_ms) {
  int64_t previous = from_ms;
  int64_t longest = 0;
  for (const std::string& line : replica.LinesStarting("commit ")) {
    const int64_t at = IntField(line, "at_ms");
    if (at < from_ms || IntField(line, "commit") != 1) continue;
    longest = std::max(longest, at - previous);
    previous = at;
  }
  return longest;
}

// C joins A and B far behind, and every chunk of state it heals from is
// sent 3 s late. Healing in its StartQuorum, C would hold A and B in the
// step's allreduce for the transfer. With heal_in_background, A and B
// commit on; C takes part with zeros, keeps the updates, and once the state
// is loaded re-applies them: all three hold the same state at every step
// from then on.
TEST_F(ManagerProcessTest, AReplicaHealingInTheBackgroundStallsNoOne) {
  constexpr int64_t kTransferDelayMs = 3000;
  // A step (100 ms), and the new group when C joins and when it leaves the
  // quorum's... it does not: the same participants, one generation.
  constexpr int64_t kMaxGapMs = 1500;
  StartLighthouse(2);
  const std::vector<std::string> flags = {"--floats=1024", "--until_step=60",
                                          "--min_step_ms=100",
                                          "--heal_in_background=1"};
  const std::vector<std::string> slow_heal = {absl::StrCat(
      "SLUICE_FAULTS=manager.heal.send=delay:", kTransferDelayMs)};
  ReplicaProcess a(address(), "replica-a", flags, slow_heal);
  ReplicaProcess b(address(), "replica-b", flags, slow_heal);
  ASSERT_TRUE(a.WaitForLine("commit step=15 ", absl::Seconds(60)))
      << a.Output();
  const int64_t joined_ms = absl::ToUnixMillis(absl::Now());
  ReplicaProcess c(address(), "replica-c", flags);
  for (ReplicaProcess* r : {&a, &b, &c}) {
    ASSERT_EQ(r->Wait(absl::Seconds(90)), 0) << r->Output();
  }
  const std::vector<std::string> replayed = c.LinesStarting("replayed ");
  ASSERT_EQ(replayed.size(), 1u) << c.Output();
  const int64_t loaded_step = IntField(replayed[0], "from");
  // It kept the steps of a 3 s transfer at 100 ms a step.
  EXPECT_GE(IntField(replayed[0], "count"), 10) << c.Output();
  const int64_t gap_ms =
      std::max(LongestCommitGapMs(a, joined_ms), LongestCommitGapMs(b, joined_ms));
  std::printf(
      "a %lld ms transfer: A and B went at most %lld ms between commits; "
      "C re-applied %lld kept steps\n",
      static_cast<long long>(kTransferDelayMs), static_cast<long long>(gap_ms),
      static_cast<long long>(IntField(replayed[0], "count")));
  EXPECT_LT(gap_ms, kMaxGapMs) << a.Output();
  // The same state on all three at every step C printed after the load.
  int compared = 0;
  for (int64_t step = loaded_step; step <= 60; ++step) {
    const std::string crc = CrcAt(c, step);
    if (crc.empty()) continue;
    EXPECT_EQ(CrcAt(a, step), crc) << "step " << step;
    EXPECT_EQ(CrcAt(b, step), crc) << "step " << step;
    ++compared;
  }
  EXPECT_GT(compared, 10) << c.Output();
  EXPECT_EQ(CrcAt(c, 60), CrcAt(a, 60));
}

TEST_F(ManagerProcessTest, MlirProgramsHealAndVoteThroughTheQuorumOps) {
  StartLighthouse(2);
  ReplicaProcess a =
      StartProgram(address(), "program-a", QuorumProgram(3, 1.5f, -2.0f));
  ReplicaProcess b =
      StartProgram(address(), "program-b", QuorumProgram(0, 9.0f, 9.0f));
  ASSERT_EQ(a.Wait(absl::Seconds(60)), 0) << a.Output();
  ASSERT_EQ(b.Wait(absl::Seconds(60)), 0) << b.Output();
  // B was behind: it healed to A's step and tensor, so both hold the same
  // w, its average is w, and the step commits.
  const std::string expected =
      "'train' returned 1,3,1,"
      "DenseHostTensor dtype = f32, shape = [1, 2], values = [1.500000e+00, "
      "-2.000000e+00],"
      "DenseHostTensor dtype = f32, shape = [1, 2], values = [1.500000e+00, "
      "-2.000000e+00]";
  for (const ReplicaProcess* r : {&a, &b}) {
    EXPECT_THAT(r->Lines(), ::testing::Contains(expected)) << r->Output();
  }
}

}  // namespace
}  // namespace sluice::ft
