// A worker and a client in one process, over loopback gRPC: registration,
// calls, errors raised on the worker, bad requests, cancellation.
#include "sluice/distributed/worker_server.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "lib/distributed/worker_service.grpc.pb.h"
#include "sluice/bef/checksum.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/kernels/test_kernels.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::dist {
namespace {

using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kProgram[] = R"mlir(
func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @greet(%name: !tfrt.string) -> (!tfrt.string, !tfrt.chain) {
  %hello = "tfrt_test.get_string"() {value = "hello "} : () -> !tfrt.string
  %s = "tfrt_test.append_string"(%hello, %name)
      : (!tfrt.string, !tfrt.string) -> !tfrt.string
  %ch = tfrt.new.chain
  tfrt.return %s, %ch : !tfrt.string, !tfrt.chain
}

func.func @fail() -> (i32, i32) {
  %ok = tfrt.constant.i32 1
  %bad = "tfrt_test.fail"() : () -> i32 loc("remote.mlir":7:3)
  tfrt.return %ok, %bad : i32, i32
}

func.func @identity(%x: !t.tensor) -> !t.tensor {
  tfrt.return %x : !t.tensor
}

func.func @spin(%n: i32) -> i32 {
  %zero = tfrt.constant.i32 0
  %ch0 = tfrt.new.chain
  %x, %ch1 = tfrt.repeat.i32 %n, %zero, %ch0 : i32, !tfrt.chain {
    %ms = tfrt.constant.i32 1000
    %ch2 = "tfrt_test.blocking.usleep"(%ms) : (i32) -> !tfrt.chain
    tfrt.return %zero, %ch2 : i32, !tfrt.chain
  }
  tfrt.return %x : i32
}
)mlir";

std::unique_ptr<HostContext> MakeHost(const char* queue) {
  auto host = std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                            CreateMallocAllocator(),
                                            *CreateWorkQueue(queue));
  EXPECT_TRUE(RegisterBasicKernels(&GetKernelRegistry(host.get())).ok());
  EXPECT_TRUE(RegisterTestKernels(&GetKernelRegistry(host.get())).ok());
  return host;
}

// Braced lists of move-only references are not possible; this is.
template <typename... Values>
std::vector<RCReference<AsyncValue>> Args(Values... values) {
  std::vector<RCReference<AsyncValue>> out;
  (out.push_back(std::move(values)), ...);
  return out;
}

RCReference<AsyncValue> I32(int32_t x) {
  return MakeAvailableAsyncValueRef<int32_t>(x).ReleaseRCRef();
}

class WorkerServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    worker_host_ = MakeHost("mstd:2");
    WorkerOptions options;
    options.task_name = "/job:worker/task:0";
    options.address = "127.0.0.1:0";
    auto server = WorkerServer::Start(worker_host_.get(), options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);

    client_host_ = MakeHost("s");
    auto spec = ClusterSpec::FromJson(
        absl::StrCat(R"({"worker": ["127.0.0.1:)", server_->port(), R"("]})"));
    ASSERT_TRUE(spec.ok());
    RpcOptions rpc;
    rpc.deadline = absl::Seconds(20);
    client_ = std::make_unique<ClusterClient>(*spec, rpc, client_host_.get());
    task_ = *client_->GetTask("/job:worker/task:0");

    auto program = CompileProgram(kProgram, "remote.mlir");
    ASSERT_TRUE(program.ok()) << program.status();
    program_ = *std::move(program);
  }

  void TearDown() override {
    client_.reset();
    client_host_.reset();
    server_.reset();
    worker_host_.reset();
  }

  RemoteProgram Register() {
    AsyncValueRef<RemoteProgram> registered = task_->RegisterProgram(program_);
    client_host_->Await(registered.CopyRCRef());
    EXPECT_FALSE(registered.IsError()) << registered.GetError();
    return registered.get();
  }

  std::vector<RCReference<AsyncValue>> CallAndWait(
      const RemoteFunction& function,
      std::vector<RCReference<AsyncValue>> arguments,
      RequestContext* request = nullptr) {
    std::vector<AsyncValue*> pointers;
    for (auto& argument : arguments) pointers.push_back(argument.get());
    auto results = task_->Call(function, pointers, request);
    client_host_->Await(results);
    return results;
  }

  TaskStatus Status() {
    AsyncValueRef<TaskStatus> status = task_->GetStatus();
    client_host_->Await(status.CopyRCRef());
    EXPECT_FALSE(status.IsError()) << status.GetError();
    return status.get();
  }

  std::unique_ptr<HostContext> worker_host_;
  std::unique_ptr<WorkerServer> server_;
  std::unique_ptr<HostContext> client_host_;
  std::unique_ptr<ClusterClient> client_;
  TaskClient* task_ = nullptr;
  std::vector<uint8_t> program_;
};

TEST_F(WorkerServerTest, StatusNamesTheTask) {
  TaskStatus status = Status();
  EXPECT_EQ(status.task_name, "/job:worker/task:0");
  EXPECT_TRUE(status.serving);
  EXPECT_EQ(status.active_executions, 0);
}

TEST_F(WorkerServerTest, RegistrationReportsSignaturesAndIsSentOnce) {
  RemoteProgram program = Register();
  auto add = program.GetFunction("add");
  ASSERT_TRUE(add.ok());
  EXPECT_THAT(add->argument_types, ElementsAre("i32", "i32"));
  EXPECT_THAT(add->result_types, ElementsAre("i32"));
  auto greet = program.GetFunction("greet");
  ASSERT_TRUE(greet.ok());
  EXPECT_THAT(greet->result_types, ElementsAre("!tfrt.string", "!tfrt.chain"));
  EXPECT_THAT(program.GetFunction("nope").status().message(),
              HasSubstr("has no function 'nope'; it has add"));

  EXPECT_EQ(Register().program_id, program.program_id);
  EXPECT_EQ(Status().registered_programs, 1);
}

TEST_F(WorkerServerTest, CallsReturnTheWorkersResults) {
  RemoteProgram program = Register();
  auto results =
      CallAndWait(*program.GetFunction("add"), Args(I32(2), I32(40)));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]->get<int32_t>(), 42);

  auto greeting = CallAndWait(
      *program.GetFunction("greet"),
      Args(MakeAvailableAsyncValueRef<std::string>("sluice").ReleaseRCRef()));
  ASSERT_EQ(greeting.size(), 2u);
  EXPECT_EQ(greeting[0]->get<std::string>(), "hello sluice");
  EXPECT_TRUE(greeting[1]->IsType<Chain>());
}

TEST_F(WorkerServerTest, ArgumentsMayArriveLater) {
  RemoteProgram program = Register();
  AsyncValueRef<int32_t> late = MakeUnconstructedAsyncValueRef<int32_t>();
  AsyncValue* arguments[] = {late.GetAsyncValue(), I32(1).release()};
  auto results = task_->Call(*program.GetFunction("add"), arguments, nullptr);
  arguments[1]->DropRef();
  EXPECT_TRUE(results[0]->IsUnavailable());
  late.emplace(9);
  client_host_->Await(results);
  EXPECT_EQ(results[0]->get<int32_t>(), 10);
}

TEST_F(WorkerServerTest, AnErrorArgumentIsNotSent) {
  RemoteProgram program = Register();
  auto results = CallAndWait(
      *program.GetFunction("add"),
      Args(MakeErrorAsyncValueRef(absl::DataLossError("upstream broke")),
           I32(1)));
  EXPECT_EQ(results[0]->GetError().message(), "upstream broke");
}

TEST_F(WorkerServerTest, WorkerErrorsKeepCodeMessageTaskAndLocation) {
  RemoteProgram program = Register();
  auto results = CallAndWait(*program.GetFunction("fail"), Args());
  ASSERT_EQ(results.size(), 2u);
  // A partial failure stays partial.
  EXPECT_EQ(results[0]->get<int32_t>(), 1);
  ASSERT_TRUE(results[1]->IsError());
  const absl::Status& error = results[1]->GetError();
  EXPECT_EQ(error.code(),
            absl::StatusCode::kInternal);  // tfrt_test.fail's code
  EXPECT_EQ(error.message(), "something bad happened");
  ErrorContext context = GetErrorContext(error);
  EXPECT_EQ(context.task, "/job:worker/task:0");
  EXPECT_EQ(context.kernel, "tfrt_test.fail");
  EXPECT_EQ(context.location, "remote.mlir:7:3");
  // The process that made it, and what kind of failure it is.
  EXPECT_EQ(context.incarnation, Status().incarnation);
  EXPECT_NE(context.incarnation, 0u);
  EXPECT_EQ(Classify(error), FailureClass::kFatal);
}

TEST_F(WorkerServerTest, BadRequestsGetClearErrorsAndTheWorkerGoesOn) {
  RemoteProgram program = Register();
  RemoteFunction add = *program.GetFunction("add");

  RemoteFunction unknown = add;
  unknown.name = "missing";
  auto results = CallAndWait(unknown, Args());
  EXPECT_EQ(results[0]->GetError().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr("has no function 'missing'"));
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr("remote call of 'missing' on task /job:worker/task:0"));
  EXPECT_EQ(Classify(results[0]->GetError()), FailureClass::kFatal);
  // A refusal records the process that refused.
  EXPECT_EQ(GetErrorContext(results[0]->GetError()).incarnation,
            Status().incarnation);

  results = CallAndWait(add, Args(I32(1)));
  EXPECT_EQ(results[0]->GetError().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr("takes 2 argument(s) (i32, i32), the call passed 1"));
  EXPECT_EQ(Classify(results[0]->GetError()), FailureClass::kFatal);

  results = CallAndWait(
      add,
      Args(I32(1), MakeAvailableAsyncValueRef<float>(1.0f).ReleaseRCRef()));
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr("argument 1 of function 'add' on task "
                        "/job:worker/task:0 must be i32, the call passed f32"));

  RemoteFunction stale = add;
  stale.program_id ^= 1;
  results = CallAndWait(stale, Args(I32(1), I32(2)));
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr("register the program first"));
  // Registering again and repeating the call would succeed.
  EXPECT_EQ(Classify(results[0]->GetError()), FailureClass::kRetryable);

  std::vector<uint8_t> garbage = {'n', 'o', 't', ' ', 's', 'b', 'f'};
  AsyncValueRef<RemoteProgram> bad = task_->RegisterProgram(garbage);
  client_host_->Await(bad.CopyRCRef());
  ASSERT_TRUE(bad.IsError());
  EXPECT_THAT(bad.GetError().message(),
              HasSubstr("task /job:worker/task:0 cannot load the program"));
  EXPECT_EQ(Classify(bad.GetError()), FailureClass::kFatal);

  // Still serving.
  results = CallAndWait(add, Args(I32(3), I32(4)));
  EXPECT_EQ(results[0]->get<int32_t>(), 7);
}

// A client's bytes may name a function anything; a name that is not UTF-8
// could not go back in RegisterProgramResponse's protobuf string fields,
// so registration refuses it, naming the function.
TEST_F(WorkerServerTest, RegistrationRefusesFunctionNamesThatAreNotUtf8) {
  absl::StatusOr<std::vector<uint8_t>> compiled = CompileProgram(R"mlir(
func.func @victim() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}
)mlir",
                                                                 "names.mlir");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<uint8_t> bytes = *std::move(compiled);
  const std::string_view name = "victim";
  auto at = std::search(bytes.begin(), bytes.end(), name.begin(), name.end());
  ASSERT_NE(at, bytes.end());
  ASSERT_EQ(std::search(at + 1, bytes.end(), name.begin(), name.end()),
            bytes.end());
  at[1] = 0xFF;
  bef::UpdateSbfChecksum(absl::MakeSpan(bytes));

  AsyncValueRef<RemoteProgram> refused = task_->RegisterProgram(bytes);
  client_host_->Await(refused.CopyRCRef());
  ASSERT_TRUE(refused.IsError());
  EXPECT_EQ(refused.GetError().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(refused.GetError().message());
  EXPECT_THAT(message,
              HasSubstr("task /job:worker/task:0 cannot load the program: "
                        "invalid sbf file: Functions at offset "));
  EXPECT_THAT(message,
              HasSubstr("function #0's name \"v\\xff\\x63tim\" is not valid "
                        "UTF-8 (byte 0xff at offset 1)"));
  EXPECT_EQ(Status().registered_programs, 0);

  // Still serving.
  RemoteFunction add = *Register().GetFunction("add");
  EXPECT_EQ(CallAndWait(add, Args(I32(3), I32(4)))[0]->get<int32_t>(), 7);
}

TEST_F(WorkerServerTest, CorruptTensorArgumentsAreRefusedAndTheWorkerGoesOn) {
  RemoteProgram program = Register();
  // Straight through the stub: the client never sends such tensors.
  auto stub = proto::Worker::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port()),
                          grpc::InsecureChannelCredentials()));
  auto execute = [&](const proto::Tensor& tensor) {
    proto::ExecuteRequest request;
    request.set_program_id(program.program_id);
    request.set_function("identity");
    *request.add_arguments()->mutable_tensor() = tensor;
    proto::ExecuteResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(20));
    return stub->Execute(&context, request, &response);
  };
  proto::Tensor unknown_dtype;
  unknown_dtype.set_dtype(9);
  proto::Tensor negative;
  negative.set_dtype(static_cast<uint32_t>(DType::kF32));
  negative.add_dims(-2);
  proto::Tensor short_bytes;
  short_bytes.set_dtype(static_cast<uint32_t>(DType::kI64));
  short_bytes.add_dims(2);
  short_bytes.set_data(std::string(15, '\0'));
  proto::Tensor not_a_bool;
  not_a_bool.set_dtype(static_cast<uint32_t>(DType::kI1));
  not_a_bool.add_dims(1);
  not_a_bool.set_data("\x05");
  for (const auto& [tensor, expected] :
       std::vector<std::pair<proto::Tensor, std::string>>{
           {unknown_dtype, "unknown dtype 9"},
           {negative, "negative dimension"},
           {short_bytes, "carries 15 bytes"},
           {not_a_bool, "an i1 element is 0 or 1"}}) {
    grpc::Status status = execute(tensor);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(),
                HasSubstr("argument 0 of function 'identity' on task "
                          "/job:worker/task:0: tensor message"));
    EXPECT_THAT(status.error_message(), HasSubstr(expected));
  }
  EXPECT_EQ(Status().active_executions, 0);

  // Still serving, tensors included.
  DenseHostTensor tensor = *DenseHostTensor::FromValues<int32_t>(
      TensorShape({2}), std::vector<int32_t>{4, 5}, client_host_->allocator());
  auto results = CallAndWait(
      *program.GetFunction("identity"),
      Args(MakeAvailableAsyncValueRef<DenseHostTensor>(tensor).ReleaseRCRef()));
  ASSERT_FALSE(results[0]->IsError()) << results[0]->GetError();
  EXPECT_TRUE(TensorsEqual(results[0]->get<DenseHostTensor>(), tensor));
}

TEST_F(WorkerServerTest, CancellingTheRequestCancelsTheExecution) {
  RemoteProgram program = Register();
  RCReference<RequestContext> request =
      RequestContext::Create(client_host_.get());
  // 10^6 iterations of 1 ms: finishes only if cancelled.
  std::vector<AsyncValue*> arguments = {I32(1000000).release()};
  auto results =
      task_->Call(*program.GetFunction("spin"), arguments, request.get());
  arguments[0]->DropRef();
  // Wait until the worker runs it, then cancel.
  for (int i = 0; i < 500 && Status().active_executions == 0; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_EQ(Status().active_executions, 1);
  request->Cancel();
  client_host_->Await(results);
  EXPECT_EQ(results[0]->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(Classify(results[0]->GetError()), FailureClass::kCancelled);
  for (int i = 0; i < 500 && Status().active_executions != 0; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  TaskStatus status = Status();
  EXPECT_EQ(status.active_executions, 0);
  EXPECT_EQ(status.cancelled_executions, 1);
}

TEST_F(WorkerServerTest, ACallPastItsDeadlineNamesTaskAndFunction) {
  RemoteProgram program = Register();
  std::vector<AsyncValue*> arguments = {I32(1000000).release()};
  CallOptions options;
  options.deadline = absl::Milliseconds(300);
  absl::Time start = absl::Now();
  auto results =
      task_->Call(*program.GetFunction("spin"), arguments, nullptr, options);
  arguments[0]->DropRef();
  client_host_->Await(results);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  const absl::Status& error = results[0]->GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kDeadlineExceeded);
  // The client's timer and the worker's (the deadline travels with the
  // call) expire together, and either may answer first: the client says no
  // answer came, the worker that its request's deadline cancelled the call.
  EXPECT_THAT(error.message(),
              AnyOf(HasSubstr("remote call of 'spin' on task "
                              "/job:worker/task:0 failed: no answer within "
                              "300ms"),
                    HasSubstr("deadline exceeded")));
  EXPECT_EQ(GetErrorContext(error).task, "/job:worker/task:0");
  EXPECT_EQ(Classify(error), FailureClass::kRetryable);
  // The worker saw the deadline pass and stopped the execution.
  for (int i = 0; i < 500 && Status().active_executions != 0; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(Status().cancelled_executions, 1);
}

TEST_F(WorkerServerTest, AllTasksAnswerTheClusterCheck) {
  AsyncValueRef<std::vector<TaskStatus>> all = client_->CheckAllTasks();
  client_host_->Await(all.CopyRCRef());
  ASSERT_FALSE(all.IsError()) << all.GetError();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].task_name, "/job:worker/task:0");
}

TEST_F(WorkerServerTest, UnknownTasksAreNotFound) {
  EXPECT_EQ(client_->GetTask("/job:worker/task:1").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(*client_->GetTask("/job:worker/replica:0/task:0"), task_);
}

// --- Fault points (the worker and the client share this process's
// injector) ---------------------------------------------------------------

class WorkerFaultsTest : public WorkerServerTest {
 protected:
  void TearDown() override {
    FaultInjector::Clear();  // releases a hang before the worker stops
    WorkerServerTest::TearDown();
  }
  void SetFaults(std::string_view spec) {
    absl::Status set = FaultInjector::Set(spec);
    ASSERT_TRUE(set.ok()) << set;
  }
};

TEST_F(WorkerFaultsTest, AnErrorAtCallBeginReachesTheClientWithItsClass) {
  RemoteFunction add = *Register().GetFunction("add");
  const uint64_t incarnation = Status().incarnation;
  // INTERNAL alone reads as fatal: the class seen is the one sent.
  SetFaults("worker.call.begin=error:INTERNAL:retryable@nth=1");
  auto results = CallAndWait(add, Args(I32(2), I32(40)));
  const absl::Status& error = results[0]->GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(error.message(),
            "remote call of 'add' on task /job:worker/task:0 failed: fault "
            "injected at worker.call.begin");
  EXPECT_EQ(Classify(error), FailureClass::kRetryable);
  EXPECT_EQ(GetErrorContext(error).task, "/job:worker/task:0");
  EXPECT_EQ(GetErrorContext(error).incarnation, incarnation);

  results = CallAndWait(add, Args(I32(2), I32(40)));
  EXPECT_EQ(results[0]->get<int32_t>(), 42);
  EXPECT_EQ(FaultInjector::Hits("worker.call.begin"), 2);
}

TEST_F(WorkerFaultsTest, AnErrorAtCallEndLosesAnAnswerAlreadyMade) {
  RemoteFunction add = *Register().GetFunction("add");
  SetFaults("worker.call.end=error:DATA_LOSS");
  auto results = CallAndWait(add, Args(I32(2), I32(40)));
  EXPECT_EQ(results[0]->GetError().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Classify(results[0]->GetError()), FailureClass::kFatal);
  // The call ran to its end first.
  EXPECT_EQ(FaultInjector::Hits("worker.call.begin"), 1);
  EXPECT_EQ(FaultInjector::Hits("worker.call.end"), 1);
}

TEST_F(WorkerFaultsTest, AnErrorAtRegisterBeginFailsTheRegistration) {
  SetFaults("worker.register.begin=error");
  AsyncValueRef<RemoteProgram> registered = task_->RegisterProgram(program_);
  client_host_->Await(registered.CopyRCRef());
  ASSERT_TRUE(registered.IsError());
  EXPECT_EQ(registered.GetError().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(registered.GetError().message(),
              HasSubstr("registering a program on task /job:worker/task:0 "
                        "failed: fault injected at worker.register.begin"));
  EXPECT_EQ(Classify(registered.GetError()), FailureClass::kRetryable);
  EXPECT_EQ(Status().registered_programs, 0);
  // A failed registration is tried again.
  FaultInjector::Clear();
  EXPECT_EQ(Register().functions.size(), 5u);
}

TEST_F(WorkerFaultsTest, AnErrorAtClientSendSendsNothing) {
  RemoteFunction add = *Register().GetFunction("add");
  SetFaults("client.call.send=error:DEADLINE_EXCEEDED");
  auto results = CallAndWait(add, Args(I32(2), I32(40)));
  const absl::Status& error = results[0]->GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(error.message(),
            "remote call of 'add' on task /job:worker/task:0 failed: fault "
            "injected at client.call.send");
  EXPECT_EQ(Classify(error), FailureClass::kRetryable);
  EXPECT_EQ(GetErrorContext(error).task, "/job:worker/task:0");
  EXPECT_EQ(FaultInjector::Hits("worker.call.begin"), 0);
}

TEST_F(WorkerFaultsTest, ADelayedCallIsAnsweredLate) {
  RemoteFunction add = *Register().GetFunction("add");
  SetFaults("worker.call.begin=delay:100");
  const absl::Time start = absl::Now();
  auto results = CallAndWait(add, Args(I32(2), I32(40)));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(100));
  EXPECT_EQ(results[0]->get<int32_t>(), 42);
}

TEST_F(WorkerFaultsTest, AHungCallLeavesTheWorkerAnsweringUntilReleased) {
  RemoteFunction add = *Register().GetFunction("add");
  SetFaults("worker.call.begin=hang");
  std::vector<AsyncValue*> arguments = {I32(2).release(), I32(40).release()};
  auto results = task_->Call(add, arguments, nullptr);
  for (AsyncValue* argument : arguments) argument->DropRef();
  for (int i = 0; i < 500 && FaultInjector::Hits("worker.call.begin") == 0;
       ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  // Hung on an execution thread: the worker still answers status requests.
  EXPECT_EQ(Status().active_executions, 1);
  EXPECT_TRUE(results[0]->IsUnavailable());
  FaultInjector::Clear();
  client_host_->Await(results);
  EXPECT_EQ(results[0]->get<int32_t>(), 42);
}

}  // namespace
}  // namespace sluice::dist
