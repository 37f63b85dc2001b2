// VariableClient against parameter servers in the same process (a
// WorkerServer serving a VariableService each, over loopback gRPC):
// placement, every call's round trip, and the errors a caller sees.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/coordinator/variable_service.h"
#include "sluice/coordinator/variables.h"
#include "sluice/distributed/worker_server.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"

namespace sluice::dist {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::unique_ptr<HostContext> MakeHost() {
  return std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                       CreateMallocAllocator(),
                                       *CreateWorkQueue("mstd:2"));
}

// One parameter-server task: a host, its variables and the server.
struct ParameterServer {
  explicit ParameterServer(const std::string& name) : host(MakeHost()) {
    variables = std::make_unique<VariableService>(name, host->allocator());
    WorkerOptions options;
    options.task_name = name;
    options.address = "127.0.0.1:0";
    options.services.push_back(variables->service());
    server = *WorkerServer::Start(host.get(), options);
  }
  std::unique_ptr<HostContext> host;
  std::unique_ptr<VariableService> variables;
  std::unique_ptr<WorkerServer> server;
};

class VariableClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 2; ++i) {
      servers_.push_back(std::make_unique<ParameterServer>(TaskName("ps", i)));
    }
    client_host_ = MakeHost();
    client_ = MakeClient(VariableClientOptions());
  }

  std::unique_ptr<VariableClient> MakeClient(VariableClientOptions options) {
    absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(
        absl::StrCat(R"({"ps": ["127.0.0.1:)", servers_[0]->server->port(),
                     R"(", "127.0.0.1:)", servers_[1]->server->port(),
                     R"("], "worker": ["127.0.0.1:1"]})"));
    EXPECT_TRUE(spec.ok()) << spec.status();
    RpcOptions rpc;
    rpc.deadline = absl::Seconds(10);
    return std::make_unique<VariableClient>(*spec, rpc, client_host_.get(),
                                            std::move(options));
  }

  template <typename T>
  T Await(AsyncValueRef<T> value) {
    client_host_->Await(value.CopyRCRef());
    EXPECT_FALSE(value.IsError()) << value.GetError();
    if (value.IsError()) return T();
    return value.get();
  }

  absl::Status AwaitError(AsyncValueRef<Chain> value) {
    client_host_->Await(value.CopyRCRef());
    return value.IsError() ? value.GetError() : absl::OkStatus();
  }

  template <typename T>
  DenseHostTensor Tensor(TensorShape shape, std::vector<T> values) {
    return *DenseHostTensor::FromValues<T>(std::move(shape), values,
                                           client_host_->allocator());
  }

  std::vector<std::unique_ptr<ParameterServer>> servers_;
  std::unique_ptr<HostContext> client_host_;
  std::unique_ptr<VariableClient> client_;
};

TEST_F(VariableClientTest, ThePsTasksAreTheTasksOfThePsJob) {
  EXPECT_THAT(client_->ps_tasks(),
              ElementsAre("/job:ps/task:0", "/job:ps/task:1"));
}

TEST_F(VariableClientTest, RoundRobinPlacesVariablesOnEachPsInTurn) {
  std::vector<std::string> tasks;
  for (int i = 0; i < 4; ++i) {
    VariableHandle handle =
        Await(client_->Create(absl::StrCat("v", i), Tensor<int32_t>({1}, {i})));
    tasks.push_back(handle.task);
  }
  EXPECT_THAT(tasks, ElementsAre("/job:ps/task:0", "/job:ps/task:1",
                                 "/job:ps/task:0", "/job:ps/task:1"));
  std::vector<VariableHandle> all = Await(client_->ListAll());
  std::vector<std::string> listed;
  for (const VariableHandle& handle : all) {
    listed.push_back(absl::StrCat(handle.task, " ", handle.name, " ",
                                  DTypeName(handle.dtype), " ",
                                  handle.shape.ToString()));
  }
  EXPECT_THAT(
      listed,
      ElementsAre("/job:ps/task:0 v0 i32 [1]", "/job:ps/task:0 v2 i32 [1]",
                  "/job:ps/task:1 v1 i32 [1]", "/job:ps/task:1 v3 i32 [1]"));
}

// Puts every variable on the last ps task.
class LastTask : public PlacementPolicy {
 public:
  size_t Place(std::string_view, DType, const TensorShape&,
               absl::Span<const std::string> ps_tasks) override {
    return ps_tasks.size() - 1;
  }
};

TEST_F(VariableClientTest, APlacementPolicyCanBePluggedIn) {
  VariableClientOptions options;
  options.placement = std::make_unique<LastTask>();
  std::unique_ptr<VariableClient> client = MakeClient(std::move(options));
  for (const char* name : {"a", "b"}) {
    VariableHandle handle = Await(client->Create(name, Tensor<float>({}, {1})));
    EXPECT_EQ(handle.task, "/job:ps/task:1");
  }
}

TEST_F(VariableClientTest, EveryUpdateRoundTrips) {
  VariableHandle w = Await(client_->Create("w", Tensor<float>({2}, {1, 2})));
  EXPECT_EQ(w.dtype, DType::kF32);
  EXPECT_EQ(w.shape, TensorShape({2}));
  Await(client_->AssignAdd(w, Tensor<float>({2}, {0.5f, 0.5f})));
  EXPECT_THAT(Await(client_->Read(w)).values<float>(), ElementsAre(1.5f, 2.5f));
  Await(client_->ApplySgd(w, Tensor<float>({2}, {1, -1}), 0.5));
  EXPECT_THAT(Await(client_->Read(w)).values<float>(), ElementsAre(1.0f, 3.0f));
  Await(client_->Assign(w, Tensor<float>({2}, {-4, 8})));
  EXPECT_THAT(Await(client_->Read(w)).values<float>(),
              ElementsAre(-4.0f, 8.0f));

  AdamOptions adam;
  adam.learning_rate = 0.1;
  Await(client_->ApplyAdam(w, Tensor<float>({2}, {1, -1}), adam));
  VariableState state = Await(client_->ReadState(w));
  // The first Adam step moves each element by the learning rate, against
  // the gradient's sign.
  EXPECT_THAT(state.value.values<float>(),
              ElementsAre(::testing::FloatNear(-4.1f, 1e-5f),
                          ::testing::FloatNear(8.1f, 1e-5f)));
  EXPECT_EQ(state.adam.step, 1);
  EXPECT_THAT(state.adam.m.values<float>(),
              ElementsAre(::testing::FloatNear(0.1f, 1e-6f),
                          ::testing::FloatNear(-0.1f, 1e-6f)));

  state.adam.step = 7;
  Await(client_->RestoreAdamState(w, state.adam));
  EXPECT_EQ(Await(client_->ReadState(w)).adam.step, 7);
}

TEST_F(VariableClientTest, RefusalsNameTheTaskAndTheVariableAndAreFatal) {
  VariableHandle w = Await(client_->Create("w", Tensor<float>({2}, {1, 2})));
  absl::Status wrong =
      AwaitError(client_->Assign(w, Tensor<float>({3}, {1, 2, 3})));
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(wrong.message(),
              HasSubstr("assigning variable 'w' on task /job:ps/task:0 "
                        "failed: "));
  EXPECT_THAT(wrong.message(), HasSubstr("the value is f32 [3], not f32 [2]"));
  EXPECT_EQ(Classify(wrong), FailureClass::kFatal);

  VariableHandle missing = w;
  missing.name = "missing";
  AsyncValueRef<DenseHostTensor> read = client_->Read(missing);
  client_host_->Await(read.CopyRCRef());
  ASSERT_TRUE(read.IsError());
  EXPECT_EQ(read.GetError().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(read.GetError().message(),
              HasSubstr("task /job:ps/task:0 has no variable 'missing'"));
  EXPECT_EQ(GetErrorContext(read.GetError()).task, "/job:ps/task:0");

  AsyncValueRef<VariableHandle> other =
      client_->CreateOn("/job:ps/task:0", "w", Tensor<int32_t>({2}, {1, 2}));
  client_host_->Await(other.CopyRCRef());
  ASSERT_TRUE(other.IsError());
  EXPECT_EQ(other.GetError().code(), absl::StatusCode::kAlreadyExists);
}

TEST_F(VariableClientTest, CallerErrorsFailBeforeAnythingIsSent) {
  AsyncValueRef<VariableHandle> unknown =
      client_->CreateOn("/job:ps/task:5", "w", Tensor<float>({}, {1}));
  ASSERT_TRUE(unknown.IsError());
  EXPECT_EQ(unknown.GetError().code(), absl::StatusCode::kNotFound);

  VariableHandle w = Await(client_->Create("w", Tensor<float>({}, {1})));
  absl::Status empty = AwaitError(client_->Assign(w, DenseHostTensor()));
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.message(), HasSubstr("holds no elements yet"));

  absl::StatusOr<ClusterSpec> no_ps =
      ClusterSpec::FromJson(R"({"worker": ["127.0.0.1:1"]})");
  VariableClient client(*no_ps, RpcOptions(), client_host_.get());
  AsyncValueRef<VariableHandle> placed =
      client.Create("w", Tensor<float>({}, {1}));
  ASSERT_TRUE(placed.IsError());
  EXPECT_EQ(placed.GetError().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(placed.GetError().message(),
              HasSubstr("cannot place variable 'w': the cluster has no "
                        "parameter-server tasks"));
}

TEST_F(VariableClientTest, ABadNameFailsBeforeSendingAndTheTaskRefusesItToo) {
  const std::string huge(4 << 20, 'n');
  AsyncValueRef<VariableHandle> too_long =
      client_->Create(huge, Tensor<float>({}, {1}));
  ASSERT_TRUE(too_long.IsError());  // at once: nothing was sent
  EXPECT_EQ(too_long.GetError().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_long.GetError().message(),
              HasSubstr("creating a variable: the name 'nnnn"));
  EXPECT_LT(too_long.GetError().message().size(), 400u);
  AsyncValueRef<VariableHandle> odd =
      client_->CreateOn("/job:ps/task:1", "a b", Tensor<float>({}, {1}));
  ASSERT_TRUE(odd.IsError());
  EXPECT_THAT(odd.GetError().message(),
              HasSubstr("creating a variable on task /job:ps/task:1: the name "
                        "'a b' has ' ' at byte 1"));

  // The refused names took no turn of the placement.
  VariableHandle w = Await(client_->Create("w", Tensor<float>({}, {1})));
  EXPECT_EQ(w.task, "/job:ps/task:0");

  // A handle made up with such a name reaches the task, which refuses it.
  VariableHandle forged = w;
  forged.name = huge;
  AsyncValueRef<DenseHostTensor> read = client_->Read(forged);
  client_host_->Await(read.CopyRCRef());
  ASSERT_TRUE(read.IsError());
  EXPECT_EQ(read.GetError().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(read.GetError().message(),
              HasSubstr("a name no variable can have"));
  EXPECT_LT(read.GetError().message().size(), 1000u);
}

TEST_F(VariableClientTest, ARequestOverTheMessageLimitFailsBeforeSending) {
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(absl::StrCat(
      R"({"ps": ["127.0.0.1:)", servers_[0]->server->port(), R"("]})"));
  RpcOptions rpc;
  rpc.max_message_bytes = 1 << 10;
  VariableClient client(*spec, rpc, client_host_.get());
  AsyncValueRef<VariableHandle> created =
      client.Create("big", Tensor<double>({512}, std::vector<double>(512)));
  ASSERT_TRUE(created.IsError());
  EXPECT_EQ(created.GetError().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(created.GetError().message(),
              HasSubstr("creating variable 'big' on task /job:ps/task:0: the "
                        "request is"));
  EXPECT_THAT(created.GetError().message(),
              HasSubstr("over the limit of 1024 bytes (max_message_bytes)"));
}

TEST_F(VariableClientTest, ADestroyedClientCancelsWhatIsInFlight) {
  VariableHandle w = Await(client_->Create("w", Tensor<int64_t>({1}, {0})));
  std::vector<AsyncValueRef<Chain>> updates;
  for (int i = 0; i < 50; ++i) {
    updates.push_back(client_->AssignAdd(w, Tensor<int64_t>({1}, {1})));
  }
  client_.reset();
  int applied = 0;
  for (AsyncValueRef<Chain>& update : updates) {
    client_host_->Await(update.CopyRCRef());
    if (!update.IsError()) ++applied;
  }
  // Whatever answered before the client went was applied on the task.
  std::unique_ptr<VariableClient> reader = MakeClient({});
  EXPECT_GE(Await(reader->Read(w)).values<int64_t>()[0], applied);
}

TEST_F(VariableClientTest, AFaultBeforeAnUpdateAppliesNothing) {
  VariableHandle w = Await(client_->Create("w", Tensor<int32_t>({1}, {10})));
  ASSERT_TRUE(FaultInjector::Set("ps.apply.begin=error@nth=1").ok());
  absl::Status failed =
      AwaitError(client_->AssignAdd(w, Tensor<int32_t>({1}, {5})));
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(Classify(failed), FailureClass::kRetryable);
  EXPECT_THAT(failed.message(),
              HasSubstr("assign-adding to variable 'w' on task /job:ps/task:0 "
                        "failed: fault injected at ps.apply.begin"));
  EXPECT_EQ(GetErrorContext(failed).task, "/job:ps/task:0");
  // The retry succeeds, and the update counts once.
  EXPECT_TRUE(
      AwaitError(client_->AssignAdd(w, Tensor<int32_t>({1}, {5}))).ok());
  EXPECT_THAT(Await(client_->Read(w)).values<int32_t>(), ElementsAre(15));
  EXPECT_EQ(FaultInjector::Hits("ps.apply.begin"), 2);
  FaultInjector::Clear();
}

TEST_F(VariableClientTest, AFaultAfterAnUpdateLosesOnlyTheAnswer) {
  VariableHandle w = Await(client_->Create("w", Tensor<int32_t>({1}, {10})));
  ASSERT_TRUE(FaultInjector::Set("ps.apply.end=error").ok());
  absl::Status failed =
      AwaitError(client_->AssignAdd(w, Tensor<int32_t>({1}, {5})));
  FaultInjector::Clear();
  EXPECT_EQ(Classify(failed), FailureClass::kRetryable);
  EXPECT_THAT(failed.message(), HasSubstr("fault injected at ps.apply.end"));
  // Applied all the same: an update is applied at least once, not exactly
  // once, when its answer is lost.
  EXPECT_THAT(Await(client_->Read(w)).values<int32_t>(), ElementsAre(15));
}

TEST_F(VariableClientTest, FaultsAtCreateAndReadRefuseThem) {
  ASSERT_TRUE(FaultInjector::Set("ps.create.begin=error:INTERNAL@nth=1;"
                                 "ps.read.begin=error@nth=1")
                  .ok());
  AsyncValueRef<VariableHandle> refused =
      client_->Create("w", Tensor<float>({}, {1}));
  client_host_->Await(refused.CopyRCRef());
  ASSERT_TRUE(refused.IsError());
  EXPECT_EQ(refused.GetError().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(Classify(refused.GetError()), FailureClass::kFatal);
  // Nothing was made on task 0 (where round robin put the first): a
  // create there now makes the variable with its own value, read back
  // below (a create of an existing variable would keep the old one).
  VariableHandle w =
      Await(client_->CreateOn("/job:ps/task:0", "w", Tensor<float>({}, {2})));
  AsyncValueRef<DenseHostTensor> read = client_->Read(w);
  client_host_->Await(read.CopyRCRef());
  ASSERT_TRUE(read.IsError());
  EXPECT_THAT(read.GetError().message(),
              HasSubstr("reading variable 'w' on task /job:ps/task:0 failed: "
                        "fault injected at ps.read.begin"));
  EXPECT_THAT(Await(client_->Read(w)).values<float>(), ElementsAre(2.0f));
  FaultInjector::Clear();
}

}  // namespace
}  // namespace sluice::dist
