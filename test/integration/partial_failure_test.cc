// One dead worker does not stop the rest: in one batch of calls, those to
// the healthy worker succeed while those to the dead one fail naming it,
// and a dead worker's error flows into the calls that use its results
// without those calls being sent.
#include <string>
#include <vector>

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

constexpr int kCallsPerTask = 50;

class PartialFailureTest : public WorkerFixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StartCluster(2));
    for (int i = 0; i < 2; ++i) {
      absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(i), "add");
      ASSERT_TRUE(add.ok()) << add.status();
      add_.push_back(*add);
    }
  }

  std::vector<RCReference<AsyncValue>> Add(int task_index, AsyncValue* a,
                                           AsyncValue* b) {
    std::vector<AsyncValue*> arguments = {a, b};
    return task(task_index)->Call(add_[task_index], arguments, nullptr);
  }

  std::vector<RemoteFunction> add_;
};

TEST_F(PartialFailureTest, HealthyCallsSucceedBesideFailingOnes) {
  worker(1).Kill();
  std::vector<RCReference<AsyncValue>> healthy, dead;
  RCReference<AsyncValue> one = I32(1);
  std::vector<RCReference<AsyncValue>> inputs;
  for (int i = 0; i < kCallsPerTask; ++i) {
    inputs.push_back(I32(i));
    healthy.push_back(std::move(Add(0, inputs.back().get(), one.get())[0]));
    dead.push_back(std::move(Add(1, inputs.back().get(), one.get())[0]));
  }
  std::vector<RCReference<AsyncValue>> all;
  for (const auto& value : healthy) all.push_back(value.CopyRef());
  for (const auto& value : dead) all.push_back(value.CopyRef());
  ASSERT_TRUE(AwaitFor(all));

  for (int i = 0; i < kCallsPerTask; ++i) {
    ASSERT_FALSE(healthy[i]->IsError()) << healthy[i]->GetError();
    EXPECT_EQ(healthy[i]->get<int32_t>(), i + 1);
    ASSERT_TRUE(dead[i]->IsError()) << "call " << i;
    const absl::Status& error = dead[i]->GetError();
    EXPECT_EQ(error.code(), absl::StatusCode::kUnavailable) << error;
    EXPECT_THAT(error.message(),
                HasSubstr("remote call of 'add' on task /job:worker/task:1"));
    EXPECT_EQ(GetErrorContext(error).task, Name(1));
    EXPECT_EQ(Classify(error), FailureClass::kRetryable);
  }
}

TEST_F(PartialFailureTest, ADeadWorkersErrorFlowsIntoCallsThatUseIt) {
  worker(1).Kill();
  RCReference<AsyncValue> two = I32(2);
  // 2 + 2 on the dead worker, then (that) + 2 on the healthy one: the
  // second call gets the first one's error, naming the dead task.
  std::vector<RCReference<AsyncValue>> lost = Add(1, two.get(), two.get());
  std::vector<RCReference<AsyncValue>> downstream =
      Add(0, lost[0].get(), two.get());
  // Meanwhile values that do not depend on it keep flowing.
  std::vector<RCReference<AsyncValue>> fine = Add(0, two.get(), two.get());
  std::vector<RCReference<AsyncValue>> chained =
      Add(0, fine[0].get(), two.get());
  ASSERT_TRUE(AwaitFor({downstream[0].CopyRef(), chained[0].CopyRef()}));

  ASSERT_TRUE(downstream[0]->IsError());
  EXPECT_EQ(GetErrorContext(downstream[0]->GetError()).task, Name(1));
  // Forwarded as it was made: retrying the first call retries both.
  EXPECT_EQ(Classify(downstream[0]->GetError()), FailureClass::kRetryable);
  EXPECT_THAT(downstream[0]->GetError().message(),
              HasSubstr("on task /job:worker/task:1"));
  ASSERT_FALSE(chained[0]->IsError()) << chained[0]->GetError();
  EXPECT_EQ(chained[0]->get<int32_t>(), 6);

  absl::StatusOr<TaskStatus> status = WaitForIdle(task(0));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->active_executions, 0);
}

}  // namespace
}  // namespace sluice::dist::testing
