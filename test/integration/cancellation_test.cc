// Cancellation crosses the process boundary: cancelling a call's
// RequestContext (or its deadline passing) stops the execution on the
// worker, which the worker's status and its output both show.
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/host_context/request_context.h"
#include "sluice/support/failure.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kSlept[] = "Slept for 1000 microseconds";

class CancellationTest : public WorkerFixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StartCluster(1));
    absl::StatusOr<RemoteFunction> spin = RegisterTestFunction(task(0), "spin");
    ASSERT_TRUE(spin.ok()) << spin.status();
    spin_ = *spin;
  }

  // Waits until the worker's counters read `active` and `cancelled`.
  void ExpectWorkerSettlesAt(int64_t active, int64_t cancelled) {
    absl::StatusOr<TaskStatus> status =
        WaitForStatus(task(0), [&](const TaskStatus& status) {
          return status.active_executions == active &&
                 status.cancelled_executions == cancelled;
        });
    ASSERT_TRUE(status.ok()) << status.status();
    EXPECT_EQ(status->active_executions, active);
    EXPECT_EQ(status->cancelled_executions, cancelled);
  }

  // Once the worker says the execution stopped, its loop prints no more
  // lines (one iteration already asleep may still finish).
  void ExpectNoMoreIterations() {
    const int printed = worker(0).CountOutput(kSlept);
    absl::SleepFor(absl::Milliseconds(300));
    EXPECT_LE(worker(0).CountOutput(kSlept), printed + 1);
  }

  RemoteFunction spin_;
};

TEST_F(CancellationTest, CancellingTheRequestStopsTheWorkersExecution) {
  RCReference<RequestContext> request = RequestContext::Create(host_.get());
  RCReference<AsyncValue> forever = I32(1000000);
  std::vector<AsyncValue*> arguments = {forever.get()};
  std::vector<RCReference<AsyncValue>> results =
      task(0)->Call(spin_, arguments, request.get());
  ASSERT_TRUE(worker(0).WaitForOutput(kSlept, 1, kHangBound));
  ASSERT_NO_FATAL_FAILURE(ExpectWorkerSettlesAt(1, 0));

  const absl::Time cancelled = absl::Now();
  request->Cancel();
  ASSERT_TRUE(AwaitFor(results));
  EXPECT_LT(absl::Now() - cancelled, kMargin);
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().code(), absl::StatusCode::kCancelled)
      << results[0]->GetError();
  EXPECT_EQ(Classify(results[0]->GetError()), FailureClass::kCancelled);

  ASSERT_NO_FATAL_FAILURE(ExpectWorkerSettlesAt(0, 1));
  ExpectNoMoreIterations();
}

TEST_F(CancellationTest, ADeadlineStopsTheWorkersExecution) {
  CallOptions options;
  options.deadline = absl::Milliseconds(500);
  auto results = CallNow(task(0), spin_, Args(I32(1000000)), nullptr, options);
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().code(), absl::StatusCode::kDeadlineExceeded)
      << results[0]->GetError();
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr("remote call of 'spin' on task /job:worker/task:0"));
  // The worker did not answer within the call's deadline: the call may be
  // tried again, with a longer one or elsewhere.
  EXPECT_EQ(Classify(results[0]->GetError()), FailureClass::kRetryable);
  ASSERT_NO_FATAL_FAILURE(ExpectWorkerSettlesAt(0, 1));
  ExpectNoMoreIterations();
}

TEST_F(CancellationTest, ARequestCancelledBeforehandSendsNothing) {
  RCReference<RequestContext> request = RequestContext::Create(host_.get());
  request->Cancel(absl::CancelledError("not needed after all"));
  auto results = CallNow(task(0), spin_, Args(I32(1000000)), request.get());
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "not needed after all");
  EXPECT_EQ(Classify(results[0]->GetError()), FailureClass::kCancelled);
  ASSERT_NO_FATAL_FAILURE(ExpectWorkerSettlesAt(0, 0));
  EXPECT_EQ(worker(0).CountOutput(kSlept), 0);
}

TEST_F(CancellationTest, OneCancelledCallLeavesTheOthersRunning) {
  RCReference<RequestContext> doomed = RequestContext::Create(host_.get());
  RCReference<AsyncValue> forever = I32(1000000);
  // Long enough for the worker to report both running.
  RCReference<AsyncValue> short_spin = I32(1000);
  std::vector<AsyncValue*> long_arguments = {forever.get()};
  std::vector<AsyncValue*> short_arguments = {short_spin.get()};
  std::vector<RCReference<AsyncValue>> cancelled =
      task(0)->Call(spin_, long_arguments, doomed.get());
  std::vector<RCReference<AsyncValue>> kept =
      task(0)->Call(spin_, short_arguments, nullptr);
  ASSERT_NO_FATAL_FAILURE(ExpectWorkerSettlesAt(2, 0));
  doomed->Cancel();
  ASSERT_TRUE(AwaitFor({cancelled[0].CopyRef(), kept[0].CopyRef()}));
  EXPECT_EQ(cancelled[0]->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(Classify(cancelled[0]->GetError()), FailureClass::kCancelled);
  ASSERT_FALSE(kept[0]->IsError()) << kept[0]->GetError();
  EXPECT_EQ(kept[0]->get<int32_t>(), 0);
  ASSERT_NO_FATAL_FAILURE(ExpectWorkerSettlesAt(0, 1));
}

}  // namespace
}  // namespace sluice::dist::testing
