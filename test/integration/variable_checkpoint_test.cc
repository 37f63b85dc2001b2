// Variables on real parameter servers (sluice_worker processes on
// 127.0.0.1) saved to a checkpoint and restored onto clusters with another
// number of ps tasks, and checkpoints no parameter server would take back
// refused before any variable is touched.
#include "sluice/coordinator/variable_checkpoint.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/coordinator/variables.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/support/failure.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_process.h"
#include "test/util/checkpoint_tensors.h"

namespace sluice::dist {
namespace {

using test_util::BitIdentical;
using test_util::TensorMap;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class VariableCheckpointTest : public ::testing::Test {
 protected:
  // Replaces the cluster with `num_tasks` fresh ps tasks and a client.
  void StartPs(int num_tasks) {
    client_.reset();
    workers_.clear();
    ports_.clear();
    std::vector<std::string> addresses;
    for (int i = 0; i < num_tasks; ++i) {
      absl::StatusOr<testing::PortReservation> port =
          testing::PortReservation::Reserve();
      ASSERT_TRUE(port.ok()) << port.status();
      testing::WorkerProcessOptions options;
      options.task_name = TaskName("ps", i);
      options.port = port->port();
      absl::StatusOr<std::unique_ptr<testing::WorkerProcess>> worker =
          testing::WorkerProcess::Start(options);
      ASSERT_TRUE(worker.ok()) << worker.status();
      addresses.push_back(absl::StrCat("\"", port->address(), "\""));
      ports_.push_back(*std::move(port));
      workers_.push_back(*std::move(worker));
    }
    absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(
        absl::StrCat("{\"ps\": [", absl::StrJoin(addresses, ", "), "]}"));
    ASSERT_TRUE(spec.ok()) << spec.status();
    client_ =
        std::make_unique<VariableClient>(*spec, RpcOptions(), host_.get());
  }

  void TearDown() override {
    client_.reset();
    workers_.clear();
  }

  template <typename T>
  absl::StatusOr<T> Wait(AsyncValueRef<T> value) {
    if (!testing::AwaitFor(value.CopyRCRef())) {
      return absl::DeadlineExceededError("a variable call hung");
    }
    if (value.IsError()) return value.GetError();
    return value.get();
  }

  DenseHostTensor Tensor(const std::string& name) {
    return test_tensors_.at(name);
  }

  // Every variable's value and Adam state as named tensors ("<name>",
  // "<name>/m", "<name>/v"; the Adam step in `adam_steps`), read from the
  // tasks.
  TensorMap ReadAll(std::map<std::string, int64_t>* adam_steps) {
    TensorMap tensors;
    absl::StatusOr<std::vector<VariableHandle>> handles =
        Wait(client_->ListAll());
    EXPECT_TRUE(handles.ok()) << handles.status();
    if (!handles.ok()) return tensors;
    for (const VariableHandle& handle : *handles) {
      absl::StatusOr<VariableState> state = Wait(client_->ReadState(handle));
      EXPECT_TRUE(state.ok()) << state.status();
      if (!state.ok()) continue;
      tensors[handle.name] = state->value;
      if (state->adam.step > 0) {
        tensors[handle.name + "/m"] = state->adam.m;
        tensors[handle.name + "/v"] = state->adam.v;
        (*adam_steps)[handle.name] = state->adam.step;
      }
    }
    return tensors;
  }

  // Tasks that hold at least one of `variables`.
  static std::set<std::string> TasksOf(
      const std::vector<VariableHandle>& variables) {
    std::set<std::string> tasks;
    for (const VariableHandle& v : variables) tasks.insert(v.task);
    return tasks;
  }

  // Creates the variables the tests save (values with NaN payloads, an
  // empty one, i1 and integers) on the current cluster, and gives one of
  // them Adam state.
  void CreateVariables() {
    for (const char* name : {"f32/special", "f64/special", "i64/extremes",
                             "bool/matrix", "empty/f32", "scalar/i64"}) {
      ASSERT_TRUE(Wait(client_->Create(name, Tensor(name))).ok()) << name;
    }
    const DenseHostTensor weights = Tensor("random/f64");
    absl::StatusOr<VariableHandle> handle =
        Wait(client_->Create("weights", weights));
    ASSERT_TRUE(handle.ok()) << handle.status();
    // A finite gradient: the weights' random bits hold NaNs and infinities,
    // which would make moments that no parameter server takes back.
    std::vector<double> gradient(weights.num_elements());
    for (size_t i = 0; i < gradient.size(); ++i) gradient[i] = 0.25 * i - 10;
    const DenseHostTensor finite = *DenseHostTensor::FromValues<double>(
        weights.shape(), gradient, host_->allocator());
    for (int step = 0; step < 2; ++step) {
      ASSERT_TRUE(Wait(client_->ApplyAdam(*handle, finite)).ok());
    }
  }

  // Restores `dir_` onto the current cluster and checks every value and
  // Adam state against `expected`.
  void RestoreAndCheck(const TensorMap& expected,
                       const std::map<std::string, int64_t>& adam_steps,
                       size_t expected_tasks) {
    absl::StatusOr<RestoredVariables> restored =
        RestoreVariables(*client_, host_.get(), dir_);
    ASSERT_TRUE(restored.ok()) << restored.status();
    EXPECT_EQ(restored->step, 100);
    EXPECT_EQ(restored->epoch, 3);
    EXPECT_EQ(restored->variables.size(), 7u);
    EXPECT_EQ(TasksOf(restored->variables).size(), expected_tasks);
    std::map<std::string, int64_t> restored_steps;
    EXPECT_TRUE(BitIdentical(expected, ReadAll(&restored_steps)));
    EXPECT_EQ(restored_steps, adam_steps);
  }

  std::unique_ptr<HostContext> host_ = testing::MakeClientHost();
  const TensorMap test_tensors_ =
      test_util::CheckpointTestTensors(5, host_->allocator());
  const std::string dir_ = test_util::MakeTempDirectory();
  std::vector<testing::PortReservation> ports_;
  std::vector<std::unique_ptr<testing::WorkerProcess>> workers_;
  std::unique_ptr<VariableClient> client_;
};

TEST_F(VariableCheckpointTest, SavedFromTwoPsRestoredOntoOneAndThree) {
  ASSERT_NO_FATAL_FAILURE(StartPs(2));
  ASSERT_NO_FATAL_FAILURE(CreateVariables());
  std::map<std::string, int64_t> adam_steps;
  const TensorMap saved = ReadAll(&adam_steps);
  ASSERT_EQ(saved.size(), 9u);  // 7 values, one m and one v
  EXPECT_THAT(adam_steps, ElementsAre(std::make_pair("weights", 2)));
  absl::StatusOr<std::vector<VariableHandle>> held = Wait(client_->ListAll());
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_EQ(TasksOf(*held).size(), 2u);
  absl::Status status = SaveVariables(*client_, host_.get(), dir_, 100, 3);
  ASSERT_TRUE(status.ok()) << status;

  ASSERT_NO_FATAL_FAILURE(StartPs(1));
  ASSERT_NO_FATAL_FAILURE(RestoreAndCheck(saved, adam_steps, 1));

  ASSERT_NO_FATAL_FAILURE(StartPs(3));
  ASSERT_NO_FATAL_FAILURE(RestoreAndCheck(saved, adam_steps, 3));
}

TEST_F(VariableCheckpointTest, AVariableAlreadyHeldIsAssignedWhereItIs) {
  ASSERT_NO_FATAL_FAILURE(StartPs(2));
  ASSERT_NO_FATAL_FAILURE(CreateVariables());
  std::map<std::string, int64_t> adam_steps;
  const TensorMap saved = ReadAll(&adam_steps);
  ASSERT_TRUE(SaveVariables(*client_, host_.get(), dir_, 100, 3).ok());

  ASSERT_NO_FATAL_FAILURE(StartPs(3));
  // Task 2 already holds one variable, with another value; placement would
  // put the first variable restored on task 0.
  std::vector<int64_t> seven = {7};
  ASSERT_TRUE(
      Wait(client_->CreateOn(TaskName("ps", 2), "scalar/i64",
                             *DenseHostTensor::FromValues<int64_t>(
                                 TensorShape{}, seven, host_->allocator())))
          .ok());
  absl::StatusOr<RestoredVariables> restored =
      RestoreVariables(*client_, host_.get(), dir_);
  ASSERT_TRUE(restored.ok()) << restored.status();
  for (const VariableHandle& handle : restored->variables) {
    if (handle.name == "scalar/i64") EXPECT_EQ(handle.task, TaskName("ps", 2));
  }
  std::map<std::string, int64_t> restored_steps;
  EXPECT_TRUE(BitIdentical(saved, ReadAll(&restored_steps)));
}

TEST_F(VariableCheckpointTest, AHeldVariableOfAnotherShapeIsRefused) {
  ASSERT_NO_FATAL_FAILURE(StartPs(1));
  ASSERT_NO_FATAL_FAILURE(CreateVariables());
  ASSERT_TRUE(SaveVariables(*client_, host_.get(), dir_, 100, 3).ok());
  ASSERT_NO_FATAL_FAILURE(StartPs(1));
  ASSERT_TRUE(Wait(client_->Create("scalar/i64", Tensor("i64/extremes"))).ok());
  absl::StatusOr<RestoredVariables> restored =
      RestoreVariables(*client_, host_.get(), dir_);
  EXPECT_EQ(restored.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(restored.status().message(),
              HasSubstr("variable 'scalar/i64' on /job:ps/task:0 is i64 [2, "
                        "2], the checkpoint's is i64 []"));
}

TEST_F(VariableCheckpointTest, ADeadPsFailsTheSaveRetryablyAndWritesNothing) {
  ASSERT_NO_FATAL_FAILURE(StartPs(2));
  ASSERT_NO_FATAL_FAILURE(CreateVariables());
  ASSERT_TRUE(SaveVariables(*client_, host_.get(), dir_, 100, 3).ok());
  workers_[1]->Kill();
  absl::Status status = SaveVariables(*client_, host_.get(), dir_, 200, 4);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(Classify(status), FailureClass::kRetryable) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("saving the variables as checkpoint of step 200"));
  EXPECT_THAT(status.message(), HasSubstr("/job:ps/task:1"));
  EXPECT_THAT(*checkpoint::ListCheckpointSteps(dir_), ElementsAre(100));
}

TEST_F(VariableCheckpointTest, ACheckpointOfOtherTensorsIsRefused) {
  ASSERT_NO_FATAL_FAILURE(StartPs(1));
  TensorMap tensors = {{"weights", Tensor("random/f64")}};
  ASSERT_TRUE(checkpoint::SaveCheckpoint(dir_, 1, 0, tensors).ok());
  absl::StatusOr<RestoredVariables> restored =
      RestoreVariables(*client_, host_.get(), dir_);
  EXPECT_EQ(restored.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(restored.status().message(),
              HasSubstr("holds tensor 'weights', which is no variable's"));
  // Nothing reached the task.
  EXPECT_THAT(*Wait(client_->ListAll()), ::testing::IsEmpty());
}

TEST_F(VariableCheckpointTest, ACheckpointNoPsWouldTakeBackIsRefusedWhole) {
  ASSERT_NO_FATAL_FAILURE(StartPs(1));
  auto f32 = [&](std::vector<float> values) {
    return *DenseHostTensor::FromValues<float>(
        TensorShape({static_cast<int64_t>(values.size())}), values,
        host_->allocator());
  };
  auto i64 = [&](int64_t value) {
    std::vector<int64_t> values = {value};
    return *DenseHostTensor::FromValues<int64_t>(TensorShape{}, values,
                                                 host_->allocator());
  };
  // Each saved as a newer step than the one before, so each is the one
  // restored; every one also holds a good variable, which must not be
  // restored either.
  const std::vector<std::pair<TensorMap, std::string>> bad = {
      {{{"value:w", f32({1, 2})},
        {"adam.step:w", i64(std::numeric_limits<int64_t>::max())},
        {"adam.m:w", f32({0, 0})},
        {"adam.v:w", f32({0, 0})}},
       "variable 'w' has Adam state that cannot be restored: the step is "
       "9223372036854775807, not in [1, 2^53"},
      {{{"value:w", f32({1, 2})},
        {"adam.step:w", i64(3)},
        {"adam.m:w", f32({0, std::nanf("")})},
        {"adam.v:w", f32({0, 0})}},
       "the first moment's element 1 is nan, not finite"},
      {{{"value:w", f32({1, 2})},
        {"adam.step:w", i64(3)},
        {"adam.m:w", f32({0, 0})},
        {"adam.v:w", f32({-1, 0})}},
       "the second moment's element 0 is -1, not finite and at least 0"},
      {{{"value:a b", f32({1})}},
       "variable 'a b' cannot be restored: the name 'a b' has ' ' at byte 1"},
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    TensorMap tensors = bad[i].first;
    tensors["value:good"] = f32({5});
    ASSERT_TRUE(checkpoint::SaveCheckpoint(dir_, i + 1, 0, tensors).ok());
    absl::StatusOr<RestoredVariables> restored =
        RestoreVariables(*client_, host_.get(), dir_);
    EXPECT_EQ(restored.status().code(), absl::StatusCode::kFailedPrecondition)
        << bad[i].second;
    EXPECT_THAT(restored.status().message(), HasSubstr(bad[i].second));
    EXPECT_THAT(*Wait(client_->ListAll()), ::testing::IsEmpty());
  }
}

}  // namespace
}  // namespace sluice::dist
