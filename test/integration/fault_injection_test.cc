// Faults injected into real sluice_worker processes through SLUICE_FAULTS:
// a worker that dies at a fault point fails the call it was running as a
// retryable error naming the task, an injected error reaches the client
// with its code and class, and a spec that does not parse stops the worker
// before it serves.
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

class FaultInjectionTest : public WorkerFixture {
 protected:
  // One worker with `faults` as its SLUICE_FAULTS, and `add` registered.
  void StartWithFaults(const std::string& faults) {
    worker_environment_ = {"SLUICE_FAULTS=" + faults};
    RpcOptions options;
    // Long, so that a call failing at once is told from one timing out.
    options.deadline = absl::Seconds(30);
    ASSERT_NO_FATAL_FAILURE(StartCluster(1, options));
    absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
    ASSERT_TRUE(add.ok()) << add.status();
    add_ = *add;
    absl::StatusOr<TaskStatus> status = GetStatusNow(task(0));
    ASSERT_TRUE(status.ok()) << status.status();
    incarnation_ = status->incarnation;
  }

  RemoteFunction add_;
  uint64_t incarnation_ = 0;
};

TEST_F(FaultInjectionTest, AWorkerKilledAtCallBeginFailsTheSecondCall) {
  ASSERT_NO_FATAL_FAILURE(StartWithFaults("worker.call.begin=kill@nth=2"));
  auto first = CallNow(task(0), add_, Args(I32(40), I32(2)));
  ASSERT_FALSE(first[0]->IsError()) << first[0]->GetError();
  EXPECT_EQ(first[0]->get<int32_t>(), 42);

  const absl::Time start = absl::Now();
  auto second = CallNow(task(0), add_, Args(I32(1), I32(2)));
  EXPECT_LT(absl::Now() - start, kMargin);
  ASSERT_TRUE(second[0]->IsError());
  const absl::Status& error = second[0]->GetError();
  // The connection broke in the middle of the call.
  EXPECT_THAT(error.code(), AnyOf(absl::StatusCode::kUnavailable,
                                  absl::StatusCode::kCancelled))
      << error;
  EXPECT_THAT(error.message(),
              HasSubstr("remote call of 'add' on task /job:worker/task:0"));
  EXPECT_EQ(Classify(error), FailureClass::kRetryable) << error;
  EXPECT_EQ(GetErrorContext(error).task, Name(0));
  EXPECT_EQ(GetErrorContext(error).incarnation, incarnation_);
  EXPECT_TRUE(WaitUntil([&] { return !worker(0).IsRunning(); }, kMargin));
}

TEST_F(FaultInjectionTest, InjectedErrorsReachTheClientWithCodeAndClass) {
  // INTERNAL alone would read as fatal: a retryable one shows that the class
  // crossed the wire. DATA_LOSS gets its code's class.
  ASSERT_NO_FATAL_FAILURE(
      StartWithFaults("worker.call.begin=error:INTERNAL:retryable@nth=1;"
                      "worker.call.begin=error:DATA_LOSS@nth=2"));
  auto first = CallNow(task(0), add_, Args(I32(1), I32(2)));
  ASSERT_TRUE(first[0]->IsError());
  EXPECT_EQ(first[0]->GetError().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(first[0]->GetError().message(),
            "remote call of 'add' on task /job:worker/task:0 failed: fault "
            "injected at worker.call.begin");
  EXPECT_EQ(Classify(first[0]->GetError()), FailureClass::kRetryable);
  EXPECT_EQ(GetErrorContext(first[0]->GetError()).task, Name(0));
  EXPECT_EQ(GetErrorContext(first[0]->GetError()).incarnation, incarnation_);

  auto second = CallNow(task(0), add_, Args(I32(1), I32(2)));
  ASSERT_TRUE(second[0]->IsError());
  EXPECT_EQ(second[0]->GetError().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Classify(second[0]->GetError()), FailureClass::kFatal);

  auto third = CallNow(task(0), add_, Args(I32(1), I32(2)));
  ASSERT_FALSE(third[0]->IsError()) << third[0]->GetError();
  EXPECT_EQ(third[0]->get<int32_t>(), 3);
  EXPECT_TRUE(worker(0).IsRunning());
}

TEST_F(FaultInjectionTest, ADelayedWorkerMissesTheCallsDeadline) {
  ASSERT_NO_FATAL_FAILURE(StartWithFaults("worker.call.begin=delay:3000"));
  CallOptions options;
  options.deadline = absl::Milliseconds(500);
  const absl::Time start = absl::Now();
  auto sum = CallNow(task(0), add_, Args(I32(1), I32(2)), nullptr, options);
  const absl::Duration took = absl::Now() - start;
  ExpectTaskError(sum[0], absl::StatusCode::kDeadlineExceeded,
                  FailureClass::kRetryable, "remote call of 'add'", Name(0));
  EXPECT_GE(took, *options.deadline - absl::Milliseconds(50));
  EXPECT_LT(took, *options.deadline + kMargin);
}

TEST(FaultSpecTest, AWorkerWithABadSpecRefusesToStart) {
  absl::StatusOr<PortReservation> port = PortReservation::Reserve();
  ASSERT_TRUE(port.ok()) << port.status();
  WorkerProcessOptions options;
  options.port = port->port();
  options.environment = {"SLUICE_FAULTS=worker.call.begin=kil@nth=2"};
  options.stderr_to_stdout = true;
  absl::StatusOr<std::unique_ptr<WorkerProcess>> worker =
      WorkerProcess::Start(options);
  ASSERT_FALSE(worker.ok());
  EXPECT_THAT(worker.status().message(),
              HasSubstr("exited before it was ready: exit code 1"));
  EXPECT_THAT(worker.status().message(),
              HasSubstr("sluice_worker: SLUICE_FAULTS: fault spec entry "
                        "'worker.call.begin=kil@nth=2': unknown action 'kil'"));
}

}  // namespace
}  // namespace sluice::dist::testing
