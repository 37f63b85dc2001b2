// The coordinator under network partitions, which a process kill does not
// make: a worker whose packets stop sends no reset, so only liveness (the
// keepalive pings of every channel, sluice/support/liveness.h) tells the
// coordinator that its closure is lost, long before the closure deadline.
// Real sluice_worker processes on 127.0.0.1, in a network namespace of the
// test's own where nftables drops one worker's traffic (both ways, or one
// way), then heals it. Every wait is bounded.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "sluice/support/liveness.h"
#include "test/integration/coordinator_fixture.h"
#include "test/integration/remote_test_util.h"
#include "test/util/network_faults.h"

namespace sluice::dist::testing {
namespace {

using test_util::NetworkFaults;
using test_util::Traffic;

// Short, so that the test is quick; the workers take it from the
// environment, the coordinator from SetLivenessTimeout.
constexpr absl::Duration kLiveness = absl::Seconds(1);
// How long a silent worker may take to be given up: the liveness timeout
// and the unanswered ping's own second, plus the margin for a loaded (or
// sanitized) machine.
absl::Duration DetectionBound() {
  return kLiveness + kLivenessPingTimeout + kMargin;
}
// Far above every bound here: a closure that waited it out was not saved
// by liveness.
constexpr absl::Duration kClosureDeadline = absl::Seconds(60);
// After a heal the worker is back once the coordinator's channel has
// connected again (it dials at least every 0.5 s, RpcChannel's reconnect
// backoff, and TCP retransmits a SYN the partition dropped after 1 s) and
// its agent's next probe (every 50 ms) is answered: 0.6 to 1.1 s measured
// after partitions of a few seconds; the bound leaves room for a loaded
// machine and a SYN's second retransmission.
constexpr absl::Duration kRejoinBound = absl::Seconds(10);

const char* TrafficName(Traffic traffic) {
  switch (traffic) {
    case Traffic::kBothWays:
      return "both ways";
    case Traffic::kToPort:
      return "to the worker";
    case Traffic::kFromPort:
      return "from the worker";
  }
  return "?";
}

class CoordinatorPartitionTest : public CoordinatorFixture {
 protected:
  void SetUp() override {
    absl::StatusOr<NetworkFaults> faults =
        test_util::StartNetworkFaultTest(kLiveness);
    if (!faults.ok()) GTEST_SKIP() << faults.status();
    faults_.emplace(std::move(*faults));
  }

  void TearDown() override {
    // Healed first, so that the coordinator's releases reach every worker.
    if (faults_) EXPECT_TRUE(faults_->Heal().ok());
    CoordinatorFixture::TearDown();
    faults_.reset();
  }

  // Two workers, and a coordinator whose closures may take a minute.
  void StartJob() {
    ASSERT_NO_FATAL_FAILURE(StartCluster(2));
    CoordinatorOptions options = TestOptions();
    options.closure_deadline = kClosureDeadline;
    ASSERT_NO_FATAL_FAILURE(MakeCoordinator(options));
  }

  int Port(int worker) {
    const std::string address = cluster_->worker(worker)->address();
    int port = 0;
    EXPECT_TRUE(absl::SimpleAtoi(address.substr(address.rfind(':') + 1), &port))
        << address;
    return port;
  }

  // The worker that prints the sleeps of a closure first, or -1.
  int AwaitBusyWorker() {
    int busy = -1;
    WaitUntil(
        [&] {
          for (int i = 0; i < cluster_->num_workers(); ++i) {
            if (cluster_->worker(i)->CountOutput("Slept for") > 0) busy = i;
          }
          return busy >= 0;
        },
        kHangBound);
    return busy;
  }

  // How long after now `worker` first runs a closure again; nullopt past
  // `bound`. Closures go two at a time, so that the other worker cannot
  // take them all while this one is idle.
  std::optional<absl::Duration> TimeToServe(int worker, absl::Duration bound) {
    const absl::Time start = absl::Now();
    while (absl::Now() - start < bound) {
      std::vector<RCReference<AsyncValue>> indices;
      for (int i = 0; i < 2; ++i) {
        auto where =
            Schedule("sleep_then_add", {ClosureArgument::Of<int32_t>(100),
                                        ClosureArgument::WorkerIndex(),
                                        ClosureArgument::Of<int32_t>(0)});
        if (where.size() != 1) return std::nullopt;
        indices.push_back(std::move(where[0]));
      }
      for (const RCReference<AsyncValue>& index : indices) {
        absl::StatusOr<int32_t> ran_on = I32Of(index);
        if (ran_on.ok() && *ran_on == worker) return absl::Now() - start;
      }
    }
    return std::nullopt;
  }

  std::optional<NetworkFaults> faults_;
};

TEST_F(CoordinatorPartitionTest, ASilentWorkersClosureRerunsWithinLiveness) {
  ASSERT_NO_FATAL_FAILURE(StartJob());
  constexpr int32_t kClosureMs = 3000;
  auto sum =
      Schedule("sleep_then_add", {ClosureArgument::Of<int32_t>(kClosureMs),
                                  ClosureArgument::Of<int32_t>(20),
                                  ClosureArgument::Of<int32_t>(22)});
  ASSERT_EQ(sum.size(), 1);
  const int busy = AwaitBusyWorker();
  ASSERT_GE(busy, 0) << "no worker ran the closure";
  const int other = 1 - busy;

  ASSERT_TRUE(faults_->Blackhole(Port(busy), Traffic::kBothWays).ok());
  const absl::Time cut = absl::Now();
  // Given up: the attempt counts as retried and the other worker takes
  // the closure.
  ASSERT_TRUE(WaitUntil([&] { return coordinator_->stats().retried >= 1; },
                        kHangBound));
  const absl::Duration detected = absl::Now() - cut;
  ASSERT_TRUE(WaitUntil(
      [&] { return cluster_->worker(other)->CountOutput("Slept for") > 0; },
      kHangBound));
  const absl::Duration rerun = absl::Now() - cut;
  absl::StatusOr<int32_t> value = I32Of(sum[0]);
  const absl::Duration finished = absl::Now() - cut;
  std::fprintf(stderr,
               "worker %d cut off: detected after %s, rerun on worker %d "
               "after %s, result after %s\n",
               busy, absl::FormatDuration(detected).c_str(), other,
               absl::FormatDuration(rerun).c_str(),
               absl::FormatDuration(finished).c_str());
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, 42);
  EXPECT_LT(detected, DetectionBound());
  EXPECT_LT(rerun, DetectionBound());
  // The whole closure again after the detection, far from its deadline.
  EXPECT_LT(finished,
            DetectionBound() + absl::Milliseconds(kClosureMs) + kMargin);
  // The result may be seen a moment before the coordinator counts it.
  EXPECT_TRUE(WaitUntil([&] { return coordinator_->stats().finished == 1; },
                        kHangBound));
  CoordinatorStats stats = coordinator_->stats();
  EXPECT_EQ(stats.retried, 1);
  EXPECT_EQ(stats.attempts, 2);
  EXPECT_EQ(stats.worker_failures, 1);
  EXPECT_EQ(stats.finished, 1);

  // The partition heals: the worker answers a probe and serves again.
  ASSERT_TRUE(faults_->Heal().ok());
  std::optional<absl::Duration> rejoined = TimeToServe(busy, kRejoinBound);
  ASSERT_TRUE(rejoined.has_value())
      << "worker " << busy << " served no closure within "
      << absl::FormatDuration(kRejoinBound) << " of the heal";
  std::fprintf(stderr, "worker %d rejoined after %s (served a closure)\n", busy,
               absl::FormatDuration(*rejoined).c_str());
  EXPECT_EQ(coordinator_->stats().worker_failures, 1);
  EXPECT_TRUE(JoinBounded().ok());
}

class OneWayPartitionTest : public CoordinatorPartitionTest,
                            public ::testing::WithParamInterface<Traffic> {};

TEST_P(OneWayPartitionTest, ClosuresFinishCorrectlyWithinTheBound) {
  const Traffic traffic = GetParam();
  ASSERT_NO_FATAL_FAILURE(StartJob());
  constexpr int kClosures = 8;
  constexpr int32_t kClosureMs = 500;
  std::vector<RCReference<AsyncValue>> sums;
  for (int i = 0; i < kClosures; ++i) {
    auto results =
        Schedule("sleep_then_add", {ClosureArgument::Of<int32_t>(kClosureMs),
                                    ClosureArgument::Of<int32_t>(i),
                                    ClosureArgument::Of<int32_t>(1000)});
    ASSERT_EQ(results.size(), 1);
    sums.push_back(std::move(results[0]));
  }
  // Cut while worker 0 runs a closure, its first.
  ASSERT_TRUE(WaitUntil(
      [&] { return cluster_->worker(0)->CountOutput("Slept for") > 0; },
      kHangBound));
  ASSERT_TRUE(faults_->Blackhole(Port(0), traffic).ok());
  const absl::Time cut = absl::Now();
  // One way is enough to silence the connection: the pings of one end, or
  // their answers, never arrive.
  ASSERT_TRUE(WaitUntil(
      [&] { return coordinator_->stats().worker_failures >= 1; }, kHangBound));
  const absl::Duration detected = absl::Now() - cut;
  const absl::Status joined = JoinBounded();
  const absl::Duration took = absl::Now() - cut;
  std::fprintf(stderr,
               "worker 0 cut off %s: detected after %s, %d closures done %s "
               "after the cut\n",
               TrafficName(traffic), absl::FormatDuration(detected).c_str(),
               kClosures, absl::FormatDuration(took).c_str());
  EXPECT_LT(detected, DetectionBound());
  ASSERT_TRUE(joined.ok()) << joined;
  for (int i = 0; i < kClosures; ++i) {
    absl::StatusOr<int32_t> sum = I32Of(sums[i]);
    ASSERT_TRUE(sum.ok()) << "closure " << i << ": " << sum.status();
    EXPECT_EQ(*sum, i + 1000) << "closure " << i;
  }
  // At worst worker 0 is given up at the bound and worker 1 runs every
  // closure on its own.
  EXPECT_LT(took, DetectionBound() +
                      kClosures * absl::Milliseconds(kClosureMs) + kMargin);
  CoordinatorStats stats = coordinator_->stats();
  EXPECT_EQ(stats.finished, kClosures);
  EXPECT_EQ(stats.worker_failures, 1);
  EXPECT_LE(stats.retried, 1) << "one closure at a time runs on a worker";
  EXPECT_EQ(stats.attempts, kClosures + stats.retried);

  ASSERT_TRUE(faults_->Heal().ok());
  std::optional<absl::Duration> rejoined = TimeToServe(0, kRejoinBound);
  ASSERT_TRUE(rejoined.has_value())
      << "worker 0 served no closure within "
      << absl::FormatDuration(kRejoinBound) << " of the heal";
  std::fprintf(stderr, "worker 0 served a closure %s after the heal\n",
               absl::FormatDuration(*rejoined).c_str());
}

INSTANTIATE_TEST_SUITE_P(OneWay, OneWayPartitionTest,
                         ::testing::Values(Traffic::kToPort,
                                           Traffic::kFromPort),
                         [](const ::testing::TestParamInfo<Traffic>& info) {
                           return info.param == Traffic::kToPort
                                      ? "ToTheWorker"
                                      : "FromTheWorker";
                         });

}  // namespace
}  // namespace sluice::dist::testing
