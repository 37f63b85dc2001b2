// A client may start before its workers: under the default use_caller
// policy the status RPC that starts a session waits for a worker that comes
// up late, and the session then works as usual.
#include <string>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/distributed/remote_client.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

// How long after the client the worker starts.
constexpr absl::Duration kLateStart = absl::Seconds(1);

class ClientBeforeWorkerTest : public WorkerFixture {};

TEST_F(ClientBeforeWorkerTest, TheStatusRequestWaitsForALateWorker) {
  RpcOptions options;
  options.fail_fast = FailFastPolicy::kUseCaller;
  ASSERT_NO_FATAL_FAILURE(StartCluster(1, options, /*start_workers=*/false));

  const absl::Duration deadline = absl::Seconds(20);
  AsyncValueRef<TaskStatus> status = task(0)->GetStatus(deadline);
  absl::SleepFor(kLateStart);
  // Nobody listens yet: the request waits instead of failing.
  EXPECT_TRUE(status.IsUnavailable());

  ASSERT_NO_FATAL_FAILURE(StartWorker(0));
  const absl::Time started = absl::Now();
  ASSERT_TRUE(AwaitFor(status.CopyRCRef(), deadline + kMargin));
  ASSERT_FALSE(status.IsError()) << status.GetError();
  EXPECT_EQ(status->task_name, Name(0));
  EXPECT_TRUE(status->serving);
  // The client retries its connection at least every 0.5 s.
  EXPECT_LT(absl::Now() - started, kMargin);

  // The session then works like any other.
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  auto sum = CallNow(task(0), *add, Args(I32(40), I32(2)));
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
  EXPECT_EQ(sum[0]->get<int32_t>(), 42);
}

TEST_F(ClientBeforeWorkerTest, TheClusterCheckWaitsForEveryWorker) {
  ASSERT_NO_FATAL_FAILURE(
      StartCluster(2, RpcOptions(), /*start_workers=*/false));
  AsyncValueRef<std::vector<TaskStatus>> all = client_->CheckAllTasks();
  absl::SleepFor(kLateStart);
  ASSERT_NO_FATAL_FAILURE(StartWorker(1));
  // One worker up is not enough.
  EXPECT_FALSE(AwaitFor(all.CopyRCRef(), absl::Milliseconds(200)));
  ASSERT_NO_FATAL_FAILURE(StartWorker(0));
  ASSERT_TRUE(AwaitFor(all.CopyRCRef()));
  ASSERT_FALSE(all.IsError()) << all.GetError();
  ASSERT_EQ(all->size(), 2u);
}

}  // namespace
}  // namespace sluice::dist::testing
