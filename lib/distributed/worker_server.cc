#include "sluice/distributed/worker_server.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "lib/distributed/grpc_status.h"
#include "lib/distributed/program_fingerprint.h"
#include "lib/distributed/value_codec.h"
#include "lib/distributed/worker_service.grpc.pb.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/error_util.h"

namespace sluice::dist {
namespace {

// A program loaded on this task, with the signatures callers check against.
struct LoadedProgram {
  std::unique_ptr<Program> program;
  proto::RegisterProgramResponse registration;
  std::unordered_map<std::string, const proto::FunctionSignature*> signatures;
};

// A number no earlier process of the same task is likely to have had.
uint64_t NewIncarnation() {
  std::random_device random;
  return (uint64_t{random()} << 32) ^ random() ^
         static_cast<uint64_t>(absl::ToUnixNanos(absl::Now()));
}

class WorkerService final : public proto::Worker::CallbackService {
 public:
  WorkerService(HostContext* host, std::string task_name)
      : host_(host),
        task_name_(std::move(task_name)),
        incarnation_(NewIncarnation()) {}

  grpc::ServerUnaryReactor* GetStatus(
      grpc::CallbackServerContext* context,
      const proto::GetStatusRequest* /*request*/,
      proto::GetStatusResponse* response) override {
    response->set_task_name(task_name_);
    response->set_health(shutting_down_.load()
                             ? proto::GetStatusResponse::SHUTTING_DOWN
                             : proto::GetStatusResponse::SERVING);
    response->set_incarnation(incarnation_);
    {
      std::lock_guard<std::mutex> lock(executions_mu_);
      response->set_active_executions(active_executions_);
    }
    response->set_cancelled_executions(cancelled_executions_.load());
    {
      std::lock_guard<std::mutex> lock(mu_);
      response->set_registered_programs(programs_.size());
    }
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerUnaryReactor* RegisterProgram(
      grpc::CallbackServerContext* context,
      const proto::RegisterProgramRequest* request,
      proto::RegisterProgramResponse* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    absl::StatusOr<std::shared_ptr<const LoadedProgram>> loaded =
        Register(request->program());
    if (!loaded.ok()) {
      reactor->Finish(ToGrpcStatus(loaded.status()));
    } else {
      *response = (*loaded)->registration;
      reactor->Finish(grpc::Status::OK);
    }
    return reactor;
  }

  grpc::ServerUnaryReactor* Execute(grpc::CallbackServerContext* context,
                                    const proto::ExecuteRequest* request,
                                    proto::ExecuteResponse* response) override;

  void BeginShutdown() { shutting_down_.store(true); }

  // Waits until every execution has answered. gRPC's Server::Wait() says as
  // much, but only through gRPC's own (for ThreadSanitizer, invisible)
  // synchronization; this wait is on a mutex every answer takes.
  void AwaitAnswered() {
    std::unique_lock<std::mutex> lock(executions_mu_);
    answered_.wait(lock, [this] { return active_executions_ == 0; });
  }

 private:
  class Execution;

  // `text` holds the SBF bytes (protobuf's `bytes` is a std::string).
  absl::StatusOr<std::shared_ptr<const LoadedProgram>> Register(
      const std::string& text);
  absl::StatusOr<std::shared_ptr<const LoadedProgram>> Find(uint64_t id);
  absl::Status CheckArguments(const proto::FunctionSignature& signature,
                              const proto::ExecuteRequest& request) const;
  void EndExecution() {
    std::lock_guard<std::mutex> lock(executions_mu_);
    if (--active_executions_ == 0) answered_.notify_all();
  }
  // Writes the results, each a value or an error that names this task.
  grpc::Status EncodeResults(absl::Span<const RCReference<AsyncValue>> results,
                             proto::ExecuteResponse* response) const;

  HostContext* const host_;
  const std::string task_name_;
  const uint64_t incarnation_;
  std::atomic<bool> shutting_down_{false};
  std::mutex executions_mu_;
  std::condition_variable answered_;
  int64_t active_executions_ = 0;  // guarded by executions_mu_
  std::atomic<int64_t> cancelled_executions_{0};
  std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<const LoadedProgram>> programs_;
};

absl::StatusOr<std::shared_ptr<const LoadedProgram>> WorkerService::Register(
    const std::string& text) {
  const absl::Span<const uint8_t> bytes = absl::MakeConstSpan(
      reinterpret_cast<const uint8_t*>(text.data()), text.size());
  const uint64_t id = ProgramFingerprint(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = programs_.find(id);
    if (it != programs_.end()) {
      if (it->second->program->bytes() != bytes) {
        return absl::AlreadyExistsError(absl::StrCat(
            "task ", task_name_, ": another program has fingerprint ", id));
      }
      return it->second;
    }
  }
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::Load(bytes, GetKernelRegistry(host_));
  if (!program.ok()) {
    // The first bad op's location is context, not message: put it back in
    // front, where the runner prints it too.
    const std::string location = GetErrorContext(program.status()).location;
    return absl::Status(
        program.status().code(),
        absl::StrCat("task ", task_name_, " cannot load the program: ",
                     location, location.empty() ? "" : ": ",
                     program.status().message()));
  }
  auto loaded = std::make_shared<LoadedProgram>();
  loaded->registration.set_program_id(id);
  for (const Function* function : (*program)->ListFunctions()) {
    proto::FunctionSignature* signature = loaded->registration.add_functions();
    signature->set_name(function->name());
    for (std::string_view type : (*program)->ArgumentTypes(*function)) {
      signature->add_argument_types(std::string(type));
    }
    for (std::string_view type : (*program)->ResultTypes(*function)) {
      signature->add_result_types(std::string(type));
    }
  }
  for (const proto::FunctionSignature& signature :
       loaded->registration.functions()) {
    loaded->signatures.emplace(signature.name(), &signature);
  }
  loaded->program = *std::move(program);
  std::lock_guard<std::mutex> lock(mu_);
  // Two callers may have loaded the same program at once: keep the first.
  auto [it, inserted] = programs_.emplace(id, std::move(loaded));
  return it->second;
}

absl::StatusOr<std::shared_ptr<const LoadedProgram>> WorkerService::Find(
    uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = programs_.find(id);
  if (it == programs_.end()) {
    // FailedPrecondition, not NotFound: the caller's registration is stale
    // (this process never saw it), and the client forgets it on this code.
    return absl::FailedPreconditionError(
        absl::StrCat("task ", task_name_, " has no program with id ", id,
                     ": register the program first"));
  }
  return it->second;
}

absl::Status WorkerService::CheckArguments(
    const proto::FunctionSignature& signature,
    const proto::ExecuteRequest& request) const {
  const auto& expected = signature.argument_types();
  if (request.arguments_size() != expected.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function '", signature.name(), "' on task ", task_name_, " takes ",
        expected.size(), " argument(s) (", absl::StrJoin(expected, ", "),
        "), the call passed ", request.arguments_size()));
  }
  for (int i = 0; i < expected.size(); ++i) {
    std::string_view got = WireTypeName(request.arguments(i));
    if (got != expected[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument ", i, " of function '", signature.name(),
                       "' on task ", task_name_, " must be ", expected[i],
                       ", the call passed ", std::string(got)));
    }
  }
  return absl::OkStatus();
}

grpc::Status WorkerService::EncodeResults(
    absl::Span<const RCReference<AsyncValue>> results,
    proto::ExecuteResponse* response) const {
  for (const RCReference<AsyncValue>& result : results) {
    proto::Value* value = response->add_results();
    absl::Status encoded = EncodeValue(*result, value);
    if (!encoded.ok()) return ToGrpcStatus(encoded);
    if (value->has_error() && value->error().task().empty()) {
      value->mutable_error()->set_task(task_name_);
    }
  }
  return grpc::Status::OK;
}

// An Execute RPC whose function did not finish before the handler
// returned: it answers once every result is available. The caller's
// cancellation (or deadline) cancels the execution's RequestContext, which
// stops the kernels not yet started.
class WorkerService::Execution final : public grpc::ServerUnaryReactor {
 public:
  Execution(WorkerService* service, proto::ExecuteResponse* response,
            RCReference<RequestContext> request,
            std::shared_ptr<const LoadedProgram> program,
            std::vector<RCReference<AsyncValue>> results)
      : service_(service),
        response_(response),
        request_(std::move(request)),
        program_(std::move(program)),
        results_(std::move(results)) {}

  void Start() {
    RunWhenReady(results_, [this] { Answer(); });
  }

  void OnCancel() override {
    service_->cancelled_executions_.fetch_add(1);
    request_->Cancel(absl::CancelledError(
        absl::StrCat("execution on task ", service_->task_name_,
                     " cancelled by its caller or its deadline")));
  }

  void OnDone() override { delete this; }

 private:
  void Answer() {
    grpc::Status status = service_->EncodeResults(results_, response_);
    // The values are freed now, not when gRPC is done with the call. The
    // request stays: OnCancel() may still run on a gRPC thread until
    // OnDone().
    results_.clear();
    program_.reset();
    service_->EndExecution();
    Finish(status);
  }

  WorkerService* const service_;
  proto::ExecuteResponse* const response_;
  const RCReference<RequestContext> request_;
  std::shared_ptr<const LoadedProgram> program_;
  std::vector<RCReference<AsyncValue>> results_;
};

grpc::ServerUnaryReactor* WorkerService::Execute(
    grpc::CallbackServerContext* context, const proto::ExecuteRequest* request,
    proto::ExecuteResponse* response) {
  auto finish = [&](const grpc::Status& status) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(status);
    return reactor;
  };
  auto fail = [&](const absl::Status& status) {
    return finish(ToGrpcStatus(status));
  };
  if (shutting_down_.load()) {
    return fail(absl::UnavailableError(
        absl::StrCat("task ", task_name_, " is shutting down")));
  }
  absl::StatusOr<std::shared_ptr<const LoadedProgram>> program =
      Find(request->program_id());
  if (!program.ok()) return fail(program.status());
  auto signature = (*program)->signatures.find(request->function());
  if (signature == (*program)->signatures.end()) {
    std::vector<std::string> names;
    for (const auto& entry : (*program)->signatures) {
      names.push_back(entry.first);
    }
    std::sort(names.begin(), names.end());
    return fail(absl::NotFoundError(absl::StrCat(
        "task ", task_name_, " has no function '", request->function(),
        "' in program ", request->program_id(), "; it has ",
        absl::StrJoin(names, ", "))));
  }
  absl::Status checked = CheckArguments(*signature->second, *request);
  if (!checked.ok()) return fail(checked);

  // The function starts here, on gRPC's thread: synchronous kernels run
  // inline until the first one that waits, and a function that does not
  // wait is answered at once. Handing every call to the host's queue
  // instead costs a thread wake-up on each side (about 1.5x the round trip
  // of an empty call on loopback).
  std::vector<RCReference<AsyncValue>> arguments;
  std::vector<AsyncValue*> pointers;
  arguments.reserve(request->arguments_size());
  for (const proto::Value& argument : request->arguments()) {
    arguments.push_back(DecodeValue(argument, task_name_));
    pointers.push_back(arguments.back().get());
  }
  RCReference<RequestContext> request_context = RequestContext::Create(host_);
  {
    std::lock_guard<std::mutex> lock(executions_mu_);
    ++active_executions_;
  }
  std::vector<RCReference<AsyncValue>> results =
      CallFunction(*(*program)->program->GetFunction(request->function()),
                   ExecutionContext(request_context.CopyRef()), pointers);
  arguments.clear();
  if (std::all_of(results.begin(), results.end(),
                  [](const auto& result) { return result->IsAvailable(); })) {
    grpc::Status status = EncodeResults(results, response);
    EndExecution();
    return finish(status);
  }
  auto* execution = new Execution(this, response, std::move(request_context),
                                  *std::move(program), std::move(results));
  execution->Start();
  return execution;
}

}  // namespace

class WorkerServer::Impl {
 public:
  Impl(HostContext* host, WorkerOptions options)
      : options_(std::move(options)), service_(host, options_.task_name) {}

  WorkerOptions options_;
  WorkerService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::once_flag shutdown_once_;
};

absl::StatusOr<std::unique_ptr<WorkerServer>> WorkerServer::Start(
    HostContext* host, WorkerOptions options) {
  auto impl = std::make_unique<Impl>(host, std::move(options));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(impl->options_.address,
                           grpc::InsecureServerCredentials(), &impl->port_);
  builder.SetMaxReceiveMessageSize(impl->options_.max_message_bytes);
  builder.SetMaxSendMessageSize(impl->options_.max_message_bytes);
  builder.RegisterService(&impl->service_);
  impl->server_ = builder.BuildAndStart();
  if (impl->server_ == nullptr || impl->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("task ", impl->options_.task_name, " cannot listen on ",
                     impl->options_.address));
  }
  return std::unique_ptr<WorkerServer>(new WorkerServer(std::move(impl)));
}

WorkerServer::WorkerServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

WorkerServer::~WorkerServer() { Shutdown(); }

int WorkerServer::port() const { return impl_->port_; }

const std::string& WorkerServer::task_name() const {
  return impl_->options_.task_name;
}

void WorkerServer::Shutdown(absl::Duration grace) {
  std::call_once(impl_->shutdown_once_, [&] {
    impl_->service_.BeginShutdown();
    // Calls still running at the deadline are cancelled, which cancels their
    // executions; they answer once their kernels have stopped.
    impl_->server_->Shutdown(
        std::chrono::system_clock::now() +
        std::chrono::microseconds(absl::ToInt64Microseconds(grace)));
    impl_->server_->Wait();
    impl_->service_.AwaitAnswered();
  });
}

}  // namespace sluice::dist
