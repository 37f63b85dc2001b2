#include "sluice/distributed/worker_server.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"
#include "lib/distributed/grpc_status.h"
#include "lib/distributed/program_fingerprint.h"
#include "lib/distributed/resource_table.h"
#include "lib/distributed/value_codec.h"
#include "lib/distributed/worker_service.grpc.pb.h"
#include "lib/host_context/blocking_pool.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/distributed/client_work_ledger.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/host_context/tracer.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"

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

// The client a call comes from: gRPC's peer ("ipv4:10.0.0.7:53012") without
// its port, which a caller picks freely with each connection.
std::string ClientOf(const std::string& peer) {
  const size_t colon = peer.rfind(':');
  const size_t scheme = peer.find(':');
  if (colon == std::string::npos || colon == scheme ||
      peer.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
    return peer;  // "unix:/path", or no port
  }
  return peer.substr(0, colon);
}

// An execution thread idle this long exits, so a burst of calls does not
// pin its threads for the life of the worker.
constexpr std::chrono::milliseconds kExecutionThreadIdleTimeout(10000);

class WorkerService final : public proto::Worker::CallbackService {
 public:
  WorkerService(HostContext* host, const WorkerOptions& options)
      : host_(host),
        task_name_(options.task_name),
        max_message_bytes_(options.max_message_bytes),
        max_programs_(std::max(options.max_programs, 1)),
        max_program_bytes_(options.max_program_bytes),
        incarnation_(NewIncarnation()),
        observers_(options.observers),
        max_executions_per_client_(
            std::max(options.max_executions_per_client, 1)),
        client_work_ledger_(options.client_work_ledger),
        refused_kernels_(options.refused_kernels),
        executor_(std::max(options.max_execution_threads, 1),
                  kExecutionThreadIdleTimeout, /*on_idle=*/nullptr,
                  absl::ToChronoNanoseconds(options.execution_spin)) {}

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
      response->set_evicted_programs(evicted_programs_);
    }
    response->set_resources(resources_.size());
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerUnaryReactor* ReleaseResources(
      grpc::CallbackServerContext* context,
      const proto::ReleaseResourcesRequest* request,
      proto::ReleaseResourcesResponse* response) override {
    response->set_released(resources_.Release(
        absl::MakeConstSpan(request->ids().data(), request->ids().size())));
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  grpc::ServerUnaryReactor* RegisterProgram(
      grpc::CallbackServerContext* context,
      const proto::RegisterProgramRequest* request,
      proto::RegisterProgramResponse* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    // Loading a large program takes a while: not on a thread that answers
    // RPCs.
    executor_.Add([this, reactor, request, response] {
      if (absl::Status fault = SLUICE_FAULT_POINT("worker.register.begin");
          !fault.ok()) {
        reactor->Finish(AnswerError(fault));
        return;
      }
      absl::StatusOr<std::shared_ptr<const LoadedProgram>> loaded =
          Register(request->program());
      if (!loaded.ok()) {
        reactor->Finish(AnswerError(loaded.status()));
      } else {
        *response = (*loaded)->registration;
        // Not trimmed here: when running programs keep the task over its
        // limits, the one just registered is the last that should go.
        reactor->Finish(grpc::Status::OK);
      }
    });
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
  // The program `id`, or FailedPrecondition; `evicted` says whether this
  // task had it once and evicted it.
  absl::StatusOr<std::shared_ptr<const LoadedProgram>> Find(uint64_t id,
                                                            bool* evicted);
  // Evicts least recently used programs that no one holds until the limits
  // hold again, or no more can go.
  void EvictLocked();
  // EvictLocked once a program that had to stay is let go.
  void TrimPrograms() {
    if (!over_limit_.load(std::memory_order_acquire)) return;
    std::lock_guard<std::mutex> lock(mu_);
    EvictLocked();
  }
  absl::Status CheckArguments(const proto::FunctionSignature& signature,
                              const proto::ExecuteRequest& request) const;
  absl::Status CheckKeepResultsAs(const proto::FunctionSignature& signature,
                                  const proto::ExecuteRequest& request) const;
  // The value kept under `ref` for argument `index` of `signature`'s
  // function: FailedPrecondition, retryable, when this process keeps none
  // (the caller must make it again), InvalidArgument when it has another
  // type than the argument's.
  absl::StatusOr<Resource> ResolveResource(
      const proto::ResourceRef& ref, int index,
      const proto::FunctionSignature& signature) const;
  // Counts a call of `client` as running, or says which bound it is past.
  absl::Status AdmitExecution(const std::string& client,
                              const std::string& function);
  void EndExecution(bool cancelled, const std::string& client) {
    // Counted before the execution stops being active: whoever sees it gone
    // sees it counted.
    if (cancelled) cancelled_executions_.fetch_add(1);
    std::lock_guard<std::mutex> lock(executions_mu_);
    auto running = executions_per_client_.find(client);
    if (--running->second == 0) executions_per_client_.erase(running);
    if (--active_executions_ == 0) answered_.notify_all();
  }
  // The first op of `program` whose kernel callers may not use, as an error
  // naming it and its location.
  absl::Status CheckServedKernels(const Program& program) const;
  // `status` as this task's answer, with this task and process recorded as
  // its origin.
  grpc::Status AnswerError(absl::Status status) const {
    ErrorContext origin;
    origin.task = task_name_;
    origin.incarnation = incarnation_;
    return ToGrpcStatus(AddErrorContext(std::move(status), origin));
  }
  // Writes the results, each a value or an error that names this task and
  // process; refuses an answer larger than this task or the caller accepts.
  grpc::Status EncodeResults(absl::Span<const RCReference<AsyncValue>> results,
                             const proto::ExecuteRequest& request,
                             proto::ExecuteResponse* response) const;

  HostContext* const host_;
  const std::string task_name_;
  const int max_message_bytes_;
  const int max_programs_;
  const int64_t max_program_bytes_;
  const uint64_t incarnation_;
  const RequestObservers* const observers_;
  const int max_executions_per_client_;
  ClientWorkLedger* const client_work_ledger_;
  const std::vector<WorkerOptions::RefusedKernels> refused_kernels_;
  std::atomic<bool> shutting_down_{false};
  std::mutex executions_mu_;
  std::condition_variable answered_;
  int64_t active_executions_ = 0;  // guarded by executions_mu_
  // Running calls per client, for those that have any; executions_mu_.
  std::unordered_map<std::string, int> executions_per_client_;
  std::atomic<int64_t> cancelled_executions_{0};
  std::mutex mu_;
  struct ProgramEntry {
    // Copied only under mu_, so a use count of 1 read under mu_ means that
    // no call runs the program and none can start to.
    std::shared_ptr<const LoadedProgram> loaded;
    std::list<uint64_t>::iterator recency;
  };
  std::unordered_map<uint64_t, ProgramEntry> programs_;  // guarded by mu_
  std::list<uint64_t> recency_;   // ids, most recently used first; mu_
  int64_t program_bytes_ = 0;     // guarded by mu_
  int64_t evicted_programs_ = 0;  // guarded by mu_
  // The ids of the programs evicted and not registered since, so that a
  // call to one tells its client to register it again (8 bytes a program,
  // where the program took at least its SBF header).
  std::unordered_set<uint64_t> evicted_ids_;  // guarded by mu_
  // Past a limit with every evictable program gone.
  std::atomic<bool> over_limit_{false};
  // What callers asked this process to keep. Each value holds on to its
  // program, which is then never evicted.
  ResourceTable resources_;
  // Last: its threads stop before the rest of the service goes.
  // The threads calls run on, so that gRPC's threads, which also answer the
  // status RPC and deliver cancellations, never run a program: kernels cannot
  // be preempted, and a call started on a gRPC thread would hold it until
  // its last synchronous kernel returned.
  internal::BlockingPool executor_;
};

absl::StatusOr<std::shared_ptr<const LoadedProgram>> WorkerService::Register(
    const std::string& text) {
  const absl::Span<const uint8_t> bytes = absl::MakeConstSpan(
      reinterpret_cast<const uint8_t*>(text.data()), text.size());
  if (static_cast<int64_t>(bytes.size()) > max_program_bytes_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("task ", task_name_, " cannot hold a program of ",
                     bytes.size(), " bytes: its programs may take ",
                     max_program_bytes_, " bytes in all (max_program_bytes)"));
  }
  const uint64_t id = ProgramFingerprint(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = programs_.find(id);
    if (it != programs_.end()) {
      if (it->second.loaded->program->bytes() != bytes) {
        return absl::AlreadyExistsError(absl::StrCat(
            "task ", task_name_, ": another program has fingerprint ", id));
      }
      recency_.splice(recency_.begin(), recency_, it->second.recency);
      return it->second.loaded;
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
        absl::StrCat("task ", task_name_,
                     " cannot load the program: ", location,
                     location.empty() ? "" : ": ", program.status().message()));
  }
  if (absl::Status served = CheckServedKernels(**program); !served.ok()) {
    return served;
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
  auto [it, inserted] = programs_.try_emplace(id);
  if (inserted) {
    evicted_ids_.erase(id);
    it->second.loaded = std::move(loaded);
    recency_.push_front(id);
    it->second.recency = recency_.begin();
    program_bytes_ += static_cast<int64_t>(bytes.size());
  } else {
    recency_.splice(recency_.begin(), recency_, it->second.recency);
  }
  // The caller's copy keeps this program loaded until it lets go.
  std::shared_ptr<const LoadedProgram> found = it->second.loaded;
  EvictLocked();
  return found;
}

absl::Status WorkerService::CheckServedKernels(const Program& program) const {
  if (refused_kernels_.empty()) return absl::OkStatus();
  // Program::Load validated these bytes already.
  absl::StatusOr<bef::SbfProgram> sbf = bef::ReadSbf(program.bytes());
  if (!sbf.ok()) return sbf.status();
  for (const bef::SbfFunction& function : sbf->functions) {
    for (const bef::SbfKernel& kernel : function.kernels) {
      // absl::string_view is not std::string_view in this Abseil.
      const std::string name(sbf->kernel_names[kernel.name_index]);
      for (const WorkerOptions::RefusedKernels& refused : refused_kernels_) {
        if (!absl::StartsWith(name, refused.prefix)) continue;
        const bef::SbfLocation where = sbf->LocationAt(kernel.location_index);
        const std::string location =
            where.file.empty()
                ? std::string()
                : absl::StrCat(std::string(where.file), ":", where.line, ":",
                               where.column, ": ");
        // Region bodies are functions without a name.
        const std::string in_function =
            function.name.empty()
                ? std::string("in a region")
                : absl::StrCat("in function '", std::string(function.name),
                               "'");
        return absl::InvalidArgumentError(absl::StrCat(
            "task ", task_name_, " cannot load the program: ", location,
            "op '", name, "' ", in_function,
            " uses a kernel this task does not serve: ", refused.reason));
      }
    }
  }
  return absl::OkStatus();
}

void WorkerService::EvictLocked() {
  auto over = [this] {
    return static_cast<int64_t>(programs_.size()) > max_programs_ ||
           program_bytes_ > max_program_bytes_;
  };
  for (auto id = recency_.end(); over() && id != recency_.begin();) {
    --id;
    auto entry = programs_.find(*id);
    if (entry->second.loaded.use_count() > 1) continue;
    program_bytes_ -=
        static_cast<int64_t>(entry->second.loaded->program->bytes().size());
    programs_.erase(entry);
    evicted_ids_.insert(*id);
    id = recency_.erase(id);
    ++evicted_programs_;
  }
  over_limit_.store(over(), std::memory_order_release);
}

absl::StatusOr<std::shared_ptr<const LoadedProgram>> WorkerService::Find(
    uint64_t id, bool* evicted) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = programs_.find(id);
  if (it == programs_.end()) {
    *evicted = evicted_ids_.count(id) != 0;
    // Retryable: registering the program again and repeating the call
    // succeeds.
    if (*evicted) {
      return MarkFailureClass(
          absl::FailedPreconditionError(absl::StrCat(
              "task ", task_name_, " evicted program ", id,
              " to keep within its limits (", max_programs_, " programs, ",
              max_program_bytes_, " bytes): register the program again")),
          FailureClass::kRetryable);
    }
    // FailedPrecondition, not NotFound: the caller's registration is stale
    // (this process never saw it, or evicted it), and the client registers
    // the program again on this code.
    return MarkFailureClass(absl::FailedPreconditionError(absl::StrCat(
                                "task ", task_name_, " has no program with id ",
                                id, ": register the program first")),
                            FailureClass::kRetryable);
  }
  recency_.splice(recency_.begin(), recency_, it->second.recency);
  return it->second.loaded;
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
    // Checked against the kept value's type once it is looked up.
    if (request.arguments(i).has_resource()) continue;
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

absl::Status WorkerService::CheckKeepResultsAs(
    const proto::FunctionSignature& signature,
    const proto::ExecuteRequest& request) const {
  const auto& ids = request.keep_results_as();
  if (ids.empty()) return absl::OkStatus();
  if (ids.size() != signature.result_types_size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "function '", signature.name(), "' on task ", task_name_, " returns ",
        signature.result_types_size(), " result(s), keep_results_as names ",
        ids.size(), " id(s)"));
  }
  std::unordered_set<uint64_t> seen;
  for (uint64_t id : ids) {
    if (!seen.insert(id).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "keep_results_as of a call of function '", signature.name(),
          "' on task ", task_name_, " names id ", id, " twice"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Resource> WorkerService::ResolveResource(
    const proto::ResourceRef& ref, int index,
    const proto::FunctionSignature& signature) const {
  std::optional<Resource> resource = resources_.Find(ref.id());
  if (!resource.has_value()) {
    return MarkRetryable(
        absl::FailedPreconditionError(absl::StrCat(
            "task ", task_name_, " holds no resource ", ref.id(),
            " for argument ", index, " of function '", signature.name(),
            "' (it restarted or the resource was released)")),
        task_name_, incarnation_);
  }
  const std::string& expected = signature.argument_types(index);
  if (resource->type != expected) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument ", index, " of function '", signature.name(), "' on task ",
        task_name_, " must be ", expected, ", the call passed resource ",
        ref.id(), " of type ", resource->type));
  }
  return *std::move(resource);
}

grpc::Status WorkerService::EncodeResults(
    absl::Span<const RCReference<AsyncValue>> results,
    const proto::ExecuteRequest& request,
    proto::ExecuteResponse* response) const {
  for (const RCReference<AsyncValue>& result : results) {
    proto::Value* value = response->add_results();
    absl::Status encoded = EncodeValue(*result, value);
    if (!encoded.ok()) return AnswerError(encoded);
    if (value->has_error() && value->error().task().empty()) {
      value->mutable_error()->set_task(task_name_);
      value->mutable_error()->set_incarnation(incarnation_);
    }
  }
  int64_t limit = max_message_bytes_;
  if (request.max_response_bytes() > 0) {
    limit = std::min(limit, request.max_response_bytes());
  }
  absl::Status fits =
      CheckMessageSize(response->ByteSizeLong(), limit,
                       absl::StrCat("the answer of '", request.function(),
                                    "' on task ", task_name_),
                       response->results(), "result");
  if (!fits.ok()) {
    // What was encoded is not sent; let it go now.
    response->Clear();
    return AnswerError(fits);
  }
  return grpc::Status::OK;
}

// One Execute RPC. The handler checks the request on gRPC's thread and
// hands the execution to the service's executor; the reactor answers once
// every result is available. The execution's RequestContext is cancelled
// when the caller cancels the RPC (OnCancel) or when the call's deadline
// passes (its own timer, which does not wait for gRPC to notice), which
// stops the kernels not yet started and the loops at their next iteration.
class WorkerService::Execution final : public grpc::ServerUnaryReactor {
 public:
  Execution(WorkerService* service, const proto::ExecuteRequest* request,
            proto::ExecuteResponse* response, std::string client)
      : service_(service),
        request_(request),
        response_(response),
        client_(std::move(client)) {}

  // Answers `status` at once: the request was refused before it started.
  void Refuse(const absl::Status& status) {
    Finish(service_->AnswerError(status));
  }

  // Starts the execution of `function` of `program` on the executor.
  // The execution was admitted (AdmitExecution) for its client.
  void Start(std::shared_ptr<const LoadedProgram> program,
             const Function* function,
             const proto::FunctionSignature* signature,
             std::optional<absl::Time> deadline) {
    if (service_->client_work_ledger_ != nullptr) {
      account_ = service_->client_work_ledger_->AccountOf(client_);
    }
    program_ = std::move(program);
    function_ = function;
    signature_ = signature;
    {
      std::lock_guard<std::mutex> lock(mu_);
      context_ = RequestContext::Create(service_->host_, deadline);
      context_->set_observers(service_->observers_);
    }
    service_->executor_.Add([this] { Run(); });
  }

  void OnCancel() override {
    RCReference<RequestContext> context;
    {
      // Start() may still be making the context on gRPC's other thread.
      std::lock_guard<std::mutex> lock(mu_);
      cancelled_ = true;
      if (context_) context = context_.CopyRef();
    }
    if (context) context->Cancel(Cancellation());
  }

  void OnDone() override { delete this; }

 private:
  absl::Status Cancellation() const {
    return absl::CancelledError(
        absl::StrCat("execution on task ", service_->task_name_,
                     " cancelled by its caller or its deadline"));
  }

  void Run() {
    // What the call's kernels queue on the host runs for its client.
    ClientWorkLedger::ScopedClient running_for(account_);
    if (absl::Status fault = SLUICE_FAULT_POINT("worker.call.begin");
        !fault.ok()) {
      Done(service_->AnswerError(fault));
      return;
    }
    std::vector<RCReference<AsyncValue>> arguments;
    std::vector<AsyncValue*> pointers;
    arguments.reserve(request_->arguments_size());
    pointers.reserve(request_->arguments_size());
    for (const proto::Value& argument : request_->arguments()) {
      if (argument.has_resource()) {
        absl::StatusOr<Resource> resource = service_->ResolveResource(
            argument.resource(), pointers.size(), *signature_);
        if (!resource.ok()) {
          Done(service_->AnswerError(resource.status()));
          return;
        }
        // Its program stays until the call ends, even if it is released
        // meanwhile.
        argument_owners_.push_back(std::move(resource->owner));
        pointers.push_back(resource->value.get());
        arguments.push_back(std::move(resource->value));
        continue;
      }
      arguments.push_back(DecodeValue(argument, service_->task_name_,
                                      service_->host_->allocator()));
      if (arguments.back()->IsError()) {
        // A malformed tensor: the call is refused, as for a wrong type.
        Done(service_->AnswerError(WithMessagePrefix(
            arguments.back()->GetError(),
            absl::StrCat("argument ", pointers.size(), " of function '",
                         request_->function(), "' on task ",
                         service_->task_name_, ": "))));
        return;
      }
      pointers.push_back(arguments.back().get());
    }
    RCReference<RequestContext> context;
    {
      std::lock_guard<std::mutex> lock(mu_);
      context = context_.CopyRef();
      // A cancellation that came before the context existed.
      if (cancelled_) context->Cancel(Cancellation());
    }
    Tracer* tracer = service_->observers_ != nullptr
                         ? service_->observers_->tracer
                         : nullptr;
    const int64_t start_ns = tracer != nullptr ? TraceNowNanos() : 0;
    results_ = CallFunction(*function_, ExecutionContext(std::move(context)),
                            pointers);
    if (tracer != nullptr) TraceExecution(*tracer, start_ns);
    arguments.clear();
    RunWhenReady(results_, [this] { Answer(); });
  }

  // A span for the call's synchronous part, which the caller's flow arrow
  // (if the caller traces too) ends at, a microsecond inside its start:
  // viewers read times to a quarter of a microsecond.
  void TraceExecution(Tracer& tracer, int64_t start_ns) const {
    const int64_t end_ns = std::max(TraceNowNanos(), start_ns + 2000);
    tracer.AddSpan(absl::StrCat("execution of '", request_->function(), "'"),
                   "remote_execution", start_ns, end_ns,
                   {{"function", request_->function()}});
    if (request_->trace_flow_id() != 0) {
      tracer.AddFlowEnd("remote call", request_->trace_flow_id(),
                        start_ns + 1000);
    }
  }

  void Answer() {
    absl::Status fault = SLUICE_FAULT_POINT("worker.call.end");
    if (!fault.ok()) {
      Done(service_->AnswerError(fault));
      return;
    }
    KeepResults();
    // The call's deadline stopped the function: the caller's transport
    // ends the call at that deadline too, and this answer says the same,
    // instead of racing it with results this side's timer cut short (which
    // would reach the caller without saying which call timed out).
    if (StoppedByDeadline()) {
      Done(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                        "deadline exceeded"));
      return;
    }
    Done(service_->EncodeResults(results_, *request_, response_));
  }

  bool StoppedByDeadline() const {
    const AsyncValue* cancel = context_->GetCancelAsyncValue();
    return cancel != nullptr &&
           cancel->GetError().code() == absl::StatusCode::kDeadlineExceeded;
  }

  // Keeps each result the caller asked to keep, answering a chain in its
  // place; an error is answered, and what was kept under its id is dropped
  // so that no later call gets a value older than the caller expects.
  void KeepResults() {
    const auto& ids = request_->keep_results_as();
    for (int i = 0; i < ids.size(); ++i) {
      if (results_[i]->IsError()) {
        service_->resources_.Release({ids[i]});
        continue;
      }
      service_->resources_.Keep(ids[i],
                                Resource{program_, std::move(results_[i]),
                                         signature_->result_types(i)});
      results_[i] = MakeReadyChain().ReleaseRCRef();
    }
  }

  // Ends the execution with `status`.
  void Done(const grpc::Status& status) {
    // The values and the program are let go now, not when gRPC is done with
    // the call. The context stays: OnCancel() may still run on a gRPC
    // thread until OnDone().
    results_.clear();
    argument_owners_.clear();
    program_.reset();
    service_->TrimPrograms();
    service_->EndExecution(context_->IsCancelled(), client_);
    Finish(status);
  }

  WorkerService* const service_;
  const proto::ExecuteRequest* const request_;
  proto::ExecuteResponse* const response_;
  const std::string client_;  // see ClientOf
  std::shared_ptr<ClientWorkLedger::Account> account_;  // null: no ledger
  std::shared_ptr<const LoadedProgram> program_;
  const Function* function_ = nullptr;
  const proto::FunctionSignature* signature_ = nullptr;  // in program_
  // The programs of the kept values passed as arguments.
  std::vector<std::shared_ptr<const void>> argument_owners_;
  std::mutex mu_;
  RCReference<RequestContext> context_;  // set once, under mu_
  bool cancelled_ = false;               // guarded by mu_
  std::vector<RCReference<AsyncValue>> results_;
};

grpc::ServerUnaryReactor* WorkerService::Execute(
    grpc::CallbackServerContext* context, const proto::ExecuteRequest* request,
    proto::ExecuteResponse* response) {
  // Its own reactor even for refusals: a call's answer must not depend on
  // which path it took, and the common path needs OnCancel.
  const std::string client = ClientOf(context->peer());
  auto* execution = new Execution(this, request, response, client);
  if (shutting_down_.load()) {
    execution->Refuse(
        MarkFailureClass(absl::UnavailableError(absl::StrCat(
                             "task ", task_name_, " is shutting down")),
                         FailureClass::kRetryable));
    return execution;
  }
  bool evicted = false;
  absl::StatusOr<std::shared_ptr<const LoadedProgram>> program =
      Find(request->program_id(), &evicted);
  if (!program.ok()) {
    if (evicted) context->AddTrailingMetadata(kEvictedProgramKey, "1");
    execution->Refuse(program.status());
    return execution;
  }
  auto signature = (*program)->signatures.find(request->function());
  if (signature == (*program)->signatures.end()) {
    std::vector<std::string> names;
    for (const auto& entry : (*program)->signatures) {
      names.push_back(entry.first);
    }
    std::sort(names.begin(), names.end());
    execution->Refuse(absl::NotFoundError(absl::StrCat(
        "task ", task_name_, " has no function '", request->function(),
        "' in program ", request->program_id(), "; it has ",
        absl::StrJoin(names, ", "))));
    return execution;
  }
  absl::Status checked = CheckArguments(*signature->second, *request);
  if (checked.ok()) checked = CheckKeepResultsAs(*signature->second, *request);
  if (!checked.ok()) {
    execution->Refuse(checked);
    return execution;
  }
  std::optional<absl::Time> deadline;
  if (context->deadline() != std::chrono::system_clock::time_point::max()) {
    deadline = absl::FromChrono(context->deadline());
  }
  if (absl::Status admitted = AdmitExecution(client, request->function());
      !admitted.ok()) {
    execution->Refuse(admitted);
    return execution;
  }
  const Function* function =
      (*program)->program->GetFunction(request->function());
  execution->Start(*std::move(program), function, signature->second, deadline);
  return execution;
}

absl::Status WorkerService::AdmitExecution(const std::string& client,
                                           const std::string& function) {
  // A client whose blocking share is full is not refused: its blocking
  // tasks wait in its own queue (ClientWorkLedger), which leaves the pool
  // to the others. Its calls are bounded, as each holds memory.
  std::lock_guard<std::mutex> lock(executions_mu_);
  int& running = executions_per_client_[client];
  if (running >= max_executions_per_client_) {
    // Retryable: the client's own earlier calls hold the share, and free
    // it as they end.
    return MarkRetryable(
        absl::ResourceExhaustedError(absl::StrCat(
            "task ", task_name_, " refuses a call of '", function,
            "' from client ", client, ": it runs ", running,
            " calls here already, the most one client may "
            "(max_client_executions=", max_executions_per_client_, ")")),
        task_name_);
  }
  ++running;
  ++active_executions_;
  return absl::OkStatus();
}

}  // namespace

class WorkerServer::Impl {
 public:
  Impl(HostContext* host, WorkerOptions options)
      : options_(std::move(options)), service_(host, options_) {}

  WorkerOptions options_;
  WorkerService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::once_flag shutdown_once_;
};

absl::StatusOr<std::unique_ptr<WorkerServer>> WorkerServer::Start(
    HostContext* host, WorkerOptions options) {
  absl::Status valid = ValidateAddress(options.address);
  if (!valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("task ", options.task_name, " cannot listen on '",
                     options.address, "': ", valid.message()));
  }
  if (absl::Status allowed = CheckListenAddress(
          options.address, absl::StrCat("task ", options.task_name));
      !allowed.ok()) {
    return allowed;
  }
  auto impl = std::make_unique<Impl>(host, std::move(options));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(impl->options_.address, NewServerCredentials(),
                           &impl->port_);
  builder.SetMaxReceiveMessageSize(impl->options_.max_message_bytes);
  builder.SetMaxSendMessageSize(impl->options_.max_message_bytes);
  AddLivenessArguments(&builder, impl->options_.liveness_timeout);
  builder.RegisterService(&impl->service_);
  for (grpc::Service* service : impl->options_.services) {
    builder.RegisterService(service);
  }
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
