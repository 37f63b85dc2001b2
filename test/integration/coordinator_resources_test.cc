// Per-worker resources on real processes on 127.0.0.1: each worker passes
// its own, a worker restarted as a new process rebuilds its resources
// before it takes closures, and a worker killed while it builds them leaves
// the others serving until it comes back. Every wait is bounded.
#include <cstdint>
#include <set>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "test/integration/coordinator_fixture.h"
#include "test/integration/remote_test_util.h"

namespace sluice::dist::testing {
namespace {

class CoordinatorResourcesTest : public CoordinatorFixture {
 protected:
  // Schedules `count` closures that each sleep `ms` and return what the
  // resource `index` holds on the worker that runs them (its worker
  // index); returns the set of those, after failing the test on an error.
  std::set<int32_t> IndicesFromResource(const PerWorkerResource& index,
                                        int count, int ms) {
    std::vector<RCReference<AsyncValue>> values;
    for (int i = 0; i < count; ++i) {
      auto results =
          Schedule("sleep_then_add", {ClosureArgument::Of<int32_t>(ms), index,
                                      ClosureArgument::Of<int32_t>(0)});
      if (results.empty()) return {};
      values.push_back(std::move(results[0]));
    }
    std::set<int32_t> indices;
    for (const RCReference<AsyncValue>& value : values) {
      absl::StatusOr<int32_t> held = I32Of(value);
      EXPECT_TRUE(held.ok()) << held.status();
      if (held.ok()) indices.insert(*held);
    }
    return indices;
  }
};

TEST_F(CoordinatorResourcesTest, EachWorkerPassesItsOwnResource) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(3));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  absl::StatusOr<PerWorkerResource> index =
      coordinator_->CreatePerWorkerResource(CoordinatorTestFunction("identity"),
                                            {ClosureArgument::WorkerIndex()});
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->num_results(), 1);
  std::vector<std::vector<RCReference<AsyncValue>>> pairs;
  for (int i = 0; i < 30; ++i) {
    pairs.push_back(Schedule("pair", {*index, ClosureArgument::WorkerIndex()}));
  }
  ASSERT_TRUE(JoinBounded().ok());
  for (const auto& pair : pairs) {
    ASSERT_EQ(pair.size(), 2);
    absl::StatusOr<int32_t> held = I32Of(pair[0]);
    absl::StatusOr<int32_t> worker = I32Of(pair[1]);
    ASSERT_TRUE(held.ok()) << held.status();
    ASSERT_TRUE(worker.ok()) << worker.status();
    EXPECT_EQ(*held, *worker);
    EXPECT_GE(*worker, 0);
    EXPECT_LT(*worker, 3);
  }
  // Every agent builds the resource once its worker answers, whether or not
  // the 30 closures left it any work (a loaded machine may run them all on
  // the first worker up).
  EXPECT_TRUE(WaitUntil(
      [&] { return coordinator_->stats().resource_builds == 3; }, kHangBound))
      << coordinator_->stats().resource_builds;
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_EQ(coordinator_->stats().resource_builds, 3) << "built once each";
}

TEST_F(CoordinatorResourcesTest, ARestartedWorkerRebuildsItsResourceFirst) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(2));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  absl::StatusOr<PerWorkerResource> index =
      coordinator_->CreatePerWorkerResource(CoordinatorTestFunction("identity"),
                                            {ClosureArgument::WorkerIndex()});
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(IndicesFromResource(*index, 20, 10), (std::set<int32_t>{0, 1}));
  ASSERT_TRUE(JoinBounded().ok());
  EXPECT_EQ(coordinator_->stats().resource_builds, 2);

  // A new process on the same port: nothing the coordinator kept there
  // survives.
  ASSERT_TRUE(cluster_->StartWorker(1).ok());
  // Worker 0 serves alone until worker 1's agent has found the new process
  // and rebuilt the resource there, which takes longer under sanitizers.
  std::set<int32_t> served;
  const absl::Time give_up = absl::Now() + kHangBound;
  while (served.count(1) == 0 && absl::Now() < give_up) {
    std::set<int32_t> batch = IndicesFromResource(*index, 20, 10);
    served.insert(batch.begin(), batch.end());
  }
  EXPECT_EQ(served, (std::set<int32_t>{0, 1}));
  ASSERT_TRUE(JoinBounded().ok());
  CoordinatorStats stats = coordinator_->stats();
  EXPECT_EQ(stats.resource_builds, 3);
  EXPECT_EQ(stats.worker_failures, 1);
  EXPECT_LE(stats.retried, 1);
}

TEST_F(CoordinatorResourcesTest,
       AWorkerKilledWhileBuildingLeavesOthersServing) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(2));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  // Each worker builds its resource for a second: long enough to be killed
  // in the middle.
  absl::StatusOr<PerWorkerResource> index =
      coordinator_->CreatePerWorkerResource(
          CoordinatorTestFunction("sleep_then_add"),
          {ClosureArgument::Of<int32_t>(1000), ClosureArgument::WorkerIndex(),
           ClosureArgument::Of<int32_t>(0)});
  ASSERT_TRUE(index.ok()) << index.status();
  ASSERT_TRUE(WaitUntil(
      [&] { return cluster_->worker(1)->CountOutput("Slept for") > 0; },
      kHangBound));
  cluster_->worker(1)->Kill();
  EXPECT_EQ(IndicesFromResource(*index, 10, 5), std::set<int32_t>{0});
  ASSERT_TRUE(JoinBounded().ok());
  CoordinatorStats stats = coordinator_->stats();
  EXPECT_EQ(stats.resource_builds, 1);
  EXPECT_EQ(stats.retried, 0) << "no closure ran on the worker being built";
  EXPECT_EQ(stats.worker_failures, 1);

  ASSERT_TRUE(cluster_->StartWorker(1).ok());
  ASSERT_TRUE(WaitUntil(
      [&] { return coordinator_->stats().resource_builds == 2; }, kHangBound));
  EXPECT_EQ(IndicesFromResource(*index, 40, 10), (std::set<int32_t>{0, 1}));
  ASSERT_TRUE(JoinBounded().ok());
  EXPECT_EQ(coordinator_->stats().resource_builds, 2);
}

}  // namespace
}  // namespace sluice::dist::testing
