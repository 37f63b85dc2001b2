// SLUICE_RPC_FAIL_FAST=false: every RPC, registrations and calls included,
// waits for a worker that is down, until its deadline. A worker that comes
// up late (or comes back after a restart) gets the waiting requests.
#include <cstdlib>
#include <string>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/support/error_util.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;

constexpr absl::Duration kDowntime = absl::Seconds(1);

class WaitForReadyTest : public WorkerFixture {
 protected:
  void SetUp() override {
    // The policy comes from the environment, as in a deployed client.
    options_.fail_fast = WaitForReadyPolicyFromEnvironment();
    options_.deadline = absl::Seconds(20);
  }

  RpcOptions options_;
};

TEST_F(WaitForReadyTest, ARegistrationAndCallWaitForALateWorker) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(1, options_, /*start_workers=*/false));
  std::vector<uint8_t> program = TestProgram();
  AsyncValueRef<RemoteProgram> registered = task(0)->RegisterProgram(program);
  absl::SleepFor(kDowntime);
  // Under use_caller this would have failed at once (unreachable test).
  EXPECT_TRUE(registered.IsUnavailable());

  ASSERT_NO_FATAL_FAILURE(StartWorker(0));
  const absl::Time started = absl::Now();
  ASSERT_TRUE(AwaitFor(registered.CopyRCRef()));
  ASSERT_FALSE(registered.IsError()) << registered.GetError();
  EXPECT_LT(absl::Now() - started, kMargin);

  absl::StatusOr<RemoteFunction> add = registered->GetFunction("add");
  ASSERT_TRUE(add.ok()) << add.status();
  auto sum = CallNow(task(0), *add, Args(I32(20), I32(22)));
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
  EXPECT_EQ(sum[0]->get<int32_t>(), 42);
}

TEST_F(WaitForReadyTest, ACallWaitsForARestartedWorker) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(1, options_));
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  auto before = CallNow(task(0), *add, Args(I32(1), I32(2)));
  ASSERT_FALSE(before[0]->IsError()) << before[0]->GetError();

  absl::StatusOr<int> exit_code = worker(0).Terminate();
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0);

  // Made while the task is down: the call waits instead of failing.
  auto arguments = Args(I32(3), I32(4));
  std::vector<AsyncValue*> pointers = {arguments[0].get(), arguments[1].get()};
  std::vector<RCReference<AsyncValue>> during =
      task(0)->Call(*add, pointers, nullptr);
  absl::SleepFor(kDowntime);
  EXPECT_TRUE(during[0]->IsUnavailable());

  // Registrations live in the worker process, so the new process does not
  // know the program: the waiting call reaches it and is told so, which
  // shows that it waited rather than failed.
  ASSERT_NO_FATAL_FAILURE(StartWorker(0));
  ASSERT_TRUE(AwaitFor(during));
  ASSERT_TRUE(during[0]->IsError());
  const absl::Status& error = during[0]->GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kFailedPrecondition) << error;
  EXPECT_THAT(error.message(), HasSubstr("register the program first"));
  EXPECT_THAT(error.message(),
              HasSubstr("remote call of 'add' on task /job:worker/task:0"));

  // That answer made the client forget the registration: registering again
  // reaches the new process, and calls work.
  absl::StatusOr<RemoteFunction> again = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(again.ok()) << again.status();
  auto after = CallNow(task(0), *again, Args(I32(5), I32(6)));
  ASSERT_FALSE(after[0]->IsError()) << after[0]->GetError();
  EXPECT_EQ(after[0]->get<int32_t>(), 11);
}

// A new session with a restarted task (its status RPC answers from a new
// process) makes the client forget what it registered on the old one.
TEST_F(WaitForReadyTest, ARestartedWorkerCanBeRegisteredAgain) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(1, options_));
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  absl::StatusOr<TaskStatus> first = GetStatusNow(task(0));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<int> exit_code = worker(0).Terminate();
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  ASSERT_NO_FATAL_FAILURE(StartWorker(0));
  absl::StatusOr<TaskStatus> second = GetStatusNow(task(0));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE(second->incarnation, first->incarnation);

  add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  absl::StatusOr<TaskStatus> status = GetStatusNow(task(0));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->registered_programs, 1);
  auto sum = CallNow(task(0), *add, Args(I32(3), I32(4)));
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
  EXPECT_EQ(sum[0]->get<int32_t>(), 7);
}

}  // namespace
}  // namespace sluice::dist::testing
