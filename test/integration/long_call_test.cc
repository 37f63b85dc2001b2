// A call that computes for long without ever waiting (a synchronous loop of
// 2^31 iterations) must not make the worker look dead: it stops at its
// deadline or cancellation at its next iteration, and while such calls run,
// the worker answers its status RPC and runs short calls.
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/host_context/request_context.h"
#include "sluice/support/failure.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

// Minutes of work on any machine, were it not stopped.
constexpr int32_t kForever = std::numeric_limits<int32_t>::max();
// The status RPC's deadline while long calls keep the worker's cores busy.
const absl::Duration kStatusDeadline = kMargin / 2;

class LongCallTest : public WorkerFixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StartCluster(1));
    absl::StatusOr<RemoteFunction> count =
        RegisterTestFunction(task(0), "count");
    ASSERT_TRUE(count.ok()) << count.status();
    count_ = *count;
  }

  // Starts count(kForever) with `deadline`, not waiting for it.
  std::vector<RCReference<AsyncValue>> StartForever(
      absl::Duration deadline, RequestContext* request = nullptr) {
    CallOptions options;
    options.deadline = deadline;
    AsyncValue* arguments[] = {forever_.get()};
    return task(0)->Call(count_, arguments, request, options);
  }

  // Waits until the worker has stopped every execution and counted at least
  // `cancelled` of them as cancelled; bounded by `within`.
  void ExpectWorkerSettles(int64_t cancelled, absl::Duration within) {
    const absl::Time start = absl::Now();
    absl::StatusOr<TaskStatus> status;
    WaitUntil(
        [&] {
          status = GetStatusNow(task(0), kStatusDeadline);
          return status.ok() && status->active_executions == 0 &&
                 status->cancelled_executions >= cancelled;
        },
        within);
    ASSERT_TRUE(status.ok()) << status.status();
    EXPECT_EQ(status->active_executions, 0);
    EXPECT_GE(status->cancelled_executions, cancelled);
    EXPECT_LT(absl::Now() - start, within);
  }

  RemoteFunction count_;
  RCReference<AsyncValue> forever_ = I32(kForever);
};

TEST_F(LongCallTest, ShortLoopsRunToTheEnd) {
  auto results = CallNow(task(0), count_, Args(I32(1000)));
  ASSERT_FALSE(results[0]->IsError()) << results[0]->GetError();
  EXPECT_EQ(results[0]->get<int32_t>(), 1000);
}

TEST_F(LongCallTest, ADeadlineStopsASynchronousLoopOnTheWorker) {
  const absl::Duration deadline = absl::Seconds(2);
  const absl::Time start = absl::Now();
  std::vector<RCReference<AsyncValue>> results = StartForever(deadline);
  ASSERT_TRUE(AwaitFor(results, deadline + kMargin));
  EXPECT_LT(absl::Now() - start, deadline + kMargin);
  ExpectTaskError(results[0], absl::StatusCode::kDeadlineExceeded,
                  FailureClass::kRetryable, "remote call of 'count'", Name(0));
  // The loop stopped on the worker too: the worker is idle again, and says
  // that it cancelled the execution.
  ASSERT_NO_FATAL_FAILURE(ExpectWorkerSettles(1, kMargin));
}

TEST_F(LongCallTest, CancellingTheRequestStopsASynchronousLoop) {
  RCReference<RequestContext> request = RequestContext::Create(host_.get());
  std::vector<RCReference<AsyncValue>> results =
      StartForever(absl::Seconds(60), request.get());
  absl::StatusOr<TaskStatus> running = WaitForStatus(
      task(0),
      [](const TaskStatus& status) { return status.active_executions == 1; });
  ASSERT_TRUE(running.ok()) << running.status();

  request->Cancel(absl::CancelledError("stop counting"));
  ASSERT_TRUE(AwaitFor(results, kMargin));
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "stop counting");
  ASSERT_NO_FATAL_FAILURE(ExpectWorkerSettles(1, kMargin));
}

TEST_F(LongCallTest, TheWorkerAnswersWhileTwoLongCallsRun) {
  // Room for a few status RPCs however slow the build (sanitizers).
  const absl::Duration deadline = absl::Seconds(2) + 2 * kStatusDeadline;
  std::vector<RCReference<AsyncValue>> first = StartForever(deadline);
  std::vector<RCReference<AsyncValue>> second = StartForever(deadline);
  const absl::Time start = absl::Now();

  // Each status RPC answers within its deadline and sees both calls.
  int answered = 0;
  while (absl::Now() - start < deadline - kStatusDeadline) {
    absl::StatusOr<TaskStatus> status = GetStatusNow(task(0), kStatusDeadline);
    ASSERT_TRUE(status.ok()) << status.status();
    if (status->active_executions == 2) ++answered;
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_GE(answered, 3);

  // A short call is not held up behind them.
  CallOptions options;
  options.deadline = kStatusDeadline;
  auto sum = CallNow(task(0), count_, Args(I32(10)), nullptr, options);
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
  EXPECT_EQ(sum[0]->get<int32_t>(), 10);

  ASSERT_TRUE(
      AwaitFor({first[0].CopyRef(), second[0].CopyRef()}, deadline + kMargin));
  EXPECT_EQ(first[0]->GetError().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(second[0]->GetError().code(), absl::StatusCode::kDeadlineExceeded);
  ASSERT_NO_FATAL_FAILURE(ExpectWorkerSettles(2, kMargin));
}

}  // namespace
}  // namespace sluice::dist::testing
