#include "sluice/distributed/remote_client.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/grpcpp.h"
#include "lib/distributed/grpc_status.h"
#include "lib/distributed/program_fingerprint.h"
#include "lib/distributed/remote_call_trace.h"
#include "lib/distributed/rpc_channel.h"
#include "lib/distributed/task_outage.h"
#include "lib/distributed/value_codec.h"
#include "lib/distributed/wait_reporter.h"
#include "lib/distributed/worker_service.grpc.pb.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"

namespace sluice::dist {

absl::StatusOr<RemoteFunction> RemoteProgram::GetFunction(
    std::string_view name) const {
  std::vector<std::string> names;
  for (const RemoteFunction& function : functions) {
    if (function.name == name) return function;
    names.push_back(function.name);
  }
  return absl::NotFoundError(absl::StrCat(
      "program ", program_id, " on task ", task_name, " has no function '",
      std::string(name), "'; it has ", absl::StrJoin(names, ", ")));
}

namespace internal {

// The channel to one worker task.
class TaskChannel final : public RpcChannel<proto::Worker> {
 public:
  using RpcChannel::RpcChannel;
};

// The programs registered on one task, and which process of the task they
// were registered with; and the task's outage, which its calls' failures
// share.
struct ProgramCache {
  TaskOutage outage;
  std::mutex mu;
  uint64_t incarnation = 0;  // 0 until a status answer tells
  std::map<uint64_t, AsyncValueRef<RemoteProgram>> programs;
  // The bytes of every program registered through this client, kept across
  // restarts of the task: a worker that evicted one (to keep within its
  // limits) gets it again when a call names it.
  std::map<uint64_t, std::shared_ptr<const std::string>> bytes;

  uint64_t Incarnation() {
    std::lock_guard<std::mutex> lock(mu);
    return incarnation;
  }

  std::shared_ptr<const std::string> BytesOf(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = bytes.find(id);
    return it == bytes.end() ? nullptr : it->second;
  }

  // A status answer came from process `incarnation` of the task.
  void Saw(uint64_t new_incarnation) {
    std::lock_guard<std::mutex> lock(mu);
    if (incarnation != 0 && new_incarnation != incarnation) programs.clear();
    incarnation = new_incarnation;
  }
  // The task has no program `id` (it restarted since it was registered).
  void Forget(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu);
    programs.erase(id);
  }
};

// The error of `call`, which ended with `status`, linked to the outage of
// `task` when the transport ended it.
template <typename Call>
absl::Status CallFailure(Call& call, const grpc::Status& status,
                         ProgramCache& task) {
  return task.outage.Link(
      status, RpcFailure(status, call.CancelledHere(), call.task_name,
                         task.Incarnation(), call.what, call.timeout));
}

struct CallOutputs {
  std::vector<RCReference<IndirectAsyncValue>> results;
  // Where the tensors among the results get their buffers.
  HostAllocator* allocator = nullptr;
  std::shared_ptr<ProgramCache> programs;
  // Tells a cancelled call from a failed one when the answer comes.
  RCReference<RequestContext> request;
  // Set when the request is observed; reset once the call is answered.
  std::unique_ptr<RemoteCallTrace> trace;
};

struct ExecuteCall
    : PendingRpc<proto::ExecuteRequest, proto::ExecuteResponse, CallOutputs> {
  // How many more times the program may be registered again for this call
  // after the worker evicted it. A few, not one: on a worker that thrashes
  // past its limits another registration may evict it again in between.
  int registrations_left = 3;
};

struct NoOutputs {};
using RegistrationAgain = PendingRpc<proto::RegisterProgramRequest,
                                     proto::RegisterProgramResponse, NoOutputs>;

}  // namespace internal

using internal::CallOutputs;
using internal::ExecuteCall;
using internal::Launch;
using internal::PendingRpc;
using internal::RegistrationAgain;
using internal::RpcFailure;
using internal::TaskChannel;
using internal::TaskFailure;

TaskClient::TaskClient(std::string task_name, std::string address,
                       RpcOptions options, HostContext* host)
    : task_name_(std::move(task_name)),
      address_(std::move(address)),
      options_(options),
      host_(host),
      channel_(std::make_unique<TaskChannel>(address_, options_)),
      programs_(std::make_shared<internal::ProgramCache>()),
      waiting_(
          options_.on_waiting == nullptr
              ? nullptr
              : std::make_shared<internal::WaitReporter>(
                    task_name_, address_, options_.on_waiting,
                    [channel = channel_.get()] { return channel->State(); })) {}

TaskClient::~TaskClient() {
  // The reporter may outlive the channel, in the RPCs' last references.
  if (waiting_ != nullptr) waiting_->ForgetChannel();
  channel_.reset();
}

AsyncValueRef<TaskStatus> TaskClient::GetStatus(
    std::optional<absl::Duration> deadline, RequestContext* request) {
  struct StatusOutputs {
    AsyncValueRef<TaskStatus> status;
    RCReference<RequestContext> request;
  };
  using Call = PendingRpc<proto::GetStatusRequest, proto::GetStatusResponse,
                          StatusOutputs>;
  auto call = std::make_shared<Call>();
  call->outputs.status = MakeUnconstructedAsyncValueRef<TaskStatus>();
  if (request != nullptr) call->outputs.request = FormRef(request);
  call->task_name = task_name_;
  call->what = "status request";
  call->waits = waiting_;
  call->timeout = deadline.value_or(options_.deadline);
  AsyncValueRef<TaskStatus> result = call->outputs.status.CopyRef();
  Launch(
      channel_.get(), host_, call,
      WaitsForReady(options_.fail_fast, RpcKind::kSessionStart),
      [](auto* stub, auto&&... args) { stub->GetStatus(args...); },
      [programs = programs_](Call& call, const grpc::Status& status) {
        const RCReference<RequestContext> request =
            std::move(call.outputs.request);
        if (!status.ok()) {
          call.outputs.status.SetError(
              request && request->IsCancelled()
                  ? request->GetCancelAsyncValue()->GetError()
                  : CallFailure(call, status, *programs));
          return;
        }
        programs->outage.Answered();
        const proto::GetStatusResponse& response = call.response;
        TaskStatus task_status;
        task_status.task_name = response.task_name();
        task_status.serving =
            response.health() == proto::GetStatusResponse::SERVING;
        task_status.active_executions = response.active_executions();
        task_status.cancelled_executions = response.cancelled_executions();
        task_status.registered_programs = response.registered_programs();
        task_status.evicted_programs = response.evicted_programs();
        task_status.incarnation = response.incarnation();
        task_status.resources = response.resources();
        programs->Saw(response.incarnation());
        call.outputs.status.emplace(std::move(task_status));
      });
  // A session start waits for its task until the deadline; a cancelled
  // request does not.
  if (request != nullptr) CancelWithRequest(request, call);
  return result;
}

AsyncValueRef<RemoteProgram> TaskClient::RegisterProgram(
    absl::Span<const uint8_t> program) {
  const uint64_t fingerprint = ProgramFingerprint(program);
  AsyncValueRef<RemoteProgram> result;
  {
    std::lock_guard<std::mutex> lock(programs_->mu);
    auto cached = programs_->programs.find(fingerprint);
    // A failed registration (the task was down) is tried again.
    if (cached != programs_->programs.end() && !cached->second.IsError()) {
      return cached->second.CopyRef();
    }
    result = MakeUnconstructedAsyncValueRef<RemoteProgram>();
    programs_->programs[fingerprint] = result.CopyRef();
    std::shared_ptr<const std::string>& kept = programs_->bytes[fingerprint];
    if (kept == nullptr) {
      kept = std::make_shared<const std::string>(
          reinterpret_cast<const char*>(program.data()), program.size());
    }
  }

  using Call =
      PendingRpc<proto::RegisterProgramRequest, proto::RegisterProgramResponse,
                 AsyncValueRef<RemoteProgram>>;
  auto call = std::make_shared<Call>();
  call->outputs = result.CopyRef();
  call->task_name = task_name_;
  call->what = "registering a program";
  call->waits = waiting_;
  call->request.set_program(program.data(), program.size());
  call->timeout = options_.deadline;
  Launch(
      channel_.get(), host_, call,
      WaitsForReady(options_.fail_fast, RpcKind::kExecution),
      [](auto* stub, auto&&... args) { stub->RegisterProgram(args...); },
      [programs = programs_](Call& call, const grpc::Status& status) {
        if (!status.ok()) {
          call.outputs.SetError(CallFailure(call, status, *programs));
          return;
        }
        programs->outage.Answered();
        RemoteProgram registered;
        registered.task_name = call.task_name;
        registered.program_id = call.response.program_id();
        for (const proto::FunctionSignature& signature :
             call.response.functions()) {
          RemoteFunction function;
          function.task_name = call.task_name;
          function.program_id = registered.program_id;
          function.name = signature.name();
          function.argument_types.assign(signature.argument_types().begin(),
                                         signature.argument_types().end());
          function.result_types.assign(signature.result_types().begin(),
                                       signature.result_types().end());
          registered.functions.push_back(std::move(function));
        }
        call.outputs.emplace(std::move(registered));
      });
  return result;
}

namespace {

void SetAll(absl::Span<const RCReference<IndirectAsyncValue>> results,
            const absl::Status& error) {
  for (const auto& result : results) {
    result->ForwardTo(MakeErrorAsyncValueRef(error));
  }
}

void ResolveCall(ExecuteCall& call, const grpc::Status& status) {
  CallOutputs& outputs = call.outputs;
  // The call is answered: it leaves the in-flight records before its
  // results wake anyone who might list them.
  outputs.trace.reset();
  if (!status.ok()) {
    if (status.error_code() == grpc::StatusCode::CANCELLED && outputs.request &&
        outputs.request->IsCancelled()) {
      SetAll(outputs.results,
             outputs.request->GetCancelAsyncValue()->GetError());
    } else {
      if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
        outputs.programs->Forget(call.request.program_id());
      }
      SetAll(outputs.results, CallFailure(call, status, *outputs.programs));
    }
  } else if (static_cast<size_t>(call.response.results_size()) !=
             outputs.results.size()) {
    SetAll(outputs.results,
           absl::InternalError(absl::StrCat(
               call.what, " on task ", call.task_name, " returned ",
               call.response.results_size(), " result(s), ",
               outputs.results.size(), " expected")));
  } else {
    outputs.programs->outage.Answered();
    for (size_t i = 0; i < outputs.results.size(); ++i) {
      const proto::Value& wire = call.response.results(i);
      RCReference<AsyncValue> value =
          DecodeValue(wire, call.task_name, outputs.allocator);
      if (value->IsError() && !wire.has_error()) {
        // A malformed value, not an error the task sent: say whose.
        value = MakeErrorAsyncValueRef(TaskFailure(
            WithMessagePrefix(value->GetError(),
                              absl::StrCat("result ", i, ": ")),
            call.task_name, outputs.programs->Incarnation(), call.what));
      }
      outputs.results[i]->ForwardTo(std::move(value));
    }
  }
  // The values are the caller's now, and the request may go. Nothing of
  // them stays with the call: gRPC's thread may drop its last reference
  // after the client and its host are gone, and a tensor's buffer must go
  // back to the host's allocator while that still lives.
  outputs.results.clear();
  outputs.request.reset();
}

void LaunchExecute(TaskChannel* channel, HostContext* host, bool wait_for_ready,
                   const std::shared_ptr<ExecuteCall>& call);

// When the worker refused `call` because it evicted the program, registers
// the program again and then repeats the call (which never started), so
// that eviction is invisible to the caller. Runs on gRPC's thread while the
// refused call is still in flight, which keeps the channel from closing
// before the registration is in flight in turn. Returns whether it took the
// call over.
bool RegisterAgainAndRepeat(TaskChannel* channel, HostContext* host,
                            bool wait_for_ready,
                            const std::shared_ptr<ExecuteCall>& call,
                            const grpc::Status& status) {
  if (status.error_code() != grpc::StatusCode::FAILED_PRECONDITION ||
      call->registrations_left == 0) {
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(call->mu);
    if (call->context == nullptr) return false;
    const auto& trailers = call->context->GetServerTrailingMetadata();
    if (trailers.find(kEvictedProgramKey) == trailers.end()) return false;
  }
  std::shared_ptr<const std::string> bytes =
      call->outputs.programs->BytesOf(call->request.program_id());
  if (bytes == nullptr) return false;

  // A new call, because the refused one's context is gone once its
  // completion returns; it keeps the first one's deadline.
  auto repeat = std::make_shared<ExecuteCall>();
  repeat->request.Swap(&call->request);
  repeat->outputs = std::move(call->outputs);
  repeat->task_name = call->task_name;
  repeat->what = call->what;
  repeat->waits = call->waits;
  repeat->timeout = call->timeout;
  repeat->deadline = call->deadline;
  repeat->registrations_left = call->registrations_left - 1;

  auto registration = std::make_shared<RegistrationAgain>();
  registration->request.set_program(*bytes);
  registration->task_name = call->task_name;
  registration->what = "registering a program";
  registration->waits = call->waits;
  registration->timeout = call->timeout;
  registration->deadline = call->deadline;
  Launch(
      channel, host, registration, wait_for_ready,
      [](auto* stub, auto&&... args) { stub->RegisterProgram(args...); },
      // The call fails with the registration's error.
      [repeat](RegistrationAgain& registration, const grpc::Status& failed) {
        if (registration.CancelledHere()) repeat->TryCancel();
        ResolveCall(*repeat, failed);
      },
      [channel, host, wait_for_ready, repeat](
          const std::shared_ptr<RegistrationAgain>&,
          const grpc::Status& registered) {
        if (!registered.ok()) return false;
        LaunchExecute(channel, host, wait_for_ready, repeat);
        return true;
      });
  return true;
}

// Sends `call` and has a cancellation of its request cancel it.
void LaunchExecute(TaskChannel* channel, HostContext* host, bool wait_for_ready,
                   const std::shared_ptr<ExecuteCall>& call) {
  // The answer may come, and drop outputs.request, before Launch returns.
  RCReference<RequestContext> request = call->outputs.request
                                            ? call->outputs.request.CopyRef()
                                            : RCReference<RequestContext>();
  Launch(
      channel, host, call, wait_for_ready,
      [](auto* stub, auto&&... args) { stub->Execute(args...); }, ResolveCall,
      [channel, host, wait_for_ready](const std::shared_ptr<ExecuteCall>& call,
                                      const grpc::Status& status) {
        return RegisterAgainAndRepeat(channel, host, wait_for_ready, call,
                                      status);
      });
  // Cancelling the request cancels the RPC, which cancels the execution on
  // the worker.
  if (request) CancelWithRequest(request.get(), call);
}

}  // namespace

std::vector<RCReference<AsyncValue>> TaskClient::Call(
    const RemoteFunction& function, absl::Span<AsyncValue* const> arguments,
    RequestContext* request, const CallOptions& options) {
  auto call = std::make_shared<ExecuteCall>();
  std::vector<RCReference<AsyncValue>> results;
  for (size_t i = 0; i < function.result_types.size(); ++i) {
    call->outputs.results.push_back(MakeIndirectAsyncValue());
    results.push_back(call->outputs.results.back().CopyRef());
  }
  if (request != nullptr) call->outputs.request = FormRef(request);
  call->outputs.allocator = host_->allocator();
  call->outputs.programs = programs_;
  call->task_name = task_name_;
  call->what = absl::StrCat("remote call of '", function.name, "'");
  call->waits = waiting_;
  call->timeout = options.deadline.value_or(options_.deadline);
  call->request.set_program_id(function.program_id);
  call->request.set_function(function.name);
  call->request.set_max_response_bytes(options_.max_message_bytes);
  for (uint64_t id : options.keep_results_as) {
    call->request.add_keep_results_as(id);
  }
  call->outputs.trace = internal::RemoteCallTrace::Begin(
      request, task_name_, function.name, &call->request);

  std::vector<RCReference<AsyncValue>> held;
  held.reserve(arguments.size());
  for (AsyncValue* argument : arguments) held.push_back(FormRef(argument));
  RunWhenReady(arguments,
               [this, call, held = std::move(held)]() { Send(call, held); });
  return results;
}

void TaskClient::Send(const std::shared_ptr<ExecuteCall>& call,
                      absl::Span<const RCReference<AsyncValue>> arguments) {
  CallOutputs& outputs = call->outputs;
  for (const RCReference<AsyncValue>& argument : arguments) {
    if (argument->IsError()) {
      SetAll(outputs.results, argument->GetError());
      return;
    }
  }
  if (outputs.request && outputs.request->IsCancelled()) {
    SetAll(outputs.results, outputs.request->GetCancelAsyncValue()->GetError());
    return;
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    absl::Status encoded =
        EncodeValue(*arguments[i], call->request.add_arguments());
    if (!encoded.ok()) {
      SetAll(outputs.results, absl::InvalidArgumentError(absl::StrCat(
                                  call->what, " on task ", task_name_,
                                  ": argument ", i, ": ", encoded.message())));
      return;
    }
  }
  // Checked here, where the error can say which argument is large, rather
  // than by gRPC, whose refusal names neither the call nor its arguments.
  absl::Status fits =
      CheckMessageSize(call->request.ByteSizeLong(), options_.max_message_bytes,
                       "the request", call->request.arguments(), "argument");
  if (!fits.ok()) {
    SetAll(outputs.results,
           absl::Status(fits.code(),
                        absl::StrCat(call->what, " on task ", task_name_, ": ",
                                     fits.message())));
    return;
  }
  if (absl::Status fault = SLUICE_FAULT_POINT("client.call.send");
      !fault.ok()) {
    SetAll(outputs.results, TaskFailure(fault, task_name_,
                                        programs_->Incarnation(), call->what));
    return;
  }
  if (outputs.trace) outputs.trace->Sent();
  LaunchExecute(channel_.get(), host_,
                WaitsForReady(options_.fail_fast, RpcKind::kExecution), call);
}

AsyncValueRef<Chain> TaskClient::ReleaseResources(std::vector<uint64_t> ids) {
  using Call =
      PendingRpc<proto::ReleaseResourcesRequest,
                 proto::ReleaseResourcesResponse, AsyncValueRef<Chain>>;
  auto call = std::make_shared<Call>();
  call->outputs = MakeUnconstructedAsyncValueRef<Chain>();
  call->task_name = task_name_;
  call->what = "releasing resources";
  call->waits = waiting_;
  call->timeout = options_.deadline;
  for (uint64_t id : ids) call->request.add_ids(id);
  AsyncValueRef<Chain> result = call->outputs.CopyRef();
  Launch(
      channel_.get(), host_, call,
      WaitsForReady(options_.fail_fast, RpcKind::kExecution),
      [](auto* stub, auto&&... args) { stub->ReleaseResources(args...); },
      [programs = programs_](Call& call, const grpc::Status& status) {
        if (!status.ok()) {
          call.outputs.SetError(CallFailure(call, status, *programs));
          return;
        }
        programs->outage.Answered();
        call.outputs.emplace();
      });
  return result;
}

ClusterClient::ClusterClient(ClusterSpec spec, RpcOptions options,
                             HostContext* host)
    : spec_(std::move(spec)), options_(options), host_(host) {}

ClusterClient::~ClusterClient() = default;

absl::StatusOr<TaskClient*> ClusterClient::GetTask(std::string_view task_name) {
  absl::StatusOr<std::pair<std::string, int>> parsed = ParseTaskName(task_name);
  if (!parsed.ok()) return parsed.status();
  // "/job:w/replica:0/task:1" and "/job:w/task:1" share one client.
  std::string canonical = TaskName(parsed->first, parsed->second);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tasks_.find(canonical);
  if (it != tasks_.end()) return it->second.get();
  absl::StatusOr<std::string> address = spec_.AddressOf(canonical);
  if (!address.ok()) return address.status();
  auto client = std::unique_ptr<TaskClient>(
      new TaskClient(canonical, *address, options_, host_));
  TaskClient* raw = client.get();
  tasks_.emplace(std::move(canonical), std::move(client));
  return raw;
}

AsyncValueRef<std::vector<TaskStatus>> ClusterClient::CheckAllTasks() {
  auto result = MakeUnconstructedAsyncValueRef<std::vector<TaskStatus>>();
  std::vector<RCReference<AsyncValue>> statuses;
  for (const std::string& name : spec_.TaskNames()) {
    absl::StatusOr<TaskClient*> task = GetTask(name);
    if (!task.ok()) {
      result.SetError(task.status());
      return result;
    }
    statuses.push_back((*task)->GetStatus().ReleaseRCRef());
  }
  // The span RunWhenReady reads and the vector the callback keeps must not
  // be the same moved-from object.
  std::vector<AsyncValue*> pending;
  for (const auto& status : statuses) pending.push_back(status.get());
  RunWhenReady(pending, [statuses = std::move(statuses),
                         value = result.CopyRCRef()]() mutable {
    AsyncValueRef<std::vector<TaskStatus>> result(std::move(value));
    std::vector<TaskStatus> all;
    for (const RCReference<AsyncValue>& status : statuses) {
      if (status->IsError()) {
        result.SetError(status->GetError());
        return;
      }
      all.push_back(status->get<TaskStatus>());
    }
    result.emplace(std::move(all));
  });
  return result;
}

}  // namespace sluice::dist
