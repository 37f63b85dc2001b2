// Fit on real processes: 2 workers and 1 parameter server (sluice_worker
// tasks on 127.0.0.1). The step adds 1 to a counting variable on the ps
// and returns the count it then reads, so every step's update shows in the
// variable and the metrics: callbacks get the means of the right steps,
// checkpoints land where asked, an exhausted iterator ends an epoch early,
// a step's own error stops Fit, and a job restarted after its ps was lost
// resumes at the checkpoint's epoch and step with its variables.
#include "sluice/coordinator/fit.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/support/failure.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_process.h"

namespace sluice::dist::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kProgram[] = R"mlir(
func.func @counting(%worker: i32, %num_workers: i64) -> !tfrt_data.iterator {
  %start = tfrt.constant.i64 0
  %stop = tfrt.constant.i64 1000000
  %step = tfrt.constant.i64 1
  %range = tfrt_data.range_dataset %start, %stop, %step {element_type = i64}
  %index = "tfrt.cast.i32_to_i64"(%worker) : (i32) -> i64
  %shard = tfrt_data.shard_dataset %range, %num_workers, %index
  %one = tfrt.constant.i64 1
  %batches = tfrt_data.batch_dataset %shard, %one
  %iterator = tfrt_data.make_iterator %batches
  tfrt.return %iterator : !tfrt_data.iterator
}

// Four elements on each worker, then OUT_OF_RANGE.
func.func @four_each(%worker: i32, %num_workers: i64) -> !tfrt_data.iterator {
  %start = tfrt.constant.i64 0
  %stop = tfrt.constant.i64 4
  %step = tfrt.constant.i64 1
  %range = tfrt_data.range_dataset %start, %stop, %step {element_type = i64}
  %one = tfrt.constant.i64 1
  %batches = tfrt_data.batch_dataset %range, %one
  %iterator = tfrt_data.make_iterator %batches
  tfrt.return %iterator : !tfrt_data.iterator
}

// Takes an element, adds 1 to the count, returns the element and the count.
func.func @count_step(%iterator: !tfrt_data.iterator,
                      %count: !tfrt_dist.variable) -> (!t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %ch1, %x = tfrt_data.iterator_get_next %iterator, %ch0 : !t.tensor
  %one = tfrt_dht.create_uninitialized_tensor.f32.1 [1 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.f32 %one, %ch1 [1.0 : f32]
  %added = tfrt_dist.assign_add_variable %count, %one, %ch2
  %value = tfrt_dist.read_variable %count, %added
  tfrt.return %x, %value : !t.tensor, !t.tensor
}

func.func @failing_step(%iterator: !tfrt_data.iterator,
                        %count: !tfrt_dist.variable) -> i32 {
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}
)mlir";

class FitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::vector<uint8_t>> compiled =
        CompileProgram(kProgram, "fit_test.mlir");
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    program_ = std::make_shared<std::vector<uint8_t>>(*std::move(compiled));
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<PortReservation> port = PortReservation::Reserve();
      ASSERT_TRUE(port.ok()) << port.status();
      ports_.push_back(*std::move(port));
    }
    cluster_json_ = absl::StrCat(R"({"ps": [")", ports_[0].address(),
                                 R"("], "worker": [")", ports_[1].address(),
                                 R"(", ")", ports_[2].address(), R"("]})");
    absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(cluster_json_);
    ASSERT_TRUE(spec.ok()) << spec.status();
    spec_ = *std::move(spec);
    checkpoints_ = absl::StrCat(
        ::testing::TempDir(), "/fit_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    for (int task = 0; task < 3; ++task) {
      ASSERT_NO_FATAL_FAILURE(StartTask(task));
    }
    host_ = MakeClientHost();
  }

  void TearDown() override {
    coordinator_.reset();
    tasks_.clear();
  }

  // Task 0 is the ps, tasks 1 and 2 the workers.
  void StartTask(int task) {
    WorkerProcessOptions options;
    options.task_name =
        task == 0 ? TaskName("ps", 0) : TaskName("worker", task - 1);
    options.port = ports_[task].port();
    options.environment = {absl::StrCat("SLUICE_CLUSTER=", cluster_json_)};
    tasks_.resize(3);
    tasks_[task].reset();
    absl::StatusOr<std::unique_ptr<WorkerProcess>> process =
        WorkerProcess::Start(options);
    ASSERT_TRUE(process.ok()) << process.status();
    tasks_[task] = *std::move(process);
  }

  // A coordinator (replacing any), and the count variable created at 0.
  void StartCoordinator() {
    coordinator_.reset();
    absl::StatusOr<std::unique_ptr<Coordinator>> coordinator =
        Coordinator::Create(spec_, host_.get());
    ASSERT_TRUE(coordinator.ok()) << coordinator.status();
    coordinator_ = *std::move(coordinator);
    DenseHostTensor zero = *DenseHostTensor::Create(
        DType::kF32, TensorShape({1}), host_->allocator());
    zero.mutable_values<float>()[0] = 0;
    auto count = coordinator_->variables().Create("count", zero);
    ASSERT_TRUE(AwaitFor(count.CopyRCRef()));
    ASSERT_FALSE(count.IsError()) << count.GetError();
    count_ = count.get();
  }

  FitModel Model(std::string_view dataset, std::string_view step) {
    FitModel model;
    model.dataset_function = *ClosureFunction::FromProgram(program_, dataset);
    model.dataset_arguments = {ClosureArgument::WorkerIndex(),
                               ClosureArgument::Of<int64_t>(2)};
    model.step_function = *ClosureFunction::FromProgram(program_, step);
    model.variables = {count_};
    model.metric_names = {"element", "count"};
    if (model.step_function.result_types().size() == 1) {
      model.metric_names = {"failure"};
    }
    return model;
  }

  float Count() {
    auto value = coordinator_->variables().Read(count_);
    EXPECT_TRUE(AwaitFor(value.CopyRCRef()));
    if (value.IsError()) {
      ADD_FAILURE() << value.GetError();
      return -1;
    }
    return value->values<float>()[0];
  }

  static double Metric(const FitMetrics& metrics, const std::string& name) {
    for (const auto& [metric, value] : metrics.values) {
      if (metric == name) return value;
    }
    ADD_FAILURE() << "no metric " << name;
    return -1;
  }

  std::shared_ptr<std::vector<uint8_t>> program_;
  std::vector<PortReservation> ports_;
  std::string cluster_json_;
  ClusterSpec spec_;
  std::string checkpoints_;
  std::vector<std::unique_ptr<WorkerProcess>> tasks_;
  std::unique_ptr<HostContext> host_;
  std::unique_ptr<Coordinator> coordinator_;
  VariableHandle count_;
};

TEST_F(FitTest, CallbacksGetTheMeansOfTheirStepsAndCheckpointsLandWhereAsked) {
  ASSERT_NO_FATAL_FAILURE(StartCoordinator());
  std::vector<FitMetrics> windows;
  std::vector<FitMetrics> epochs;
  FitOptions options;
  options.epochs = 3;
  options.steps_per_epoch = 10;
  options.callback_every_steps = 5;
  options.on_steps = [&](const FitMetrics& m) { windows.push_back(m); };
  options.on_epoch_end = [&](const FitMetrics& m) { epochs.push_back(m); };
  options.checkpoint_directory = checkpoints_;
  options.checkpoint_every_steps = 5;
  options.checkpoint.keep_last = 10;
  absl::Status fitted =
      Fit(*coordinator_, Model("counting", "count_step"), options);
  ASSERT_TRUE(fitted.ok()) << fitted;

  ASSERT_EQ(windows.size(), 6);
  for (size_t i = 0; i < windows.size(); ++i) {
    EXPECT_EQ(windows[i].epoch, i / 2);
    EXPECT_EQ(windows[i].step, 5 * (i + 1));
    EXPECT_EQ(windows[i].steps, 5);
    // Each step read the count after its own update and before any update
    // of a later window (a window ends with a join).
    EXPECT_GE(Metric(windows[i], "count"), 5.0 * i + 1);
    EXPECT_LE(Metric(windows[i], "count"), 5.0 * (i + 1));
  }
  ASSERT_EQ(epochs.size(), 3);
  for (int e = 0; e < 3; ++e) {
    EXPECT_EQ(epochs[e].epoch, e);
    EXPECT_EQ(epochs[e].step, 10 * (e + 1));
    EXPECT_EQ(epochs[e].steps, 10);
    EXPECT_GE(Metric(epochs[e], "count"), 10.0 * e + 1);
    EXPECT_LE(Metric(epochs[e], "count"), 10.0 * (e + 1));
    // Elements are whole numbers of the shards, never negative.
    EXPECT_GE(Metric(epochs[e], "element"), 0);
  }
  EXPECT_EQ(Count(), 30) << "every step's update, once";
  EXPECT_THAT(*checkpoint::ListCheckpointSteps(checkpoints_),
              ElementsAre(30, 25, 20, 15, 10, 5));
}

TEST_F(FitTest, AnExhaustedIteratorEndsTheEpochAndTheNextStartsAfresh) {
  ASSERT_NO_FATAL_FAILURE(StartCoordinator());
  std::vector<FitMetrics> epochs;
  FitOptions options;
  options.epochs = 2;
  options.steps_per_epoch = 10;
  options.on_epoch_end = [&](const FitMetrics& m) { epochs.push_back(m); };
  absl::Status fitted =
      Fit(*coordinator_, Model("four_each", "count_step"), options);
  ASSERT_TRUE(fitted.ok()) << fitted;
  ASSERT_EQ(epochs.size(), 2);
  int64_t steps = 0;
  for (const FitMetrics& epoch : epochs) {
    // Two workers with four elements each: at most 8 steps succeed, and
    // the next epoch's new iterators give it steps of its own.
    EXPECT_GE(epoch.steps, 1);
    EXPECT_LE(epoch.steps, 8);
    EXPECT_LE(Metric(epoch, "element"), 3);
    steps += epoch.steps;
  }
  EXPECT_EQ(Count(), steps) << "exhausted steps update nothing";
}

TEST_F(FitTest, AStepsOwnErrorStopsFitWithIt) {
  ASSERT_NO_FATAL_FAILURE(StartCoordinator());
  int epochs_ended = 0;
  FitOptions options;
  options.epochs = 2;
  options.steps_per_epoch = 4;
  options.on_epoch_end = [&](const FitMetrics&) { ++epochs_ended; };
  absl::Status fitted =
      Fit(*coordinator_, Model("counting", "failing_step"), options);
  EXPECT_EQ(fitted.code(), absl::StatusCode::kInternal) << fitted;
  EXPECT_THAT(fitted.message(), HasSubstr("something bad happened"));
  EXPECT_EQ(Classify(fitted), FailureClass::kFatal);
  EXPECT_EQ(ExitCodeFor(fitted), 1);
  EXPECT_EQ(epochs_ended, 0);
}

TEST_F(FitTest, OptionsAndModelsThatDoNotFitAreRefused) {
  ASSERT_NO_FATAL_FAILURE(StartCoordinator());
  FitOptions options;
  absl::Status fitted =
      Fit(*coordinator_, Model("counting", "count_step"), options);
  EXPECT_EQ(fitted.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(fitted.message(), HasSubstr("steps_per_epoch must be positive"));

  options.steps_per_epoch = 3;
  FitModel model = Model("counting", "count_step");
  model.metric_names = {"loss"};
  fitted = Fit(*coordinator_, model, options);
  EXPECT_EQ(fitted.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(fitted.message(),
              HasSubstr("returns 2 results, but 1 metric names were given"));

  model = Model("counting", "count_step");
  model.variables.push_back(count_);
  fitted = Fit(*coordinator_, model, options);
  EXPECT_EQ(fitted.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(fitted.message(),
              HasSubstr("one !tfrt_dist.variable per variable (2)"));
  EXPECT_EQ(Count(), 0) << "nothing ran";
}

TEST_F(FitTest, AJobRestartedAfterItsPsDiedResumesAtTheCheckpoint) {
  ASSERT_NO_FATAL_FAILURE(StartCoordinator());
  FitOptions options;
  options.epochs = 3;
  options.steps_per_epoch = 10;
  options.checkpoint_directory = checkpoints_;
  options.checkpoint_every_steps = 5;
  options.callback_every_steps = 5;
  // At step 20, before its checkpoint: the newest is then step 15 (epoch 1,
  // 5 steps into it), holding a count of 15.
  options.on_steps = [&](const FitMetrics& m) {
    if (m.step == 20) tasks_[0]->Kill();
  };
  absl::Status fitted =
      Fit(*coordinator_, Model("counting", "count_step"), options);
  EXPECT_EQ(Classify(fitted), FailureClass::kRetryable) << fitted;
  EXPECT_EQ(ExitCodeFor(fitted), kRestartableExitCode) << fitted;
  EXPECT_THAT(*checkpoint::ListCheckpointSteps(checkpoints_),
              ElementsAre(15, 10, 5));

  // The restart: a new ps, which holds no variable, and a new coordinator,
  // which creates the count at 0 as the job's main does.
  ASSERT_NO_FATAL_FAILURE(StartTask(0));
  ASSERT_NO_FATAL_FAILURE(StartCoordinator());
  ASSERT_EQ(Count(), 0);
  std::vector<FitMetrics> epochs;
  options.on_steps = nullptr;
  options.on_epoch_end = [&](const FitMetrics& m) { epochs.push_back(m); };
  fitted = Fit(*coordinator_, Model("counting", "count_step"), options);
  ASSERT_TRUE(fitted.ok()) << fitted;
  ASSERT_EQ(epochs.size(), 2);
  EXPECT_EQ(epochs[0].epoch, 1);
  EXPECT_EQ(epochs[0].steps, 5) << "the rest of epoch 1";
  EXPECT_GE(Metric(epochs[0], "count"), 16) << "restored at 15";
  EXPECT_LE(Metric(epochs[0], "count"), 20);
  EXPECT_EQ(epochs[1].epoch, 2);
  EXPECT_EQ(epochs[1].steps, 10);
  EXPECT_EQ(Count(), 30);

  // Finished training stays finished.
  epochs.clear();
  fitted = Fit(*coordinator_, Model("counting", "count_step"), options);
  ASSERT_TRUE(fitted.ok()) << fitted;
  EXPECT_TRUE(epochs.empty());
  EXPECT_EQ(Count(), 30);
}

}  // namespace
}  // namespace sluice::dist::testing
