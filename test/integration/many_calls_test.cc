// 1,000 concurrent remote calls over two workers, one of them SIGKILLed
// halfway: every call resolves, every success carries the right value, the
// failures are the killed worker's and name it, and the healthy worker
// answers every call made to it.
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

constexpr int kCalls = 1000;
constexpr int kKillAfter = kCalls / 2;
constexpr int32_t kOffset = 100000;

class ManyCallsTest : public WorkerFixture {
 protected:
  void SetUp() override {
    RpcOptions options;
    options.deadline = absl::Seconds(30);
    ASSERT_NO_FATAL_FAILURE(StartCluster(2, options));
  }
};

TEST_F(ManyCallsTest, EveryCallResolvesWhenAWorkerDiesHalfway) {
  std::vector<RemoteFunction> slow_add;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<RemoteFunction> function =
        RegisterTestFunction(task(i), "slow_add");
    ASSERT_TRUE(function.ok()) << function.status();
    slow_add.push_back(*function);
  }

  RCReference<AsyncValue> offset = I32(kOffset);
  std::vector<RCReference<AsyncValue>> inputs;
  std::vector<RCReference<AsyncValue>> results;
  inputs.reserve(kCalls);
  results.reserve(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    if (i == kKillAfter) worker(1).Kill();
    inputs.push_back(I32(i));
    std::vector<AsyncValue*> arguments = {inputs.back().get(), offset.get()};
    results.push_back(
        std::move(task(i % 2)->Call(slow_add[i % 2], arguments, nullptr)[0]));
  }
  const absl::Time issued = absl::Now();
  ASSERT_TRUE(AwaitFor(results, absl::Seconds(30) + kMargin))
      << "some calls never resolved";
  // Nobody waited for a deadline: the dead worker's calls failed at once.
  EXPECT_LT(absl::Now() - issued, absl::Seconds(30));

  int failed_before_kill = 0;
  int failed_after_kill = 0;
  for (int i = 0; i < kCalls; ++i) {
    const RCReference<AsyncValue>& result = results[i];
    if (!result->IsError()) {
      EXPECT_EQ(result->get<int32_t>(), i + kOffset) << "call " << i;
      continue;
    }
    const absl::Status& error = result->GetError();
    ASSERT_EQ(i % 2, 1) << "call " << i
                        << " to the healthy worker failed: " << error;
    EXPECT_THAT(error.code(), AnyOf(absl::StatusCode::kUnavailable,
                                    absl::StatusCode::kCancelled,
                                    absl::StatusCode::kDeadlineExceeded))
        << "call " << i << ": " << error;
    EXPECT_THAT(error.message(), HasSubstr("remote call of 'slow_add' on task "
                                           "/job:worker/task:1"))
        << "call " << i;
    EXPECT_EQ(GetErrorContext(error).task, Name(1)) << "call " << i;
    // However the call learnt that the worker died, it may be retried.
    EXPECT_EQ(Classify(error), FailureClass::kRetryable) << "call " << i;
    (i < kKillAfter ? failed_before_kill : failed_after_kill)++;
  }
  // Every call made after the kill went to a dead worker.
  EXPECT_EQ(failed_after_kill, (kCalls - kKillAfter) / 2);
  std::printf(
      "calls to the killed worker that failed: %d made before the "
      "kill, %d after\n",
      failed_before_kill, failed_after_kill);

  // The healthy worker has nothing left running.
  absl::StatusOr<TaskStatus> status = WaitForIdle(task(0));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->active_executions, 0);
}

}  // namespace
}  // namespace sluice::dist::testing
