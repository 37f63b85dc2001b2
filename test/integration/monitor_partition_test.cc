// The step monitor under network partitions: a rank whose connection to
// the monitor goes silent (its host vanished, a link was cut: no reset
// arrives) is found by liveness, within the liveness timeout and a ping's
// second, as silent, and not only at the monitor's silent timeout. The
// monitor runs in this process, the ranks (monitored_rank) as child
// processes on 127.0.0.1, all in a network namespace of the test's own
// where nftables drops the traffic; once healed, the rank reconnects and
// the verdict clears. Every wait is bounded; children are killed and
// reaped whatever happens.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/monitor/monitor.h"
#include "sluice/support/liveness.h"
#include "test/util/child_process.h"
#include "test/util/network_faults.h"
#include "test/util/wait_until.h"

namespace sluice::monitor {
namespace {

using ::sluice::testing::ChildProcess;
using ::sluice::testing::ChildProcessOptions;
using ::sluice::testing::Runfile;
using ::sluice::testing::WaitUntil;
using test_util::NetworkFaults;
using test_util::Traffic;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Short, so that the test is quick; the ranks take it from the
// environment, the monitor from SetLivenessTimeout.
constexpr absl::Duration kLiveness = absl::Seconds(1);
#ifdef SLUICE_SANITIZER
constexpr absl::Duration kMargin = absl::Seconds(4);
#else
constexpr absl::Duration kMargin = absl::Seconds(2);
#endif
// The liveness timeout and the unanswered ping's second, with room for a
// loaded machine.
absl::Duration DetectionBound() {
  return kLiveness + kLivenessPingTimeout + kMargin;
}
// Far above the detection bound: a verdict this late came from a timeout
// of the monitor's, not from liveness.
constexpr absl::Duration kSilentTimeout = absl::Seconds(30);
constexpr absl::Duration kStuckTimeout = absl::Seconds(30);
// After a heal the rank is back once its reporter's next stream gets
// through: it dials on a fresh channel after a backoff of at most 2 s, and
// TCP retransmits a SYN the partition dropped after 1 s. 0.2 to 0.6 s
// measured after partitions of a few seconds; the bound leaves room for a
// loaded machine and a SYN's second retransmission.
constexpr absl::Duration kRejoinBound = absl::Seconds(10);

std::unique_ptr<MonitorServer> StartMonitor(int world_size) {
  MonitorOptions options;
  options.world_size = world_size;
  options.stuck_timeout = kStuckTimeout;
  options.silent_timeout = kSilentTimeout;
  auto server = MonitorServer::Start("127.0.0.1:0", options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

// Whether the monitor's state comes to satisfy `holds` within `timeout`.
bool WaitFor(const MonitorServer& monitor,
             const std::function<bool(const JobState&)>& holds,
             absl::Duration timeout) {
  return WaitUntil([&] { return holds(monitor.State()); }, timeout);
}

bool Stepping(const JobState& s, int rank, int64_t past) {
  return s.ranks[rank].last_end_step > past;
}

std::optional<Verdict> VerdictOf(const JobState& s, int rank) {
  for (const Verdict& verdict : s.verdicts) {
    if (verdict.rank == rank) return verdict;
  }
  return std::nullopt;
}

class MonitorPartitionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Before any connection: BlackholeUser knows a user's connections
    // from their first segment on.
    absl::StatusOr<NetworkFaults> faults =
        test_util::StartNetworkFaultTest(kLiveness);
    if (!faults.ok()) GTEST_SKIP() << faults.status();
    faults_.emplace(std::move(*faults));
  }

  void TearDown() override {
    ranks_.clear();
    monitor_.reset();
    if (faults_) EXPECT_TRUE(faults_->Heal().ok());
    faults_.reset();
  }

  // A rank that steps every 10 ms forever, reporting to the monitor; run
  // as `uid` when given.
  ChildProcess* StartRank(int rank, std::optional<int> uid = std::nullopt) {
    ChildProcessOptions options;
    std::vector<std::string> argv = {Runfile("test/integration/monitored_rank"),
                                     "--step_ms=10"};
    options.argv = uid ? test_util::RunAsUser(*uid, argv) : argv;
    options.environment = {
        absl::StrCat("SLUICE_MONITOR=127.0.0.1:", monitor_->port()),
        absl::StrCat("SLUICE_RANK=", rank)};
    options.name = absl::StrCat("monitored_rank", rank);
    options.stderr_to = ChildProcessOptions::Stderr::kInherit;
    ranks_.push_back(std::make_unique<ChildProcess>(std::move(options)));
    EXPECT_TRUE(ranks_.back()->started()) << ranks_.back()->start_error();
    return ranks_.back().get();
  }

  // How long after now (the cut) the monitor calls `rank` silent; fails
  // the test past the bound or when the verdict does not say that the
  // connection went silent.
  std::optional<absl::Duration> AwaitSilent(int rank) {
    const absl::Time cut = absl::Now();
    const bool silent = WaitFor(
        *monitor_,
        [rank](const JobState& s) {
          std::optional<Verdict> verdict = VerdictOf(s, rank);
          return verdict && verdict->kind == VerdictKind::kSilent;
        },
        kSilentTimeout);
    const absl::Duration detected = absl::Now() - cut;
    if (!silent) {
      ADD_FAILURE() << "no silent verdict for rank " << rank << "\n"
                    << monitor_->State().ToString();
      return std::nullopt;
    }
    const JobState state = monitor_->State();
    const std::optional<Verdict> verdict = VerdictOf(state, rank);
    std::fprintf(stderr, "rank %d silent: detected after %s: %s\n", rank,
                 absl::FormatDuration(detected).c_str(),
                 verdict->message.c_str());
    EXPECT_THAT(verdict->message,
                StartsWith(absl::StrCat(
                    "rank ", rank,
                    " silent: its connection to the monitor went silent ")));
    EXPECT_THAT(verdict->message, HasSubstr("nothing heard for"));
    EXPECT_FALSE(state.ranks[rank].connected);
    EXPECT_LT(detected, DetectionBound()) << verdict->message;
    return detected;
  }

  // How long after the heal (now) `rank` is connected again with its
  // verdict cleared and steps past those it made before.
  std::optional<absl::Duration> AwaitRejoin(int rank) {
    const absl::Time healed = absl::Now();
    const int64_t before = monitor_->State().ranks[rank].last_end_step;
    const bool back = WaitFor(
        *monitor_,
        [&](const JobState& s) {
          return s.ranks[rank].connected && !VerdictOf(s, rank) &&
                 Stepping(s, rank, before);
        },
        kRejoinBound);
    if (!back) {
      ADD_FAILURE() << "rank " << rank << " not back within "
                    << absl::FormatDuration(kRejoinBound) << " of the heal\n"
                    << monitor_->State().ToString();
      return std::nullopt;
    }
    const absl::Duration took = absl::Now() - healed;
    std::fprintf(stderr, "rank %d back %s after the heal\n", rank,
                 absl::FormatDuration(took).c_str());
    return took;
  }

  std::optional<NetworkFaults> faults_;
  std::unique_ptr<MonitorServer> monitor_;
  std::vector<std::unique_ptr<ChildProcess>> ranks_;
};

class MonitorPortPartitionTest : public MonitorPartitionTest,
                                 public ::testing::WithParamInterface<Traffic> {
};

TEST_P(MonitorPortPartitionTest, TheRankIsSilentWithinLivenessAndComesBack) {
  monitor_ = StartMonitor(1);
  ASSERT_NE(monitor_, nullptr);
  ChildProcess* rank = StartRank(0);
  ASSERT_TRUE(WaitFor(
      *monitor_, [](const JobState& s) { return Stepping(s, 0, 5); },
      absl::Seconds(20)))
      << monitor_->State().ToString();

  ASSERT_TRUE(faults_->Blackhole(monitor_->port(), GetParam()).ok());
  ASSERT_TRUE(AwaitSilent(0).has_value());
  // The rank goes on training, cut off or not.
  EXPECT_TRUE(rank->Running());

  ASSERT_TRUE(faults_->Heal().ok());
  ASSERT_TRUE(AwaitRejoin(0).has_value());
  EXPECT_TRUE(rank->Running());
}

INSTANTIATE_TEST_SUITE_P(Traffic, MonitorPortPartitionTest,
                         ::testing::Values(Traffic::kBothWays, Traffic::kToPort,
                                           Traffic::kFromPort),
                         [](const ::testing::TestParamInfo<Traffic>& info) {
                           switch (info.param) {
                             case Traffic::kBothWays:
                               return "BothWays";
                             case Traffic::kToPort:
                               return "ToTheMonitor";
                             case Traffic::kFromPort:
                               return "FromTheMonitor";
                           }
                           return "Unknown";
                         });

// Two ranks on one monitor port: rank 1 runs as a fault user, and only its
// connections are cut, as if its host vanished.
TEST_F(MonitorPartitionTest, OneRankCutOffIsSilentAndTheOtherTrainsOn) {
  monitor_ = StartMonitor(2);
  ASSERT_NE(monitor_, nullptr);
  StartRank(0);
  ChildProcess* cut_off = StartRank(1, test_util::kFirstFaultUser);
  ASSERT_TRUE(WaitFor(
      *monitor_,
      [](const JobState& s) { return Stepping(s, 0, 5) && Stepping(s, 1, 5); },
      absl::Seconds(20)))
      << monitor_->State().ToString();

  ASSERT_TRUE(
      faults_->BlackholeUser(test_util::kFirstFaultUser, Traffic::kBothWays)
          .ok());
  const int64_t rank0_before = monitor_->State().ranks[0].last_end_step;
  ASSERT_TRUE(AwaitSilent(1).has_value());
  JobState state = monitor_->State();
  EXPECT_FALSE(VerdictOf(state, 0).has_value()) << state.ToString();
  EXPECT_TRUE(state.ranks[0].connected);
  EXPECT_GT(state.ranks[0].last_end_step, rank0_before + 10)
      << "rank 0 stopped reporting";
  EXPECT_TRUE(cut_off->Running());

  ASSERT_TRUE(faults_->Heal().ok());
  ASSERT_TRUE(AwaitRejoin(1).has_value());
  EXPECT_TRUE(monitor_->State().verdicts.empty())
      << monitor_->State().ToString();
}

}  // namespace
}  // namespace sluice::monitor
