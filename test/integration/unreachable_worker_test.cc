// A worker that never starts (its port is reserved but nobody listens):
// status requests fail when their deadline passes, execution RPCs fail at
// once under fail-fast, and every error names the task.
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

using ::testing::AnyOf;
using ::testing::HasSubstr;

// What a call names when its task is unreachable: nothing was registered,
// so the test makes the function by hand.
RemoteFunction AddOnTask0() {
  RemoteFunction add;
  add.task_name = "/job:worker/task:0";
  add.program_id = 1;
  add.name = "add";
  add.argument_types = {"i32", "i32"};
  add.result_types = {"i32"};
  return add;
}

class UnreachableWorkerTest : public WorkerFixture {
 protected:
  void Start(FailFastPolicy policy) {
    RpcOptions options;
    options.fail_fast = policy;
    // Long, so that an RPC failing at once is told from one timing out.
    options.deadline = absl::Seconds(10);
    ASSERT_NO_FATAL_FAILURE(StartCluster(1, options, /*start_workers=*/false));
  }
};

TEST_F(UnreachableWorkerTest, AStatusRequestFailsAtItsDeadline) {
  ASSERT_NO_FATAL_FAILURE(Start(FailFastPolicy::kUseCaller));
  const absl::Duration deadline = absl::Milliseconds(500);
  const absl::Time start = absl::Now();
  absl::StatusOr<TaskStatus> status = GetStatusNow(task(0), deadline);
  const absl::Duration took = absl::Now() - start;
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.status().code(), AnyOf(absl::StatusCode::kDeadlineExceeded,
                                            absl::StatusCode::kUnavailable))
      << status.status();
  EXPECT_THAT(status.status().message(),
              HasSubstr("status request on task /job:worker/task:0 failed"));
  EXPECT_EQ(GetErrorContext(status.status()).task, Name(0));
  EXPECT_EQ(Classify(status.status()), FailureClass::kRetryable);
  // No process of the task ever answered.
  EXPECT_EQ(GetErrorContext(status.status()).incarnation, 0u);
  // It waited for the worker (use_caller), but no longer than asked.
  EXPECT_GE(took, deadline - absl::Milliseconds(50));
  EXPECT_LT(took, deadline + kMargin);
}

TEST_F(UnreachableWorkerTest, ACallFailsAtOnceUnderUseCaller) {
  ASSERT_NO_FATAL_FAILURE(Start(FailFastPolicy::kUseCaller));
  const absl::Time start = absl::Now();
  auto sum = CallNow(task(0), AddOnTask0(), Args(I32(1), I32(2)));
  EXPECT_LT(absl::Now() - start, kMargin);
  ExpectTaskError(sum[0], absl::StatusCode::kUnavailable,
                  FailureClass::kRetryable, "remote call of 'add'", Name(0));
}

TEST_F(UnreachableWorkerTest, ARegistrationFailsAtOnceUnderUseCaller) {
  ASSERT_NO_FATAL_FAILURE(Start(FailFastPolicy::kUseCaller));
  const absl::Time start = absl::Now();
  absl::StatusOr<RemoteProgram> program = RegisterNow(task(0), TestProgram());
  EXPECT_LT(absl::Now() - start, kMargin);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().code(), absl::StatusCode::kUnavailable)
      << program.status();
  EXPECT_THAT(program.status().message(),
              HasSubstr("registering a program on task /job:worker/task:0"));
  EXPECT_EQ(Classify(program.status()), FailureClass::kRetryable);
}

TEST_F(UnreachableWorkerTest, EverythingFailsAtOnceUnderFailFastTrue) {
  ASSERT_NO_FATAL_FAILURE(Start(FailFastPolicy::kTrue));
  const absl::Time start = absl::Now();
  absl::StatusOr<TaskStatus> status = GetStatusNow(task(0));
  auto sum = CallNow(task(0), AddOnTask0(), Args(I32(1), I32(2)));
  EXPECT_LT(absl::Now() - start, kMargin);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.status().code(), absl::StatusCode::kUnavailable)
      << status.status();
  ASSERT_TRUE(sum[0]->IsError());
  EXPECT_EQ(sum[0]->GetError().code(), absl::StatusCode::kUnavailable);
}

TEST_F(UnreachableWorkerTest, ACallWaitsUntilItsDeadlineUnderFailFastFalse) {
  ASSERT_NO_FATAL_FAILURE(Start(FailFastPolicy::kFalse));
  CallOptions options;
  options.deadline = absl::Milliseconds(500);
  const absl::Time start = absl::Now();
  auto sum =
      CallNow(task(0), AddOnTask0(), Args(I32(1), I32(2)), nullptr, options);
  const absl::Duration took = absl::Now() - start;
  ASSERT_TRUE(sum[0]->IsError());
  EXPECT_EQ(sum[0]->GetError().code(), absl::StatusCode::kDeadlineExceeded)
      << sum[0]->GetError();
  EXPECT_THAT(sum[0]->GetError().message(),
              HasSubstr("remote call of 'add' on task /job:worker/task:0 "
                        "failed: no answer within 500ms"));
  EXPECT_EQ(Classify(sum[0]->GetError()), FailureClass::kRetryable);
  EXPECT_GE(took, *options.deadline - absl::Milliseconds(50));
  EXPECT_LT(took, *options.deadline + kMargin);
}

}  // namespace
}  // namespace sluice::dist::testing
