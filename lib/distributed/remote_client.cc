#include "sluice/distributed/remote_client.h"

#include <chrono>
#include <condition_variable>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "grpcpp/grpcpp.h"
#include "lib/distributed/grpc_status.h"
#include "lib/distributed/program_fingerprint.h"
#include "lib/distributed/value_codec.h"
#include "lib/distributed/worker_service.grpc.pb.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"

namespace sluice::dist {
namespace {

// `cause` as the failure of `what` on `task`: its message after one that
// names both, its context and class kept, and the task (with the process
// that served it, 0 when unknown) recorded as its origin unless the cause
// names one.
absl::Status TaskFailure(const absl::Status& cause, std::string_view task,
                         uint64_t incarnation, std::string_view what) {
  ErrorContext origin;
  origin.task = std::string(task);
  origin.incarnation = incarnation;
  return AddErrorContext(
      WithMessagePrefix(cause, absl::StrCat(std::string(what), " on task ",
                                            std::string(task), " failed: ")),
      origin);
}

// The class of a failed RPC that the transport ended, not the worker:
// CANCELLED is a cancellation when this side cancelled the RPC (its request
// was cancelled, or the client is closing), and otherwise the worker going
// away in the middle of the call, as UNAVAILABLE and DEADLINE_EXCEEDED are.
FailureClass TransportFailureClass(absl::StatusCode code, bool cancelled_here) {
  if (code == absl::StatusCode::kCancelled) {
    return cancelled_here ? FailureClass::kCancelled : FailureClass::kRetryable;
  }
  return ClassOfCode(code, /*from_peer=*/true, /*has_generation=*/false);
}

// The error of a failed RPC. One the worker answered with keeps the context
// and class it sent; one the transport made (the task is down, stopped, or
// slower than the deadline) is classified by TransportFailureClass.
absl::Status RpcFailure(const grpc::Status& status, bool cancelled_here,
                        std::string_view task, uint64_t incarnation,
                        std::string_view what, absl::Duration deadline) {
  std::optional<absl::Status> answered = PeerError(status);
  if (answered) return TaskFailure(*answered, task, incarnation, what);
  const auto code = static_cast<absl::StatusCode>(status.error_code());
  std::string reason = status.error_message();
  if (code == absl::StatusCode::kDeadlineExceeded) {
    reason = absl::StrCat("no answer within ", absl::FormatDuration(deadline),
                          " (deadline exceeded)");
  }
  absl::Status made = MarkFailureClass(
      absl::Status(code, reason), TransportFailureClass(code, cancelled_here));
  return TaskFailure(made, task, incarnation, what);
}

}  // namespace

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

// The ClientContext of one RPC. It goes as soon as the RPC completes,
// while the channel is surely still alive: a ClientContext holds a
// reference to its channel, and dropping a channel's last reference on one
// of gRPC's callback threads tears down gRPC's callback queue under that
// very thread (a double free inside gRPC).
struct RpcContext {
  // When the RPC gives up; set when it is launched. A call repeated after
  // registering its program again keeps the first one's.
  absl::Time deadline = absl::InfiniteFuture();
  std::mutex mu;
  std::unique_ptr<grpc::ClientContext> context =
      std::make_unique<grpc::ClientContext>();

  // Whether this side cancelled the RPC; guarded by mu.
  bool cancelled_here = false;

  void TryCancel() {
    std::lock_guard<std::mutex> lock(mu);
    cancelled_here = true;
    if (context != nullptr) context->TryCancel();
  }
  bool CancelledHere() {
    std::lock_guard<std::mutex> lock(mu);
    return cancelled_here;
  }
};

// One unary RPC: its context, messages, and the values its answer resolves.
// Owned by a shared_ptr: gRPC's completion callback (a copyable
// std::function), the task that resolves the values on the host, and a
// cancellation callback may all hold it. It names no TaskClient, so a
// resolution that runs late touches nothing the client owns.
template <typename Request, typename Response, typename Outputs>
struct PendingRpc : RpcContext {
  Request request;
  Response response;
  Outputs outputs;
  std::string task_name;
  absl::Duration timeout;
};

// The channel to one task, and the RPCs in flight on it. The destructor
// cancels what is still running and waits for it: gRPC calls back on its
// own threads, and nothing may call back into a destroyed client.
// Completion callbacks reach the channel by plain pointer, never through
// the TaskClient, whose unique_ptr to it is already null while this waits.
class TaskChannel {
 public:
  TaskChannel(const std::string& address, const RpcOptions& options) {
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(options.max_message_bytes);
    arguments.SetMaxSendMessageSize(options.max_message_bytes);
    // A task that comes up late is found within ~0.5 s, not gRPC's
    // default backoff of up to two minutes.
    // (Not GRPC_ARG_MIN_RECONNECT_BACKOFF_MS: gRPC takes it as the connect
    // timeout too, and would fail a handshake slower than that.)
    arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
    channel_ = grpc::CreateCustomChannel(
        address, grpc::InsecureChannelCredentials(), arguments);
    stub_ = proto::Worker::NewStub(channel_);
  }

  ~TaskChannel() {
    std::unique_lock<std::mutex> lock(mu_);
    closing_ = true;
    for (RpcContext* rpc : in_flight_) rpc->TryCancel();
    idle_.wait(lock, [this] { return in_flight_.empty(); });
  }

  proto::Worker::Stub::async_interface* async() { return stub_->async(); }

  // Brackets one RPC; Begin returns false once the client is closing.
  bool Begin(RpcContext* rpc) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closing_) return false;
    in_flight_.insert(rpc);
    return true;
  }
  // Called from the completion callback: drops the RPC's ClientContext.
  void End(RpcContext* rpc) {
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_.erase(rpc);
    {
      std::lock_guard<std::mutex> context_lock(rpc->mu);
      rpc->context.reset();
    }
    if (in_flight_.empty()) idle_.notify_all();
  }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<proto::Worker::Stub> stub_;
  std::mutex mu_;
  std::condition_variable idle_;
  std::set<RpcContext*> in_flight_;
  bool closing_ = false;
};

// The programs registered on one task, and which process of the task they
// were registered with.
struct ProgramCache {
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

struct CallOutputs {
  std::vector<RCReference<IndirectAsyncValue>> results;
  std::shared_ptr<ProgramCache> programs;
  // Tells a cancelled call from a failed one when the answer comes.
  RCReference<RequestContext> request;
  std::string what;  // "remote call of 'f'"
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

// Starts `call` with `start(stub, context, request, response, callback)`
// and has `resolve(call, status)` run on `host` when it completes, unless
// `take_over(call, status)`, which runs first on gRPC's thread while the
// call's context is still there, returns true: it has then seen to the
// outputs.
template <typename Call, typename Start, typename Resolve, typename TakeOver>
void Launch(TaskChannel* channel, HostContext* host,
            const std::shared_ptr<Call>& call, bool wait_for_ready, Start start,
            Resolve resolve, TakeOver take_over) {
  if (call->deadline == absl::InfiniteFuture()) {
    call->deadline = absl::Now() + call->timeout;
  }
  call->context->set_deadline(absl::ToChronoTime(call->deadline));
  call->context->set_wait_for_ready(wait_for_ready);
  if (!channel->Begin(call.get())) {
    call->TryCancel();
    resolve(*call, grpc::Status(grpc::StatusCode::CANCELLED,
                                "the client is shutting down"));
    return;
  }
  start(channel->async(), call->context.get(), &call->request, &call->response,
        [channel, host, call, resolve, take_over](grpc::Status status) {
          // Resolved on the host's queue, so that the kernels waiting for
          // the answer run there and not on gRPC's threads. The queue
          // outlives the client: a client is destroyed before its host,
          // or, as a shared object, before the host's queue.
          if (!take_over(call, status)) {
            host->EnqueueWork(
                [call, status, resolve] { resolve(*call, status); });
          }
          channel->End(call.get());
        });
}

template <typename Call, typename Start, typename Resolve>
void Launch(TaskChannel* channel, HostContext* host,
            const std::shared_ptr<Call>& call, bool wait_for_ready, Start start,
            Resolve resolve) {
  Launch(
      channel, host, call, wait_for_ready, start, resolve,
      [](const std::shared_ptr<Call>&, const grpc::Status&) { return false; });
}

}  // namespace internal

using internal::CallOutputs;
using internal::ExecuteCall;
using internal::Launch;
using internal::PendingRpc;
using internal::RegistrationAgain;
using internal::TaskChannel;

TaskClient::TaskClient(std::string task_name, std::string address,
                       RpcOptions options, HostContext* host)
    : task_name_(std::move(task_name)),
      address_(std::move(address)),
      options_(options),
      host_(host),
      channel_(std::make_unique<TaskChannel>(address_, options_)),
      programs_(std::make_shared<internal::ProgramCache>()) {}

TaskClient::~TaskClient() { channel_.reset(); }

AsyncValueRef<TaskStatus> TaskClient::GetStatus(
    std::optional<absl::Duration> deadline) {
  using Call = PendingRpc<proto::GetStatusRequest, proto::GetStatusResponse,
                          AsyncValueRef<TaskStatus>>;
  auto call = std::make_shared<Call>();
  call->outputs = MakeUnconstructedAsyncValueRef<TaskStatus>();
  call->task_name = task_name_;
  call->timeout = deadline.value_or(options_.deadline);
  AsyncValueRef<TaskStatus> result = call->outputs.CopyRef();
  Launch(
      channel_.get(), host_, call,
      WaitsForReady(options_.fail_fast, RpcKind::kSessionStart),
      [](auto* stub, auto&&... args) { stub->GetStatus(args...); },
      [programs = programs_](Call& call, const grpc::Status& status) {
        if (!status.ok()) {
          call.outputs.SetError(RpcFailure(
              status, call.CancelledHere(), call.task_name,
              programs->Incarnation(), "status request", call.timeout));
          return;
        }
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
        programs->Saw(response.incarnation());
        call.outputs.emplace(std::move(task_status));
      });
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
  call->request.set_program(program.data(), program.size());
  call->timeout = options_.deadline;
  Launch(
      channel_.get(), host_, call,
      WaitsForReady(options_.fail_fast, RpcKind::kExecution),
      [](auto* stub, auto&&... args) { stub->RegisterProgram(args...); },
      [programs = programs_](Call& call, const grpc::Status& status) {
        if (!status.ok()) {
          call.outputs.SetError(RpcFailure(
              status, call.CancelledHere(), call.task_name,
              programs->Incarnation(), "registering a program", call.timeout));
          return;
        }
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
  if (!status.ok()) {
    if (status.error_code() == grpc::StatusCode::CANCELLED && outputs.request &&
        outputs.request->IsCancelled()) {
      SetAll(outputs.results,
             outputs.request->GetCancelAsyncValue()->GetError());
    } else {
      if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
        outputs.programs->Forget(call.request.program_id());
      }
      SetAll(outputs.results,
             RpcFailure(status, call.CancelledHere(), call.task_name,
                        outputs.programs->Incarnation(), outputs.what,
                        call.timeout));
    }
  } else if (static_cast<size_t>(call.response.results_size()) !=
             outputs.results.size()) {
    SetAll(outputs.results,
           absl::InternalError(absl::StrCat(
               outputs.what, " on task ", call.task_name, " returned ",
               call.response.results_size(), " result(s), ",
               outputs.results.size(), " expected")));
  } else {
    for (size_t i = 0; i < outputs.results.size(); ++i) {
      outputs.results[i]->ForwardTo(
          DecodeValue(call.response.results(i), call.task_name));
    }
  }
  // The answer's values now live in the results; the request may go.
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
  repeat->timeout = call->timeout;
  repeat->deadline = call->deadline;
  repeat->registrations_left = call->registrations_left - 1;

  auto registration = std::make_shared<RegistrationAgain>();
  registration->request.set_program(*bytes);
  registration->task_name = call->task_name;
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
  if (request) {
    // Cancelling the request cancels the RPC, which cancels the execution
    // on the worker. The weak reference lets the call go once answered,
    // however long the request lives.
    request->OnCancel(
        [weak = std::weak_ptr<ExecuteCall>(call)](const absl::Status&) {
          if (std::shared_ptr<ExecuteCall> live = weak.lock()) {
            live->TryCancel();
          }
        });
  }
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
  call->outputs.programs = programs_;
  call->outputs.what = absl::StrCat("remote call of '", function.name, "'");
  call->task_name = task_name_;
  call->timeout = options.deadline.value_or(options_.deadline);
  call->request.set_program_id(function.program_id);
  call->request.set_function(function.name);

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
                                  outputs.what, " on task ", task_name_,
                                  ": argument ", i, ": ", encoded.message())));
      return;
    }
  }
  if (absl::Status fault = SLUICE_FAULT_POINT("client.call.send");
      !fault.ok()) {
    SetAll(
        outputs.results,
        TaskFailure(fault, task_name_, programs_->Incarnation(), outputs.what));
    return;
  }
  LaunchExecute(channel_.get(), host_,
                WaitsForReady(options_.fail_fast, RpcKind::kExecution), call);
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
