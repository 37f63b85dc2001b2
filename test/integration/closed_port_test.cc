// A worker that shut down cleanly (SIGTERM): its port is closed, so calls
// fail at once with Unavailable naming the task; a call still running when
// the worker shuts down is answered, not left hanging.
#include <string>

#include "absl/strings/str_cat.h"
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

constexpr absl::Duration kShutdownGrace = absl::Milliseconds(500);

class ClosedPortTest : public WorkerFixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(
        StartCluster(1, RpcOptions(), /*start_workers=*/true,
                     {"--work_queue_type=mstd:2",
                      absl::StrCat("--shutdown_grace_s=",
                                   absl::ToDoubleSeconds(kShutdownGrace))}));
  }
};

TEST_F(ClosedPortTest, ACallAfterShutdownFailsWithUnavailable) {
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  auto sum = CallNow(task(0), *add, Args(I32(1), I32(2)));
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();

  absl::StatusOr<int> exit_code = worker(0).Terminate();
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0);

  const absl::Time start = absl::Now();
  sum = CallNow(task(0), *add, Args(I32(1), I32(2)));
  EXPECT_LT(absl::Now() - start, kMargin);
  ExpectTaskError(sum[0], absl::StatusCode::kUnavailable,
                  FailureClass::kRetryable, "remote call of 'add'", Name(0));
}

TEST_F(ClosedPortTest, ACallRunningAtShutdownIsAnswered) {
  absl::StatusOr<RemoteFunction> spin = RegisterTestFunction(task(0), "spin");
  ASSERT_TRUE(spin.ok()) << spin.status();
  RCReference<AsyncValue> forever = I32(1000000);
  std::vector<AsyncValue*> arguments = {forever.get()};
  std::vector<RCReference<AsyncValue>> results =
      task(0)->Call(*spin, arguments, nullptr);
  ASSERT_TRUE(
      worker(0).WaitForOutput("Slept for 1000 microseconds", 1, kHangBound));

  const absl::Time start = absl::Now();
  absl::StatusOr<int> exit_code = worker(0).Terminate();
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0);
  ASSERT_TRUE(AwaitFor(results, kShutdownGrace + kMargin));
  EXPECT_LT(absl::Now() - start, kShutdownGrace + kMargin);
  ASSERT_TRUE(results[0]->IsError());
  const absl::Status& error = results[0]->GetError();
  EXPECT_THAT(error.code(), AnyOf(absl::StatusCode::kCancelled,
                                  absl::StatusCode::kUnavailable))
      << error;
  EXPECT_THAT(error.message(), HasSubstr("/job:worker/task:0"));
  EXPECT_EQ(GetErrorContext(error).task, Name(0));
  // The worker went away, whichever way the call learnt it.
  EXPECT_EQ(Classify(error), FailureClass::kRetryable);
}

// A kernel blocked outside the executor (a 2,000 s sleep) ignores the
// cancellation at the grace's end; the worker still exits within its grace
// and a second, saying why, instead of outliving its SIGTERM.
TEST_F(ClosedPortTest, AKernelThatNeverReturnsDoesNotHoldShutdown) {
  absl::StatusOr<RemoteFunction> blocked =
      RegisterTestFunction(task(0), "blocked");
  ASSERT_TRUE(blocked.ok()) << blocked.status();
  RCReference<AsyncValue> forever = I32(2000000000);
  std::vector<AsyncValue*> arguments = {forever.get()};
  std::vector<RCReference<AsyncValue>> results =
      task(0)->Call(*blocked, arguments, nullptr);
  absl::StatusOr<TaskStatus> running = WaitForStatus(
      task(0),
      [](const TaskStatus& status) { return status.active_executions == 1; });
  ASSERT_TRUE(running.ok()) << running.status();

  const absl::Time start = absl::Now();
  absl::StatusOr<int> exit_code = worker(0).Terminate(kHangBound);
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 1);
  EXPECT_LT(absl::Now() - start, kShutdownGrace + absl::Seconds(1) + kMargin);
  ASSERT_TRUE(AwaitFor(results, kMargin));
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(Classify(results[0]->GetError()), FailureClass::kRetryable)
      << results[0]->GetError();
}

}  // namespace
}  // namespace sluice::dist::testing
