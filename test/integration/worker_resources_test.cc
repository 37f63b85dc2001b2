// Values kept on a real worker process (CallOptions::keep_results_as) and
// passed to later calls by reference (ResourceRef): they keep their values
// and types, die with the process (the caller learns it must make them
// again), can be released; and variable handles of a parameter server,
// passed to a worker's function as plain values, reach the variable.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/coordinator/variables.h"
#include "sluice/distributed/resource_ref.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"
#include "test/integration/worker_process.h"

namespace sluice::dist::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kProgram[] = R"mlir(
func.func @make(%a: i32, %t: !t.tensor) -> (i32, !t.tensor) {
  %ten = tfrt.constant.i32 10
  %x = tfrt.add.i32 %a, %ten
  %u = tfrt_math.add.i32 %t, %t
  tfrt.return %x, %u : i32, !t.tensor
}

func.func @use(%x: i32, %u: !t.tensor, %d: !t.tensor) -> (i32, !t.tensor) {
  %one = tfrt.constant.i32 1
  %y = tfrt.add.i32 %x, %one
  %v = tfrt_math.add.i32 %u, %d
  tfrt.return %y, %v : i32, !t.tensor
}

func.func @fail_second(%a: i32) -> (i32, i32) {
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %a, %bad : i32, i32
}

func.func @read(%w: !tfrt_dist.variable) -> !t.tensor {
  %c0 = tfrt.new.chain
  %v = tfrt_dist.read_variable %w, %c0
  tfrt.return %v : !t.tensor
}

func.func @add_to(%w: !tfrt_dist.variable, %d: !t.tensor) -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %c1 = tfrt_dist.assign_add_variable %w, %d, %c0
  tfrt.return %c1 : !tfrt.chain
}

func.func @pass(%w: !tfrt_dist.variable) -> !tfrt_dist.variable {
  tfrt.return %w : !tfrt_dist.variable
}
)mlir";

const std::vector<uint8_t>& Program() {
  static const std::vector<uint8_t>* const program = [] {
    absl::StatusOr<std::vector<uint8_t>> compiled =
        CompileProgram(kProgram, "resources.mlir");
    if (!compiled.ok()) {
      std::fprintf(stderr, "cannot compile the program: %s\n",
                   std::string(compiled.status().message()).c_str());
      std::abort();
    }
    return new std::vector<uint8_t>(*std::move(compiled));
  }();
  return *program;
}

RCReference<AsyncValue> Ref(uint64_t id) {
  return MakeAvailableAsyncValueRef<ResourceRef>(ResourceRef{id})
      .ReleaseRCRef();
}

RCReference<AsyncValue> Tensor(HostContext* host, std::vector<int32_t> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return MakeAvailableAsyncValueRef<DenseHostTensor>(
             *DenseHostTensor::FromValues<int32_t>(TensorShape({n}), values,
                                                   host->allocator()))
      .ReleaseRCRef();
}

CallOptions Keep(std::vector<uint64_t> ids) {
  CallOptions options;
  options.keep_results_as = std::move(ids);
  return options;
}

std::vector<int32_t> Elements(const RCReference<AsyncValue>& value) {
  if (value->IsError() || !value->IsType<DenseHostTensor>()) return {};
  absl::Span<const int32_t> elements =
      value->get<DenseHostTensor>().values<int32_t>();
  return std::vector<int32_t>(elements.begin(), elements.end());
}

class WorkerResourcesTest : public WorkerFixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StartCluster(1));
    ASSERT_NO_FATAL_FAILURE(Register());
  }

  void Register() {
    absl::StatusOr<RemoteProgram> program = RegisterNow(task(0), Program());
    ASSERT_TRUE(program.ok()) << program.status();
    for (auto [name, function] :
         {std::pair{"make", &make_}, std::pair{"use", &use_},
          std::pair{"fail_second", &fail_second_}}) {
      absl::StatusOr<RemoteFunction> found = program->GetFunction(name);
      ASSERT_TRUE(found.ok()) << found.status();
      *function = *std::move(found);
    }
  }

  // make(5, [1, 2, 3]) kept as 1 (15) and 2 ([2, 4, 6]).
  void KeepMade() {
    auto kept =
        CallNow(task(0), make_, Args(I32(5), Tensor(host_.get(), {1, 2, 3})),
                nullptr, Keep({1, 2}));
    ASSERT_EQ(kept.size(), 2u);
    for (const RCReference<AsyncValue>& result : kept) {
      ASSERT_FALSE(result->IsError()) << result->GetError();
      EXPECT_TRUE(result->IsType<Chain>());
    }
  }

  // use(<1>, <2>, [10, 20, 30]).
  std::vector<RCReference<AsyncValue>> UseKept() {
    return CallNow(task(0), use_,
                   Args(Ref(1), Ref(2), Tensor(host_.get(), {10, 20, 30})));
  }

  int64_t Resources() {
    absl::StatusOr<TaskStatus> status = GetStatusNow(task(0));
    EXPECT_TRUE(status.ok()) << status.status();
    return status.ok() ? status->resources : -1;
  }

  RemoteFunction make_, use_, fail_second_;
};

TEST_F(WorkerResourcesTest, KeptResultsArePassedByReference) {
  EXPECT_EQ(Resources(), 0);
  ASSERT_NO_FATAL_FAILURE(KeepMade());
  EXPECT_EQ(Resources(), 2);
  // Twice: passing a kept value does not use it up.
  for (int round = 0; round < 2; ++round) {
    auto used = UseKept();
    ASSERT_FALSE(used[0]->IsError()) << used[0]->GetError();
    EXPECT_EQ(used[0]->get<int32_t>(), 16);
    ASSERT_FALSE(used[1]->IsError()) << used[1]->GetError();
    EXPECT_THAT(Elements(used[1]), ElementsAre(12, 24, 36));
  }
  EXPECT_EQ(Resources(), 2);
}

TEST_F(WorkerResourcesTest, KeepingUnderAnIdReplacesItsValue) {
  ASSERT_NO_FATAL_FAILURE(KeepMade());
  auto again =
      CallNow(task(0), make_, Args(I32(100), Tensor(host_.get(), {0, 1, 0})),
              nullptr, Keep({1, 2}));
  ASSERT_FALSE(again[0]->IsError()) << again[0]->GetError();
  EXPECT_EQ(Resources(), 2);
  auto used = UseKept();
  ASSERT_FALSE(used[0]->IsError()) << used[0]->GetError();
  EXPECT_EQ(used[0]->get<int32_t>(), 111);
  EXPECT_THAT(Elements(used[1]), ElementsAre(10, 22, 30));
}

TEST_F(WorkerResourcesTest, AnErrorResultIsAnsweredAndDropsItsId) {
  ASSERT_NO_FATAL_FAILURE(KeepMade());
  auto kept =
      CallNow(task(0), fail_second_, Args(I32(7)), nullptr, Keep({1, 2}));
  ASSERT_FALSE(kept[0]->IsError()) << kept[0]->GetError();
  EXPECT_TRUE(kept[0]->IsType<Chain>());
  ASSERT_TRUE(kept[1]->IsError());
  EXPECT_EQ(GetErrorContext(kept[1]->GetError()).kernel, "tfrt_test.fail")
      << kept[1]->GetError();
  EXPECT_EQ(GetErrorContext(kept[1]->GetError()).task, Name(0));
  EXPECT_EQ(Resources(), 1);

  // 1 holds 7 now; 2 is gone.
  auto used = UseKept();
  ExpectTaskError(used[0], absl::StatusCode::kFailedPrecondition,
                  FailureClass::kRetryable, "holds no resource 2", Name(0));
  auto shifted =
      CallNow(task(0), use_,
              Args(Ref(1), Tensor(host_.get(), {1}), Tensor(host_.get(), {2})));
  ASSERT_FALSE(shifted[0]->IsError()) << shifted[0]->GetError();
  EXPECT_EQ(shifted[0]->get<int32_t>(), 8);
  EXPECT_THAT(Elements(shifted[1]), ElementsAre(3));
}

TEST_F(WorkerResourcesTest, ARestartedWorkerHoldsNoResources) {
  ASSERT_NO_FATAL_FAILURE(KeepMade());
  absl::StatusOr<TaskStatus> before = GetStatusNow(task(0));
  ASSERT_TRUE(before.ok()) << before.status();

  ASSERT_NO_FATAL_FAILURE(StartWorker(0));  // kills the first process
  absl::StatusOr<TaskStatus> after = GetStatusNow(task(0));
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_NE(after->incarnation, before->incarnation);
  EXPECT_EQ(after->resources, 0);
  // The status answer made the client forget the program: this sends it.
  ASSERT_NO_FATAL_FAILURE(Register());

  auto used = UseKept();
  ASSERT_EQ(used.size(), 2u);
  for (const RCReference<AsyncValue>& result : used) {
    ExpectTaskError(result, absl::StatusCode::kFailedPrecondition,
                    FailureClass::kRetryable,
                    absl::StrCat("task ", Name(0),
                                 " holds no resource 1 for argument 0 of "
                                 "function 'use' (it restarted or the "
                                 "resource was released)"),
                    Name(0));
    EXPECT_EQ(GetErrorContext(result->GetError()).incarnation,
              after->incarnation);
  }
}

TEST_F(WorkerResourcesTest, AKeptValueOfAnotherTypeIsRefused) {
  ASSERT_NO_FATAL_FAILURE(KeepMade());
  // 1 is an i32; argument 1 of 'use' is a !t.tensor.
  auto used = CallNow(task(0), use_,
                      Args(Ref(1), Ref(1), Tensor(host_.get(), {1, 2, 3})));
  ExpectTaskError(used[0], absl::StatusCode::kInvalidArgument,
                  FailureClass::kFatal,
                  "argument 1 of function 'use' on task /job:worker/task:0 "
                  "must be !t.tensor, the call passed resource 1 of type i32",
                  Name(0));
  // The kept values are unharmed.
  auto good = UseKept();
  ASSERT_FALSE(good[0]->IsError()) << good[0]->GetError();
  EXPECT_EQ(good[0]->get<int32_t>(), 16);
}

TEST_F(WorkerResourcesTest, KeepResultsAsMustNameOneIdPerResult) {
  auto short_list =
      CallNow(task(0), make_, Args(I32(1), Tensor(host_.get(), {1})), nullptr,
              Keep({1}));
  ExpectTaskError(short_list[0], absl::StatusCode::kInvalidArgument,
                  FailureClass::kFatal,
                  "function 'make' on task /job:worker/task:0 returns 2 "
                  "result(s), keep_results_as names 1 id(s)",
                  Name(0));
  auto twice = CallNow(task(0), make_, Args(I32(1), Tensor(host_.get(), {1})),
                       nullptr, Keep({3, 3}));
  ExpectTaskError(twice[0], absl::StatusCode::kInvalidArgument,
                  FailureClass::kFatal, "names id 3 twice", Name(0));
  EXPECT_EQ(Resources(), 0);
}

TEST_F(WorkerResourcesTest, ReleasedResourcesAreGone) {
  ASSERT_NO_FATAL_FAILURE(KeepMade());
  AsyncValueRef<Chain> released = task(0)->ReleaseResources({2, 99});
  ASSERT_TRUE(AwaitFor(released.CopyRCRef()));
  ASSERT_FALSE(released.IsError()) << released.GetError();
  EXPECT_EQ(Resources(), 1);
  auto used = UseKept();
  ExpectTaskError(
      used[1], absl::StatusCode::kFailedPrecondition, FailureClass::kRetryable,
      "holds no resource 2 for argument 1 of function 'use'", Name(0));
}

// A parameter server and a worker whose programs use it: the worker is
// given the cluster with --cluster.
class WorkerVariablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<PortReservation> ps_port = PortReservation::Reserve();
    ASSERT_TRUE(ps_port.ok()) << ps_port.status();
    absl::StatusOr<PortReservation> worker_port = PortReservation::Reserve();
    ASSERT_TRUE(worker_port.ok()) << worker_port.status();
    const std::string cluster =
        absl::StrCat("{\"ps\": [\"", ps_port->address(), "\"], \"worker\": [\"",
                     worker_port->address(), "\"]}");
    absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(cluster);
    ASSERT_TRUE(spec.ok()) << spec.status();

    WorkerProcessOptions ps;
    ps.task_name = "/job:ps/task:0";
    ps.port = ps_port->port();
    absl::StatusOr<std::unique_ptr<WorkerProcess>> ps_process =
        WorkerProcess::Start(ps);
    ASSERT_TRUE(ps_process.ok()) << ps_process.status();
    WorkerProcessOptions worker;
    worker.task_name = "/job:worker/task:0";
    worker.port = worker_port->port();
    worker.flags.push_back(absl::StrCat("--cluster=", cluster));
    absl::StatusOr<std::unique_ptr<WorkerProcess>> worker_process =
        WorkerProcess::Start(worker);
    ASSERT_TRUE(worker_process.ok()) << worker_process.status();
    ports_.push_back(*std::move(ps_port));
    ports_.push_back(*std::move(worker_port));
    processes_.push_back(*std::move(ps_process));
    processes_.push_back(*std::move(worker_process));

    host_ = MakeClientHost();
    client_ = std::make_unique<ClusterClient>(*spec, RpcOptions(), host_.get());
    variables_ =
        std::make_unique<VariableClient>(*spec, RpcOptions(), host_.get());
    absl::StatusOr<TaskClient*> task = client_->GetTask("/job:worker/task:0");
    ASSERT_TRUE(task.ok()) << task.status();
    worker_ = *task;
    ASSERT_TRUE(GetStatusNow(worker_).ok());
  }

  void TearDown() override {
    variables_.reset();
    client_.reset();
    host_.reset();
    processes_.clear();
  }

  template <typename T>
  static absl::StatusOr<T> Get(AsyncValueRef<T> value) {
    if (!AwaitFor(value.CopyRCRef())) {
      return absl::DeadlineExceededError("TEST HARNESS: hung");
    }
    if (value.IsError()) return value.GetError();
    return value.get();
  }

  RemoteFunction Function(std::string_view name) {
    absl::StatusOr<RemoteProgram> program = RegisterNow(worker_, Program());
    EXPECT_TRUE(program.ok()) << program.status();
    if (!program.ok()) return RemoteFunction();
    absl::StatusOr<RemoteFunction> function = program->GetFunction(name);
    EXPECT_TRUE(function.ok()) << function.status();
    return function.ok() ? *function : RemoteFunction();
  }

  std::vector<PortReservation> ports_;
  std::vector<std::unique_ptr<WorkerProcess>> processes_;
  std::unique_ptr<HostContext> host_;
  std::unique_ptr<ClusterClient> client_;
  std::unique_ptr<VariableClient> variables_;
  TaskClient* worker_ = nullptr;
};

TEST_F(WorkerVariablesTest, AWorkerFunctionReadsAndUpdatesAPassedVariable) {
  DenseHostTensor initial = *DenseHostTensor::FromValues<int32_t>(
      TensorShape({3}), {1, 2, 3}, host_->allocator());
  absl::StatusOr<VariableHandle> w = Get(variables_->Create("w", initial));
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->task, "/job:ps/task:0");
  RCReference<AsyncValue> handle =
      MakeAvailableAsyncValueRef<VariableHandle>(*w).ReleaseRCRef();

  auto read = CallNow(worker_, Function("read"), Args(handle.CopyRef()));
  ASSERT_FALSE(read[0]->IsError()) << read[0]->GetError();
  EXPECT_THAT(Elements(read[0]), ElementsAre(1, 2, 3));

  auto added =
      CallNow(worker_, Function("add_to"),
              Args(handle.CopyRef(), Tensor(host_.get(), {10, 20, 30})));
  ASSERT_FALSE(added[0]->IsError()) << added[0]->GetError();
  absl::StatusOr<DenseHostTensor> value = Get(variables_->Read(*w));
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_THAT(value->values<int32_t>(), ElementsAre(11, 22, 33));

  // A handle also comes back as a result.
  auto passed = CallNow(worker_, Function("pass"), Args(handle.CopyRef()));
  ASSERT_FALSE(passed[0]->IsError()) << passed[0]->GetError();
  ASSERT_TRUE(passed[0]->IsType<VariableHandle>());
  const VariableHandle& back = passed[0]->get<VariableHandle>();
  EXPECT_EQ(back.task, w->task);
  EXPECT_EQ(back.name, "w");
  EXPECT_EQ(back.dtype, DType::kI32);
  EXPECT_EQ(back.shape, TensorShape({3}));
}

TEST_F(WorkerVariablesTest, AnUpdateOfAnotherShapeFailsOnTheWorker) {
  DenseHostTensor initial = *DenseHostTensor::FromValues<int32_t>(
      TensorShape({2}), {0, 0}, host_->allocator());
  absl::StatusOr<VariableHandle> w = Get(variables_->Create("v", initial));
  ASSERT_TRUE(w.ok()) << w.status();
  auto added = CallNow(
      worker_, Function("add_to"),
      Args(MakeAvailableAsyncValueRef<VariableHandle>(*w).ReleaseRCRef(),
           Tensor(host_.get(), {1, 2, 3})));
  ASSERT_TRUE(added[0]->IsError());
  const absl::Status& error = added[0]->GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kInvalidArgument) << error;
  EXPECT_THAT(error.message(), HasSubstr("'v'")) << error;
  EXPECT_EQ(GetErrorContext(error).kernel, "tfrt_dist.assign_add_variable")
      << error;
  absl::StatusOr<DenseHostTensor> value = Get(variables_->Read(*w));
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_THAT(value->values<int32_t>(), ElementsAre(0, 0));
}

}  // namespace
}  // namespace sluice::dist::testing
