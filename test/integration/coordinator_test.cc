// The coordinator on real sluice_worker processes on 127.0.0.1: closures
// run and their results come back, a user error is reported by Join once
// and cancels what was queued, inputs of earlier closures are waited for,
// and workers that die, stall or restart cost a retry, never a result.
#include "sluice/coordinator/coordinator.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/support/failure.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;

class CoordinatorTest : public WorkerFixture {
 protected:
  void MakeCoordinator(CoordinatorOptions options = {}) {
    std::vector<std::string> addresses;
    for (const PortReservation& port : ports_) {
      addresses.push_back(port.address());
    }
    absl::StatusOr<std::unique_ptr<Coordinator>> coordinator =
        Coordinator::Create(WorkerCluster(addresses), host_.get(), options);
    ASSERT_TRUE(coordinator.ok()) << coordinator.status();
    coordinator_ = *std::move(coordinator);
    program_ = std::make_shared<std::vector<uint8_t>>(TestProgram());
  }

  ClosureFunction Function(std::string_view name) {
    absl::StatusOr<ClosureFunction> function =
        ClosureFunction::FromProgram(program_, name);
    EXPECT_TRUE(function.ok()) << function.status();
    return *function;
  }

  void TearDown() override {
    coordinator_.reset();
    WorkerFixture::TearDown();
  }

  std::shared_ptr<std::vector<uint8_t>> program_;
  std::unique_ptr<Coordinator> coordinator_;
};

TEST_F(CoordinatorTest, ClosuresRunOnEveryWorkerAndReturnTheirResults) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(2));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  ClosureFunction add = Function("add");
  std::vector<RCReference<AsyncValue>> sums;
  for (int i = 0; i < 50; ++i) {
    auto results = coordinator_->Schedule(
        add,
        {ClosureArgument::Of<int32_t>(i), ClosureArgument::Of<int32_t>(1000)});
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), 1);
    sums.push_back(std::move((*results)[0]));
  }
  ASSERT_TRUE(coordinator_->Join().ok());
  EXPECT_TRUE(coordinator_->Done());
  for (int i = 0; i < 50; ++i) {
    absl::StatusOr<int32_t> sum = coordinator_->Fetch<int32_t>(sums[i]);
    ASSERT_TRUE(sum.ok()) << sum.status();
    EXPECT_EQ(*sum, i + 1000);
  }
  CoordinatorStats stats = coordinator_->stats();
  EXPECT_EQ(stats.scheduled, 50);
  EXPECT_EQ(stats.finished, 50);
  EXPECT_EQ(stats.retried, 0);
}

TEST_F(CoordinatorTest, AClosureWaitsForTheResultOfAnEarlierOne) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(2));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  ClosureFunction add = Function("add");
  auto first = coordinator_->Schedule(
      add, {ClosureArgument::Of<int32_t>(1), ClosureArgument::Of<int32_t>(2)});
  ASSERT_TRUE(first.ok());
  auto second = coordinator_->Schedule(
      add, {(*first)[0].CopyRef(), (*first)[0].CopyRef()});
  ASSERT_TRUE(second.ok());
  absl::StatusOr<int32_t> sum = coordinator_->Fetch<int32_t>((*second)[0]);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, 6);
}

TEST_F(CoordinatorTest, JoinReportsTheFirstUserErrorOnceAndClearsIt) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(1));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  auto failed = coordinator_->Schedule(Function("fail"), {});
  ASSERT_TRUE(failed.ok());
  absl::Status joined = coordinator_->Join();
  EXPECT_FALSE(joined.ok());
  EXPECT_EQ(Classify(joined), FailureClass::kFatal);
  EXPECT_TRUE((*failed)[0]->IsError());
  EXPECT_TRUE(coordinator_->Join().ok()) << "the error is reported once";
  auto after = coordinator_->Schedule(
      Function("add"),
      {ClosureArgument::Of<int32_t>(2), ClosureArgument::Of<int32_t>(3)});
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(*coordinator_->Fetch<int32_t>((*after)[0]), 5);
}

// One failure that fans out (closures that take the failed one's result
// fail with its error) is reported once, as the root cause, with how many
// closure failures it explains.
TEST_F(CoordinatorTest, JoinReportsTheRootCauseWithTheFailuresItExplains) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(1));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  auto failed = coordinator_->Schedule(Function("fail"), {});
  ASSERT_TRUE(failed.ok());
  for (int i = 0; i < 4; ++i) {
    auto dependent = coordinator_->Schedule(
        Function("add"),
        {(*failed)[0].CopyRef(), ClosureArgument::Of<int32_t>(i)});
    ASSERT_TRUE(dependent.ok()) << dependent.status();
  }
  absl::Status joined = coordinator_->Join();
  EXPECT_EQ(std::string(joined.message()),
            "something bad happened (it explains 5 closure failures since the "
            "last report)");
  EXPECT_EQ(Classify(joined), FailureClass::kFatal);
  EXPECT_TRUE(coordinator_->Join().ok()) << "the error is reported once";
}

TEST_F(CoordinatorTest, AKilledWorkersClosureRunsOnAnotherWorker) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(2));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  // Long enough that the kill lands while it runs on whichever worker.
  auto results = coordinator_->Schedule(Function("spin"),
                                        {ClosureArgument::Of<int32_t>(1500)});
  ASSERT_TRUE(results.ok());
  // The busy worker is the one that prints.
  ASSERT_TRUE(WaitUntil(
      [&] {
        return worker(0).CountOutput("Slept for") +
                   worker(1).CountOutput("Slept for") >
               0;
      },
      kHangBound));
  int busy = worker(0).CountOutput("Slept for") > 0 ? 0 : 1;
  worker(busy).Kill();
  absl::StatusOr<int32_t> spun = coordinator_->Fetch<int32_t>((*results)[0]);
  ASSERT_TRUE(spun.ok()) << spun.status();
  EXPECT_EQ(*spun, 0);  // spin's result
  EXPECT_TRUE(coordinator_->Join().ok());
  EXPECT_EQ(coordinator_->stats().retried, 1);
}

}  // namespace
}  // namespace sluice::dist::testing
