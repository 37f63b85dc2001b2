// The happy path: two sluice_worker processes, one client. Calls on both
// return the right values, values flow from one worker to the other, the
// cluster check sees both, and both shut down cleanly on SIGTERM.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/distributed/remote_client.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::UnorderedElementsAre;

class TwoWorkersTest : public WorkerFixture {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(StartCluster(2)); }
};

TEST_F(TwoWorkersTest, TheClusterCheckSeesBothWorkers) {
  AsyncValueRef<std::vector<TaskStatus>> all = client_->CheckAllTasks();
  ASSERT_TRUE(AwaitFor(all.CopyRCRef()));
  ASSERT_FALSE(all.IsError()) << all.GetError();
  std::vector<std::string> names;
  for (const TaskStatus& status : *all) {
    EXPECT_TRUE(status.serving);
    EXPECT_EQ(status.active_executions, 0);
    names.push_back(status.task_name);
  }
  EXPECT_THAT(names,
              UnorderedElementsAre("/job:worker/task:0", "/job:worker/task:1"));
}

TEST_F(TwoWorkersTest, CallsOnBothWorkersReturnTheirResults) {
  absl::StatusOr<RemoteFunction> add0 = RegisterTestFunction(task(0), "add");
  absl::StatusOr<RemoteFunction> add1 = RegisterTestFunction(task(1), "add");
  ASSERT_TRUE(add0.ok()) << add0.status();
  ASSERT_TRUE(add1.ok()) << add1.status();
  EXPECT_EQ(add0->task_name, "/job:worker/task:0");
  EXPECT_EQ(add1->task_name, "/job:worker/task:1");

  auto sum0 = CallNow(task(0), *add0, Args(I32(2), I32(40)));
  auto sum1 = CallNow(task(1), *add1, Args(I32(-5), I32(8)));
  ASSERT_EQ(sum0.size(), 1u);
  ASSERT_EQ(sum1.size(), 1u);
  ASSERT_FALSE(sum0[0]->IsError()) << sum0[0]->GetError();
  ASSERT_FALSE(sum1[0]->IsError()) << sum1[0]->GetError();
  EXPECT_EQ(sum0[0]->get<int32_t>(), 42);
  EXPECT_EQ(sum1[0]->get<int32_t>(), 3);

  absl::StatusOr<RemoteFunction> twice = RegisterTestFunction(task(1), "twice");
  ASSERT_TRUE(twice.ok()) << twice.status();
  auto doubled = CallNow(task(1), *twice, Args(String("ab")));
  ASSERT_FALSE(doubled[0]->IsError()) << doubled[0]->GetError();
  EXPECT_EQ(doubled[0]->get<std::string>(), "abab");

  // Each worker counts only its own registration.
  absl::StatusOr<TaskStatus> status0 = GetStatusNow(task(0));
  ASSERT_TRUE(status0.ok()) << status0.status();
  EXPECT_EQ(status0->registered_programs, 1);
}

TEST_F(TwoWorkersTest, AResultOfOneWorkerFeedsACallOnTheOther) {
  absl::StatusOr<RemoteFunction> slow_add0 =
      RegisterTestFunction(task(0), "slow_add");
  absl::StatusOr<RemoteFunction> add1 = RegisterTestFunction(task(1), "add");
  ASSERT_TRUE(slow_add0.ok()) << slow_add0.status();
  ASSERT_TRUE(add1.ok()) << add1.status();

  // The second call is made while its argument is still on its way from
  // the first worker.
  auto arguments = Args(I32(20), I32(1));
  std::vector<AsyncValue*> first_args = {arguments[0].get(),
                                         arguments[1].get()};
  std::vector<RCReference<AsyncValue>> first =
      task(0)->Call(*slow_add0, first_args, nullptr);
  RCReference<AsyncValue> one = I32(21);
  std::vector<AsyncValue*> second_args = {first[0].get(), one.get()};
  std::vector<RCReference<AsyncValue>> second =
      task(1)->Call(*add1, second_args, nullptr);
  ASSERT_TRUE(AwaitFor(second));
  ASSERT_FALSE(second[0]->IsError()) << second[0]->GetError();
  EXPECT_EQ(second[0]->get<int32_t>(), 42);
}

TEST_F(TwoWorkersTest, WorkersExitCleanlyOnSigterm) {
  absl::StatusOr<RemoteFunction> add0 = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add0.ok()) << add0.status();
  auto sum = CallNow(task(0), *add0, Args(I32(1), I32(1)));
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();

  for (const std::unique_ptr<WorkerProcess>& worker : workers_) {
    absl::StatusOr<int> exit_code = worker->Terminate();
    ASSERT_TRUE(exit_code.ok()) << exit_code.status();
    EXPECT_EQ(*exit_code, 0) << worker->task_name();
  }
}

}  // namespace
}  // namespace sluice::dist::testing
