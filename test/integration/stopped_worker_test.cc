// A worker stopped with SIGSTOP keeps its connections open but answers
// nothing: a call fails with DeadlineExceeded when its deadline passes
// first, or as a connection gone silent when the liveness timeout does (a
// stopped process answers no liveness ping), and the worker serves again
// once continued.
#include <string>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "sluice/support/liveness.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;

class StoppedWorkerTest : public WorkerFixture {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(StartCluster(1)); }
  void TearDown() override {
    // A stopped worker would not die of SIGTERM; SIGKILL works regardless,
    // but continuing first keeps the order of events obvious.
    if (workers_[0] != nullptr) worker(0).Continue();
    WorkerFixture::TearDown();
  }
};

TEST_F(StoppedWorkerTest, ACallFailsWithDeadlineExceeded) {
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  worker(0).Stop();

  CallOptions options;
  options.deadline = absl::Seconds(1);
  const absl::Time start = absl::Now();
  auto sum = CallNow(task(0), *add, Args(I32(1), I32(2)), nullptr, options);
  const absl::Duration took = absl::Now() - start;
  ASSERT_TRUE(sum[0]->IsError());
  const absl::Status& error = sum[0]->GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kDeadlineExceeded) << error;
  EXPECT_THAT(error.message(),
              HasSubstr("remote call of 'add' on task /job:worker/task:0 "
                        "failed: no answer within 1s"));
  EXPECT_EQ(GetErrorContext(error).task, Name(0));
  // A worker that does not answer in time may answer elsewhere or later.
  EXPECT_EQ(Classify(error), FailureClass::kRetryable);
  EXPECT_GE(took, *options.deadline - absl::Milliseconds(50));
  EXPECT_LT(took, *options.deadline + kMargin);

  // So does a status request.
  absl::StatusOr<TaskStatus> status =
      GetStatusNow(task(0), absl::Milliseconds(500));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.status().code(), absl::StatusCode::kDeadlineExceeded)
      << status.status();
  EXPECT_THAT(status.status().message(),
              HasSubstr("status request on task /job:worker/task:0"));
  EXPECT_EQ(Classify(status.status()), FailureClass::kRetryable);
}

// A deadline longer than liveness: the call ends when the worker's
// connection has been silent for the liveness timeout and a ping's second.
class StoppedWorkerLivenessTest : public WorkerFixture {
 protected:
  void TearDown() override {
    if (!workers_.empty() && workers_[0] != nullptr) worker(0).Continue();
    WorkerFixture::TearDown();
  }
};

TEST_F(StoppedWorkerLivenessTest, ALongCallFailsAsSilentWithinTheBound) {
  RpcOptions options;
  options.liveness_timeout = absl::Seconds(1);
  ASSERT_NO_FATAL_FAILURE(StartCluster(1, options));
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  worker(0).Stop();

  CallOptions call;
  call.deadline = absl::Seconds(60);
  const absl::Time start = absl::Now();
  auto sum = CallNow(task(0), *add, Args(I32(1), I32(2)), nullptr, call);
  const absl::Duration took = absl::Now() - start;
  ASSERT_TRUE(sum[0]->IsError());
  const absl::Status& error = sum[0]->GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kUnavailable) << error;
  EXPECT_THAT(error.message(),
              HasSubstr("remote call of 'add' on task /job:worker/task:0 "
                        "failed: the connection went silent"));
  EXPECT_EQ(Classify(error), FailureClass::kRetryable);
  EXPECT_LT(took, options.liveness_timeout + kLivenessPingTimeout + kMargin);
}

TEST_F(StoppedWorkerTest, AContinuedWorkerServesAgain) {
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  worker(0).Stop();
  CallOptions options;
  options.deadline = absl::Milliseconds(300);
  auto lost = CallNow(task(0), *add, Args(I32(1), I32(2)), nullptr, options);
  ASSERT_TRUE(lost[0]->IsError());

  worker(0).Continue();
  auto sum = CallNow(task(0), *add, Args(I32(40), I32(2)));
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
  EXPECT_EQ(sum[0]->get<int32_t>(), 42);
  // The call that arrived late was dropped or answered: none is left.
  absl::StatusOr<TaskStatus> status = WaitForIdle(task(0));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->active_executions, 0);
}

// A worker slow to answer a new connection (stopped for 300 ms here; a
// loaded machine does the same) is up, not down: a fail-fast registration
// on a fresh session waits for the handshake instead of failing. (It once
// failed: GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, which gRPC also takes as the
// connect timeout, was set to 100 ms.)
TEST(SlowHandshakeTest, AFreshSessionWaitsForASlowHandshake) {
  absl::StatusOr<PortReservation> port = PortReservation::Reserve();
  ASSERT_TRUE(port.ok()) << port.status();
  WorkerProcessOptions options;
  options.port = port->port();
  absl::StatusOr<std::unique_ptr<WorkerProcess>> worker =
      WorkerProcess::Start(options);
  ASSERT_TRUE(worker.ok()) << worker.status();
  (*worker)->Stop();

  std::unique_ptr<HostContext> host = MakeClientHost();
  ClusterClient client(WorkerCluster({port->address()}), RpcOptions(),
                       host.get());
  TaskClient* task = *client.GetTask("/job:worker/task:0");
  std::vector<uint8_t> program = TestProgram();
  AsyncValueRef<RemoteProgram> registered = task->RegisterProgram(program);
  absl::SleepFor(absl::Milliseconds(300));
  (*worker)->Continue();
  ASSERT_TRUE(AwaitFor(registered.CopyRCRef()));
  EXPECT_FALSE(registered.IsError()) << registered.GetError();
}

}  // namespace
}  // namespace sluice::dist::testing
