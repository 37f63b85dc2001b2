// The coordinator under failures, on real processes on 127.0.0.1: a worker
// killed among many closures, one stopped past the closure deadline, every
// worker dead, a user error, a producer lost after running (lineage
// re-execution), and a parameter server's death, which stops the job with
// the restartable exit code. Every wait is bounded.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "test/integration/coordinator_fixture.h"
#include "test/integration/remote_test_util.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;

using CoordinatorFaultsTest = CoordinatorFixture;

TEST_F(CoordinatorFaultsTest, AWorkerKilledAmongManyClosuresCostsNoResult) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(3));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  constexpr int kClosures = 60;
  std::vector<RCReference<AsyncValue>> sums;
  for (int i = 0; i < kClosures; ++i) {
    auto results =
        Schedule("sleep_then_add", {ClosureArgument::Of<int32_t>(20),
                                    ClosureArgument::Of<int32_t>(i),
                                    ClosureArgument::Of<int32_t>(1000)});
    ASSERT_EQ(results.size(), 1);
    sums.push_back(std::move(results[0]));
  }
  ASSERT_TRUE(WaitUntil([&] { return coordinator_->stats().finished >= 15; },
                        kHangBound));
  cluster_->worker(1)->Kill();
  ASSERT_TRUE(JoinBounded().ok());
  for (int i = 0; i < kClosures; ++i) {
    absl::StatusOr<int32_t> sum = I32Of(sums[i]);
    ASSERT_TRUE(sum.ok()) << "closure " << i << ": " << sum.status();
    EXPECT_EQ(*sum, i + 1000);
  }
  CoordinatorStats stats = coordinator_->stats();
  EXPECT_EQ(stats.scheduled, kClosures);
  EXPECT_EQ(stats.finished, kClosures);
  // One closure at a time runs on a worker: the kill loses at most one.
  EXPECT_LE(stats.retried, 1);
  EXPECT_EQ(stats.attempts, kClosures + stats.retried);
  EXPECT_GE(stats.worker_failures, 1);
}

TEST_F(CoordinatorFaultsTest, AStalledWorkersClosureRerunsAtTheDeadline) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(2));
  CoordinatorOptions options = TestOptions();
  options.closure_deadline = absl::Seconds(1);
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator(options));
  auto slow = Schedule("sleep_then_add", {ClosureArgument::Of<int32_t>(300),
                                          ClosureArgument::Of<int32_t>(1),
                                          ClosureArgument::Of<int32_t>(2)});
  ASSERT_EQ(slow.size(), 1);
  // The busy worker is the one that prints its sleeps.
  int busy = -1;
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (int i = 0; i < 2; ++i) {
          if (cluster_->worker(i)->CountOutput("Slept for") > 0) busy = i;
        }
        return busy >= 0;
      },
      kHangBound));
  const absl::Time stopped = absl::Now();
  cluster_->worker(busy)->Stop();
  absl::StatusOr<int32_t> sum = I32Of(slow[0]);
  const absl::Duration took = absl::Now() - stopped;
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, 3);
  // The deadline, then the 300 ms closure again on the other worker.
  EXPECT_LT(took, options.closure_deadline + absl::Milliseconds(300) + kMargin);
  CoordinatorStats stats = coordinator_->stats();
  EXPECT_EQ(stats.retried, 1);
  EXPECT_EQ(stats.attempts, 2);
  EXPECT_EQ(stats.worker_failures, 1);

  // Continued, it answers the probe and takes closures again.
  cluster_->worker(busy)->Continue();
  std::set<int32_t> ran_on;
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto where =
            Schedule("sleep_then_add", {ClosureArgument::Of<int32_t>(20),
                                        ClosureArgument::WorkerIndex(),
                                        ClosureArgument::Of<int32_t>(0)});
        absl::StatusOr<int32_t> index = I32Of(where[0]);
        if (index.ok()) ran_on.insert(*index);
        return ran_on.count(busy) > 0;
      },
      absl::Seconds(20)))
      << "worker " << busy << " never ran a closure after SIGCONT";
  EXPECT_EQ(coordinator_->stats().worker_failures, 1);
}

TEST_F(CoordinatorFaultsTest, EveryWorkerDeadFailsJoinAfterTheRecoveryTimeout) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(2));
  CoordinatorOptions options = TestOptions();
  options.recovery_timeout = absl::Seconds(1);
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator(options));
  auto warm = Schedule("add", {ClosureArgument::Of<int32_t>(1),
                               ClosureArgument::Of<int32_t>(1)});
  ASSERT_EQ(*I32Of(warm[0]), 2);
  cluster_->worker(0)->Kill();
  cluster_->worker(1)->Kill();

  const absl::Time start = absl::Now();
  auto lost = Schedule("add", {ClosureArgument::Of<int32_t>(2),
                               ClosureArgument::Of<int32_t>(3)});
  absl::Status joined = JoinBounded();
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(joined.code(), absl::StatusCode::kUnavailable) << joined;
  EXPECT_THAT(joined.message(), HasSubstr("recovery timeout"));
  EXPECT_THAT(joined.message(), HasSubstr("/job:worker/task:0"));
  EXPECT_THAT(joined.message(), HasSubstr("/job:worker/task:1"));
  EXPECT_GE(took, options.recovery_timeout);
  EXPECT_LT(took, options.recovery_timeout + options.probe_deadline + kMargin);
  absl::StatusOr<int32_t> value = I32Of(lost[0]);
  EXPECT_EQ(value.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(JoinBounded().ok()) << "the failure is reported once";

  // A worker that comes back serves the next closures.
  ASSERT_TRUE(cluster_->StartWorker(0).ok());
  auto after = Schedule("add", {ClosureArgument::Of<int32_t>(2),
                                ClosureArgument::Of<int32_t>(3)});
  absl::StatusOr<int32_t> sum = I32Of(after[0]);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, 5);
}

TEST_F(CoordinatorFaultsTest, AUserErrorCancelsTheQueuedClosuresAndIsCleared) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(1));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  // The one worker is busy while the rest queue up behind it.
  auto first = Schedule("sleep_then_add", {ClosureArgument::Of<int32_t>(200),
                                           ClosureArgument::Of<int32_t>(1),
                                           ClosureArgument::Of<int32_t>(1)});
  auto failed = Schedule("fail", {});
  std::vector<RCReference<AsyncValue>> queued;
  for (int i = 0; i < 5; ++i) {
    auto results = Schedule("add", {ClosureArgument::Of<int32_t>(i),
                                    ClosureArgument::Of<int32_t>(i)});
    queued.push_back(std::move(results[0]));
  }
  absl::Status joined = JoinBounded();
  EXPECT_EQ(Classify(joined), FailureClass::kFatal) << joined;
  EXPECT_EQ(GetErrorContext(joined).kernel, "tfrt_test.fail") << joined;
  EXPECT_EQ(GetErrorContext(joined).task, "/job:worker/task:0") << joined;
  EXPECT_EQ(*I32Of(first[0]), 2);
  EXPECT_FALSE(I32Of(failed[0]).ok());
  for (const RCReference<AsyncValue>& value : queued) {
    absl::StatusOr<int32_t> cancelled = I32Of(value);
    EXPECT_EQ(cancelled.status().code(), absl::StatusCode::kCancelled)
        << cancelled.status();
    EXPECT_THAT(cancelled.status().message(),
                HasSubstr("closure 'add' was cancelled: an earlier closure "
                          "failed"));
  }
  CoordinatorStats stats = coordinator_->stats();
  EXPECT_EQ(stats.finished, 7);
  EXPECT_EQ(stats.attempts, 2) << "the cancelled closures never ran";

  EXPECT_TRUE(JoinBounded().ok()) << "the error is reported once";
  auto after = Schedule("add", {ClosureArgument::Of<int32_t>(2),
                                ClosureArgument::Of<int32_t>(3)});
  EXPECT_EQ(*I32Of(after[0]), 5);
}

TEST_F(CoordinatorFaultsTest, ScheduleReportsAUserErrorOnceWithoutScheduling) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(1));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  Schedule("fail", {});
  ASSERT_TRUE(WaitUntil([&] { return coordinator_->Done(); }, kHangBound));
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> refused =
      coordinator_->Schedule(
          CoordinatorTestFunction("add"),
          {ClosureArgument::Of<int32_t>(1), ClosureArgument::Of<int32_t>(1)});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(GetErrorContext(refused.status()).kernel, "tfrt_test.fail");
  EXPECT_EQ(coordinator_->stats().scheduled, 1);
  auto after = Schedule("add", {ClosureArgument::Of<int32_t>(1),
                                ClosureArgument::Of<int32_t>(1)});
  EXPECT_EQ(*I32Of(after[0]), 2);
  EXPECT_TRUE(JoinBounded().ok());
}

TEST_F(CoordinatorFaultsTest, AProducerLostBeforeItAnsweredRunsAgain) {
  // Worker 0 dies after its first call has run, before it answers; worker
  // 1 starts only then, so the producer surely ran on worker 0 first.
  ASSERT_NO_FATAL_FAILURE(StartCluster(2, 0, /*start_workers=*/false));
  ASSERT_TRUE(
      cluster_->StartWorker(0, {"SLUICE_FAULTS=worker.call.end=kill@nth=1"})
          .ok());
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  auto produced = Schedule("add", {ClosureArgument::Of<int32_t>(1),
                                   ClosureArgument::Of<int32_t>(2)});
  auto doubled =
      Schedule("add", {produced[0].CopyRef(), produced[0].CopyRef()});
  auto shifted = Schedule(
      "add", {produced[0].CopyRef(), ClosureArgument::Of<int32_t>(10)});
  ASSERT_TRUE(
      WaitUntil([&] { return !cluster_->worker(0)->IsRunning(); }, kHangBound));
  EXPECT_FALSE(produced[0]->IsAvailable()) << "nothing answered yet";
  ASSERT_TRUE(cluster_->StartWorker(1).ok());

  absl::StatusOr<int32_t> six = I32Of(doubled[0]);
  ASSERT_TRUE(six.ok()) << six.status();
  EXPECT_EQ(*six, 6);
  EXPECT_EQ(*I32Of(shifted[0]), 13);
  EXPECT_EQ(*I32Of(produced[0]), 3);
  ASSERT_TRUE(JoinBounded().ok());
  CoordinatorStats stats = coordinator_->stats();
  EXPECT_EQ(stats.retried, 1);
  EXPECT_EQ(stats.attempts, 4) << "the producer twice, each consumer once";
  EXPECT_EQ(stats.finished, 3);
}

TEST_F(CoordinatorFaultsTest, AParameterServersDeathStopsTheJobRestartably) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(2, 1));
  ASSERT_NO_FATAL_FAILURE(MakeCoordinator());
  absl::StatusOr<DenseHostTensor> zero = DenseHostTensor::Create(
      DType::kI64, TensorShape({1}), host_->allocator());
  ASSERT_TRUE(zero.ok());
  zero->mutable_values<int64_t>()[0] = 0;
  AsyncValueRef<VariableHandle> counter =
      coordinator_->variables().Create("counter", *std::move(zero));
  ASSERT_TRUE(AwaitFor(counter.CopyRCRef()));
  ASSERT_FALSE(counter.IsError()) << counter.GetError();
  absl::StatusOr<DenseHostTensor> one = DenseHostTensor::Create(
      DType::kI64, TensorShape({1}), host_->allocator());
  ASSERT_TRUE(one.ok());
  one->mutable_values<int64_t>()[0] = 1;
  RCReference<AsyncValue> delta =
      MakeAvailableAsyncValueRef<DenseHostTensor>(*std::move(one))
          .ReleaseRCRef();
  auto bump = [&] {
    return coordinator_->Schedule(CoordinatorTestFunction("bump"),
                                  {counter.CopyRCRef(), delta.CopyRef(),
                                   ClosureArgument::Of<int32_t>(0)});
  };
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(bump().ok());
  ASSERT_TRUE(JoinBounded().ok());
  AsyncValueRef<DenseHostTensor> read =
      coordinator_->variables().Read(counter.get());
  ASSERT_TRUE(AwaitFor(read.CopyRCRef()));
  ASSERT_FALSE(read.IsError()) << read.GetError();
  EXPECT_EQ(read->values<int64_t>()[0], 10);

  cluster_->ps(0)->Kill();
  const absl::Time start = absl::Now();
  std::vector<RCReference<AsyncValue>> lost;
  for (int i = 0; i < 5; ++i) {
    auto results = bump();
    if (results.ok()) lost.push_back(std::move((*results)[0]));
  }
  absl::Status joined = JoinBounded();
  EXPECT_LT(absl::Now() - start, kMargin);
  EXPECT_EQ(ExitCodeFor(joined), kRestartableExitCode) << joined;
  EXPECT_THAT(joined.message(), HasSubstr("parameter server /job:ps/task:0"));
  EXPECT_THAT(joined.message(), HasSubstr("restart from its last checkpoint"));
  ASSERT_FALSE(lost.empty());
  for (const RCReference<AsyncValue>& value : lost) {
    ASSERT_TRUE(AwaitFor(value));
    EXPECT_TRUE(value->IsError());
  }
  // The job stays stopped: Schedule and Join report it from now on.
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> refused = bump();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(ExitCodeFor(refused.status()), kRestartableExitCode);
  EXPECT_EQ(ExitCodeFor(JoinBounded()), kRestartableExitCode);
}

}  // namespace
}  // namespace sluice::dist::testing
