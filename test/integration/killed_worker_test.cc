// A worker killed (SIGKILL) in the middle of a call: the call's results
// become errors that name the task and the function, at once, not when the
// call's deadline passes; later requests to the dead task fail too.
#include <string>

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

using ::testing::HasSubstr;

constexpr char kSlept[] = "Slept for 1000 microseconds";

class KilledWorkerTest : public WorkerFixture {
 protected:
  void SetUp() override {
    RpcOptions options;
    options.deadline = absl::Seconds(30);
    ASSERT_NO_FATAL_FAILURE(StartCluster(1, options));
  }
};

TEST_F(KilledWorkerTest, ACallInFlightFailsAtOnceNamingTaskAndFunction) {
  absl::StatusOr<RemoteFunction> spin = RegisterTestFunction(task(0), "spin");
  ASSERT_TRUE(spin.ok()) << spin.status();
  absl::StatusOr<TaskStatus> before = GetStatusNow(task(0));
  ASSERT_TRUE(before.ok()) << before.status();
  const uint64_t incarnation = before->incarnation;
  ASSERT_NE(incarnation, 0u);
  RCReference<AsyncValue> forever = I32(1000000);
  std::vector<AsyncValue*> arguments = {forever.get()};
  std::vector<RCReference<AsyncValue>> results =
      task(0)->Call(*spin, arguments, nullptr);
  // The worker prints a line per iteration: the call is running.
  ASSERT_TRUE(worker(0).WaitForOutput(kSlept, 1, kHangBound));

  const absl::Time killed = absl::Now();
  worker(0).Kill();
  ASSERT_TRUE(AwaitFor(results, absl::Seconds(30) + kMargin));
  const absl::Duration took = absl::Now() - killed;
  EXPECT_LT(took, kMargin) << "the call failed only after " << took;

  ExpectTaskError(results[0], absl::StatusCode::kUnavailable,
                  FailureClass::kRetryable, "remote call of 'spin'", Name(0));
  // The client knew which process served the task: the one now dead.
  EXPECT_EQ(GetErrorContext(results[0]->GetError()).incarnation, incarnation);
}

TEST_F(KilledWorkerTest, LaterRequestsToTheDeadTaskFail) {
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  worker(0).Kill();

  // Execution RPCs fail fast under use_caller.
  absl::Time start = absl::Now();
  auto sum = CallNow(task(0), *add, Args(I32(1), I32(2)));
  EXPECT_LT(absl::Now() - start, kMargin);
  ASSERT_TRUE(sum[0]->IsError());
  EXPECT_EQ(sum[0]->GetError().code(), absl::StatusCode::kUnavailable)
      << sum[0]->GetError();
  EXPECT_THAT(sum[0]->GetError().message(),
              HasSubstr("remote call of 'add' on task /job:worker/task:0"));
  EXPECT_EQ(Classify(sum[0]->GetError()), FailureClass::kRetryable);
  EXPECT_EQ(GetErrorContext(sum[0]->GetError()).task, Name(0));

  // A status request waits for the task to come back, until its deadline.
  const absl::Duration deadline = absl::Milliseconds(500);
  start = absl::Now();
  absl::StatusOr<TaskStatus> status = GetStatusNow(task(0), deadline);
  const absl::Duration took = absl::Now() - start;
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.status().code(), absl::StatusCode::kDeadlineExceeded)
      << status.status();
  EXPECT_THAT(status.status().message(),
              HasSubstr("status request on task /job:worker/task:0"));
  EXPECT_EQ(Classify(status.status()), FailureClass::kRetryable);
  EXPECT_LT(took, deadline + kMargin);
}

}  // namespace
}  // namespace sluice::dist::testing
