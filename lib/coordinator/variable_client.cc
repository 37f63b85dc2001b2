#include <functional>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "lib/coordinator/variable_service.grpc.pb.h"
#include "lib/distributed/rpc_channel.h"
#include "lib/distributed/tensor_codec.h"
#include "sluice/coordinator/variables.h"
#include "sluice/host_context/run_when_ready.h"

namespace sluice::dist {
namespace internal {

// The channel to one task's Variables service.
class VariableChannel final : public RpcChannel<proto::Variables> {
 public:
  VariableChannel(std::string task, const std::string& address,
                  const RpcOptions& options)
      : RpcChannel(address, options), task_(std::move(task)) {}
  const std::string& task() const { return task_; }

 private:
  const std::string task_;
};

}  // namespace internal

using internal::Launch;
using internal::PendingRpc;
using internal::RpcFailure;
using internal::VariableChannel;

namespace {

std::vector<std::string> TasksOfJob(const ClusterSpec& spec,
                                    std::string_view job) {
  std::vector<std::string> tasks;
  auto it = spec.jobs().find(std::string(job));
  if (it == spec.jobs().end()) return tasks;
  for (size_t i = 0; i < it->second.size(); ++i) {
    tasks.push_back(TaskName(job, static_cast<int>(i)));
  }
  return tasks;
}

// A name in a message: escaped and cut short when it is no valid name.
std::string Quoted(std::string_view name) { return QuotedVariableName(name); }

// One Variables RPC whose answer resolves an AsyncValueRef<T>: `answer`
// turns the response into a T (or an error).
template <typename T, typename Request, typename Response>
struct VariableRpcOutputs {
  AsyncValueRef<T> result;
  std::string what;  // "reading variable 'w'"
  std::function<absl::StatusOr<T>(Response&)> answer;
};

template <typename T, typename Request, typename Response>
using VariableRpc =
    PendingRpc<Request, Response, VariableRpcOutputs<T, Request, Response>>;

// Sends `request` with `start(stub, context, request, response, callback)`;
// the returned value resolves to `answer(response)` or to the failure.
template <typename T, typename Request, typename Response, typename Start>
AsyncValueRef<T> Issue(VariableChannel* channel, HostContext* host,
                       const RpcOptions& options, RpcKind kind,
                       std::string what, Request request, Start start,
                       std::function<absl::StatusOr<T>(Response&)> answer) {
  using Call = VariableRpc<T, Request, Response>;
  auto call = std::make_shared<Call>();
  call->outputs.result = MakeUnconstructedAsyncValueRef<T>();
  call->outputs.what = std::move(what);
  call->outputs.answer = std::move(answer);
  call->task_name = channel->task();
  call->timeout = options.deadline;
  call->request = std::move(request);
  AsyncValueRef<T> result = call->outputs.result.CopyRef();
  const size_t bytes = call->request.ByteSizeLong();
  if (bytes > static_cast<size_t>(options.max_message_bytes)) {
    result.SetError(absl::ResourceExhaustedError(
        absl::StrCat(call->outputs.what, " on task ", call->task_name,
                     ": the request is ", bytes, " bytes, over the limit of ",
                     options.max_message_bytes, " bytes (max_message_bytes)")));
    return result;
  }
  Launch(channel, host, call, WaitsForReady(options.fail_fast, kind), start,
         [](Call& call, const grpc::Status& status) {
           VariableRpcOutputs<T, Request, Response>& outputs = call.outputs;
           // Taken from the call: gRPC's thread may drop the last reference
           // to it after the client and its host are gone, and a tensor's
           // buffer must go back to the host's allocator while that lives.
           AsyncValueRef<T> result = std::move(outputs.result);
           if (!status.ok()) {
             // A transport failure (the task is down, died, or did not
             // answer in time) is retryable; a refusal by the task (no such
             // variable, a wrong shape) keeps the class the task gave it.
             result.SetError(RpcFailure(status, call.CancelledHere(),
                                        call.task_name, /*incarnation=*/0,
                                        outputs.what, call.timeout));
             return;
           }
           absl::StatusOr<T> value = outputs.answer(call.response);
           if (!value.ok()) {
             result.SetError(absl::Status(
                 value.status().code(),
                 absl::StrCat(outputs.what, " on task ", call.task_name, ": ",
                              value.status().message())));
             return;
           }
           result.emplace(*std::move(value));
         });
  return result;
}

// An update RPC: resolves to a chain once the task has applied it.
AsyncValueRef<Chain> IssueUpdate(VariableChannel* channel, HostContext* host,
                                 const RpcOptions& options, std::string what,
                                 proto::UpdateVariableRequest request) {
  return Issue<Chain>(
      channel, host, options, RpcKind::kExecution, std::move(what),
      std::move(request),
      [](auto* stub, auto&&... args) { stub->UpdateVariable(args...); },
      std::function<absl::StatusOr<Chain>(proto::UpdateVariableResponse&)>(
          [](proto::UpdateVariableResponse&) -> absl::StatusOr<Chain> {
            return Chain();
          }));
}

template <typename T>
AsyncValueRef<T> Failed(absl::Status status) {
  AsyncValueRef<T> failed = MakeUnconstructedAsyncValueRef<T>();
  failed.SetError(std::move(status));
  return failed;
}

absl::StatusOr<VariableHandle> HandleOf(std::string task,
                                        const proto::VariableInfo& info) {
  std::optional<DType> dtype;
  if (info.dtype() < kNumDTypes) {
    dtype = DTypeFromByte(static_cast<uint8_t>(info.dtype()));
  }
  absl::StatusOr<TensorShape> shape = TensorShape::Create(
      absl::MakeConstSpan(info.dims().data(), info.dims().size()));
  if (!dtype.has_value() || !shape.ok()) {
    return absl::InternalError(absl::StrCat("variable ", Quoted(info.name()),
                                            " is listed with an unknown dtype "
                                            "or an invalid shape"));
  }
  return VariableHandle{std::move(task), info.name(), *dtype,
                        *std::move(shape)};
}

}  // namespace

PlacementPolicy::~PlacementPolicy() = default;

size_t RoundRobinPlacement::Place(std::string_view /*name*/, DType /*dtype*/,
                                  const TensorShape& /*shape*/,
                                  absl::Span<const std::string> ps_tasks) {
  return next_.fetch_add(1, std::memory_order_relaxed) % ps_tasks.size();
}

VariableClient::VariableClient(ClusterSpec spec, RpcOptions options,
                               HostContext* host,
                               VariableClientOptions client_options)
    : spec_(std::move(spec)),
      options_(options),
      host_(host),
      ps_tasks_(TasksOfJob(spec_, client_options.ps_job)),
      placement_(client_options.placement != nullptr
                     ? std::move(client_options.placement)
                     : std::make_unique<RoundRobinPlacement>()) {}

VariableClient::~VariableClient() {
  std::map<std::string, std::unique_ptr<VariableChannel>, std::less<>> closing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing.swap(channels_);
  }
  // Each channel cancels its RPCs and waits for them as it goes.
  closing.clear();
}

absl::StatusOr<VariableChannel*> VariableClient::ChannelOf(
    std::string_view task) {
  absl::StatusOr<std::pair<std::string, int>> parsed = ParseTaskName(task);
  if (!parsed.ok()) return parsed.status();
  std::string canonical = TaskName(parsed->first, parsed->second);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = channels_.find(canonical);
  if (it != channels_.end()) return it->second.get();
  absl::StatusOr<std::string> address = spec_.AddressOf(canonical);
  if (!address.ok()) return address.status();
  auto channel =
      std::make_unique<VariableChannel>(canonical, *address, options_);
  VariableChannel* raw = channel.get();
  channels_.emplace(std::move(canonical), std::move(channel));
  return raw;
}

AsyncValueRef<VariableHandle> VariableClient::Create(
    std::string name, const DenseHostTensor& initial_value) {
  // Before placement: a refused name takes no task's turn.
  if (absl::Status valid = CheckVariableName(name); !valid.ok()) {
    return Failed<VariableHandle>(absl::InvalidArgumentError(
        absl::StrCat("creating a variable: ", valid.message())));
  }
  if (ps_tasks_.empty()) {
    return Failed<VariableHandle>(absl::FailedPreconditionError(absl::StrCat(
        "cannot place variable ", Quoted(name),
        ": the cluster has no parameter-server tasks (no job of that name)")));
  }
  size_t index;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto placed = placed_.find(name);
    if (placed != placed_.end()) {
      index = placed->second;
    } else {
      index = placement_->Place(name, initial_value.dtype(),
                                initial_value.shape(), ps_tasks_);
      if (index >= ps_tasks_.size()) {
        return Failed<VariableHandle>(absl::InternalError(
            absl::StrCat("the placement policy put variable ", Quoted(name),
                         " on ps task ", index, " of ", ps_tasks_.size())));
      }
      placed_.emplace(name, index);
    }
  }
  return CreateOn(ps_tasks_[index], std::move(name), initial_value);
}

AsyncValueRef<VariableHandle> VariableClient::CreateOn(
    std::string_view task, std::string name,
    const DenseHostTensor& initial_value) {
  if (absl::Status valid = CheckVariableName(name); !valid.ok()) {
    return Failed<VariableHandle>(absl::InvalidArgumentError(
        absl::StrCat("creating a variable on task ", std::string(task), ": ",
                     valid.message())));
  }
  absl::StatusOr<VariableChannel*> channel = ChannelOf(task);
  if (!channel.ok()) return Failed<VariableHandle>(channel.status());
  std::string what = absl::StrCat("creating variable ", Quoted(name));
  proto::CreateVariableRequest request;
  request.set_name(name);
  absl::Status encoded =
      EncodeTensor(initial_value, request.mutable_initial_value());
  if (!encoded.ok()) {
    return Failed<VariableHandle>(absl::InvalidArgumentError(
        absl::StrCat(what, ": ", encoded.message())));
  }
  VariableHandle handle{(*channel)->task(), std::move(name),
                        initial_value.dtype(), initial_value.shape()};
  // The first contact with a parameter server: like a status RPC, it waits
  // for the task to come up under the use_caller policy.
  return Issue<VariableHandle>(
      *channel, host_, options_, RpcKind::kSessionStart, std::move(what),
      std::move(request),
      [](auto* stub, auto&&... args) { stub->CreateVariable(args...); },
      std::function<absl::StatusOr<VariableHandle>(
          proto::CreateVariableResponse&)>(
          [handle = std::move(handle)](proto::CreateVariableResponse&)
              -> absl::StatusOr<VariableHandle> { return handle; }));
}

AsyncValueRef<DenseHostTensor> VariableClient::Read(
    const VariableHandle& variable) {
  absl::StatusOr<VariableChannel*> channel = ChannelOf(variable.task);
  if (!channel.ok()) return Failed<DenseHostTensor>(channel.status());
  proto::ReadVariableRequest request;
  request.set_name(variable.name);
  return Issue<DenseHostTensor>(
      *channel, host_, options_, RpcKind::kExecution,
      absl::StrCat("reading variable ", Quoted(variable.name)),
      std::move(request),
      [](auto* stub, auto&&... args) { stub->ReadVariable(args...); },
      std::function<absl::StatusOr<DenseHostTensor>(
          proto::ReadVariableResponse&)>(
          [allocator =
               host_->allocator()](proto::ReadVariableResponse& response) {
            return DecodeTensor(response.value(), allocator);
          }));
}

AsyncValueRef<VariableState> VariableClient::ReadState(
    const VariableHandle& variable) {
  absl::StatusOr<VariableChannel*> channel = ChannelOf(variable.task);
  if (!channel.ok()) return Failed<VariableState>(channel.status());
  proto::ReadVariableRequest request;
  request.set_name(variable.name);
  request.set_with_optimizer_state(true);
  return Issue<VariableState>(
      *channel, host_, options_, RpcKind::kExecution,
      absl::StrCat("reading the state of variable ", Quoted(variable.name)),
      std::move(request),
      [](auto* stub, auto&&... args) { stub->ReadVariable(args...); },
      std::function<absl::StatusOr<VariableState>(
          proto::ReadVariableResponse&)>(
          [allocator =
               host_->allocator()](proto::ReadVariableResponse& response)
              -> absl::StatusOr<VariableState> {
            VariableState state;
            absl::StatusOr<DenseHostTensor> value =
                DecodeTensor(response.value(), allocator);
            if (!value.ok()) return value.status();
            state.value = *std::move(value);
            if (!response.has_adam()) return state;
            state.adam.step = response.adam().step();
            absl::StatusOr<DenseHostTensor> m =
                DecodeTensor(response.adam().m(), allocator);
            if (!m.ok()) return m.status();
            absl::StatusOr<DenseHostTensor> v =
                DecodeTensor(response.adam().v(), allocator);
            if (!v.ok()) return v.status();
            state.adam.m = *std::move(m);
            state.adam.v = *std::move(v);
            return state;
          }));
}

namespace {

// An update request of `variable` carrying `tensor` in the field
// `mutable_field(request)` selects; the update's error when the tensor
// cannot be sent.
template <typename Field>
absl::StatusOr<proto::UpdateVariableRequest> UpdateRequest(
    const VariableHandle& variable, const DenseHostTensor& tensor,
    std::string_view what, Field mutable_field) {
  proto::UpdateVariableRequest request;
  request.set_name(variable.name);
  absl::Status encoded = EncodeTensor(tensor, mutable_field(request));
  if (!encoded.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(what),
                                                   " on task ", variable.task,
                                                   ": ", encoded.message()));
  }
  return request;
}

}  // namespace

AsyncValueRef<Chain> VariableClient::Assign(const VariableHandle& variable,
                                            const DenseHostTensor& value) {
  std::string what = absl::StrCat("assigning variable ", Quoted(variable.name));
  absl::StatusOr<VariableChannel*> channel = ChannelOf(variable.task);
  if (!channel.ok()) return Failed<Chain>(channel.status());
  absl::StatusOr<proto::UpdateVariableRequest> request = UpdateRequest(
      variable, value, what, [](auto& r) { return r.mutable_assign(); });
  if (!request.ok()) return Failed<Chain>(request.status());
  return IssueUpdate(*channel, host_, options_, std::move(what),
                     *std::move(request));
}

AsyncValueRef<Chain> VariableClient::AssignAdd(const VariableHandle& variable,
                                               const DenseHostTensor& delta) {
  std::string what =
      absl::StrCat("assign-adding to variable ", Quoted(variable.name));
  absl::StatusOr<VariableChannel*> channel = ChannelOf(variable.task);
  if (!channel.ok()) return Failed<Chain>(channel.status());
  absl::StatusOr<proto::UpdateVariableRequest> request = UpdateRequest(
      variable, delta, what, [](auto& r) { return r.mutable_assign_add(); });
  if (!request.ok()) return Failed<Chain>(request.status());
  return IssueUpdate(*channel, host_, options_, std::move(what),
                     *std::move(request));
}

AsyncValueRef<Chain> VariableClient::ApplySgd(const VariableHandle& variable,
                                              const DenseHostTensor& gradient,
                                              double learning_rate) {
  std::string what =
      absl::StrCat("applying SGD to variable ", Quoted(variable.name));
  absl::StatusOr<VariableChannel*> channel = ChannelOf(variable.task);
  if (!channel.ok()) return Failed<Chain>(channel.status());
  absl::StatusOr<proto::UpdateVariableRequest> request = UpdateRequest(
      variable, gradient, what,
      [](auto& r) { return r.mutable_sgd()->mutable_gradient(); });
  if (!request.ok()) return Failed<Chain>(request.status());
  request->mutable_sgd()->set_learning_rate(learning_rate);
  return IssueUpdate(*channel, host_, options_, std::move(what),
                     *std::move(request));
}

AsyncValueRef<Chain> VariableClient::ApplyAdam(const VariableHandle& variable,
                                               const DenseHostTensor& gradient,
                                               const AdamOptions& options) {
  std::string what =
      absl::StrCat("applying Adam to variable ", Quoted(variable.name));
  absl::StatusOr<VariableChannel*> channel = ChannelOf(variable.task);
  if (!channel.ok()) return Failed<Chain>(channel.status());
  absl::StatusOr<proto::UpdateVariableRequest> request = UpdateRequest(
      variable, gradient, what,
      [](auto& r) { return r.mutable_adam()->mutable_gradient(); });
  if (!request.ok()) return Failed<Chain>(request.status());
  proto::AdamUpdate* adam = request->mutable_adam();
  adam->set_learning_rate(options.learning_rate);
  adam->set_beta1(options.beta1);
  adam->set_beta2(options.beta2);
  adam->set_epsilon(options.epsilon);
  return IssueUpdate(*channel, host_, options_, std::move(what),
                     *std::move(request));
}

AsyncValueRef<Chain> VariableClient::RestoreAdamState(
    const VariableHandle& variable, const AdamState& state) {
  std::string what = absl::StrCat("restoring the Adam state of variable ",
                                  Quoted(variable.name));
  absl::StatusOr<VariableChannel*> channel = ChannelOf(variable.task);
  if (!channel.ok()) return Failed<Chain>(channel.status());
  absl::StatusOr<proto::UpdateVariableRequest> request = UpdateRequest(
      variable, state.m, what,
      [](auto& r) { return r.mutable_set_adam_state()->mutable_m(); });
  if (!request.ok()) return Failed<Chain>(request.status());
  proto::AdamState* adam = request->mutable_set_adam_state();
  adam->set_step(state.step);
  absl::Status encoded = EncodeTensor(state.v, adam->mutable_v());
  if (!encoded.ok()) {
    return Failed<Chain>(absl::InvalidArgumentError(absl::StrCat(
        what, " on task ", variable.task, ": ", encoded.message())));
  }
  return IssueUpdate(*channel, host_, options_, std::move(what),
                     *std::move(request));
}

AsyncValueRef<std::vector<VariableHandle>> VariableClient::List(
    std::string_view task) {
  using Handles = std::vector<VariableHandle>;
  absl::StatusOr<VariableChannel*> channel = ChannelOf(task);
  if (!channel.ok()) return Failed<Handles>(channel.status());
  return Issue<Handles>(
      *channel, host_, options_, RpcKind::kExecution, "listing the variables",
      proto::ListVariablesRequest(),
      [](auto* stub, auto&&... args) { stub->ListVariables(args...); },
      std::function<absl::StatusOr<Handles>(proto::ListVariablesResponse&)>(
          [task = (*channel)->task()](proto::ListVariablesResponse& response)
              -> absl::StatusOr<Handles> {
            Handles handles;
            for (const proto::VariableInfo& info : response.variables()) {
              absl::StatusOr<VariableHandle> handle = HandleOf(task, info);
              if (!handle.ok()) return handle.status();
              handles.push_back(*std::move(handle));
            }
            return handles;
          }));
}

AsyncValueRef<std::vector<VariableHandle>> VariableClient::ListAll() {
  using Handles = std::vector<VariableHandle>;
  auto all = MakeUnconstructedAsyncValueRef<Handles>();
  std::vector<AsyncValueRef<Handles>> lists;
  std::vector<AsyncValue*> pending;
  for (const std::string& task : ps_tasks_) {
    lists.push_back(List(task));
    pending.push_back(lists.back().GetAsyncValue());
  }
  RunWhenReady(pending, [lists = std::move(lists), all = all.CopyRef()] {
    Handles handles;
    for (const AsyncValueRef<Handles>& list : lists) {
      if (list.IsError()) {
        all.SetError(list.GetError());
        return;
      }
      handles.insert(handles.end(), list->begin(), list->end());
    }
    all.emplace(std::move(handles));
  });
  return all;
}

}  // namespace sluice::dist
