#include "sluice/coordinator/coordinator.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/coordinator/coordinator_state.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/support/failure.h"

namespace sluice::dist {
namespace {

// Checks that `arguments` fit `function`: their number, and the type of
// each whose type the coordinator knows.
absl::Status CheckArguments(const ClosureFunction& function,
                            const std::vector<ClosureArgument>& arguments,
                            const internal::CoordinatorState& state,
                            bool allow_resources) {
  const std::vector<std::string>& types = function.argument_types();
  if (arguments.size() != types.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", function.name(), "' takes ", types.size(),
                     " arguments, but ", arguments.size(), " were given"));
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    const ClosureArgument& argument = arguments[i];
    auto mismatch = [&](std::string_view given) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " of function '", function.name(), "' is ",
          std::string(given), ", but the function takes ", types[i]));
    };
    switch (argument.kind()) {
      case ClosureArgument::Kind::kValue:
        if (argument.value() == nullptr) return mismatch("a null value");
        break;
      case ClosureArgument::Kind::kWorkerIndex:
        if (types[i] != "i32") return mismatch("the worker index (i32)");
        break;
      case ClosureArgument::Kind::kResource: {
        if (!allow_resources) {
          return absl::InvalidArgumentError(absl::StrCat(
              "argument ", i, " of resource function '", function.name(),
              "' is a per-worker resource; a resource's function takes "
              "values and the worker index only"));
        }
        if (argument.resource_index() >= state.num_resources()) {
          return mismatch("an unknown per-worker resource");
        }
        internal::ResourceSpec resource =
            state.GetResource(argument.resource_index());
        const std::vector<std::string>& results =
            resource.function.result_types();
        if (argument.resource_result() >= results.size()) {
          return mismatch(absl::StrCat("result ", argument.resource_result(),
                                       " of per-worker resource '",
                                       resource.function.name(),
                                       "', which has ", results.size()));
        }
        if (results[argument.resource_result()] != types[i]) {
          return mismatch(
              absl::StrCat("per-worker resource '", resource.function.name(),
                           "' (", results[argument.resource_result()], ")"));
        }
        break;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

int ExitCodeFor(const absl::Status& status) {
  if (status.ok()) return 0;
  return Classify(status) == FailureClass::kRetryable ? kRestartableExitCode
                                                      : 1;
}

absl::StatusOr<std::unique_ptr<Coordinator>> Coordinator::Create(
    ClusterSpec spec, HostContext* host, CoordinatorOptions options) {
  auto job = spec.jobs().find(options.worker_job);
  if (job == spec.jobs().end() || job->second.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the cluster has no task in the worker job '",
                     options.worker_job, "'"));
  }
  if (host->work_queue().GetParallelismLevel() < 2) {
    return absl::InvalidArgumentError(
        "the coordinator needs a host with a multi-threaded work queue");
  }
  std::vector<std::string> workers;
  for (size_t i = 0; i < job->second.size(); ++i) {
    workers.push_back(TaskName(options.worker_job, static_cast<int>(i)));
  }
  auto state = std::make_shared<internal::CoordinatorState>(
      std::move(spec), host, std::move(options), std::move(workers));
  state->Start();
  return std::unique_ptr<Coordinator>(new Coordinator(std::move(state)));
}

Coordinator::Coordinator(std::shared_ptr<internal::CoordinatorState> state)
    : state_(std::move(state)) {}

Coordinator::~Coordinator() { state_->Stop(); }

const std::vector<std::string>& Coordinator::workers() const {
  return state_->workers();
}
const CoordinatorOptions& Coordinator::options() const {
  return state_->options();
}
HostContext* Coordinator::host() const { return state_->host(); }
VariableClient& Coordinator::variables() { return state_->variables(); }
CoordinatorStats Coordinator::stats() const { return state_->stats(); }

absl::StatusOr<std::vector<RCReference<AsyncValue>>> Coordinator::Schedule(
    const ClosureFunction& function, std::vector<ClosureArgument> arguments,
    const std::vector<FailureClass>& handled_classes) {
  if (absl::Status checked = CheckArguments(function, arguments, *state_,
                                            /*allow_resources=*/true);
      !checked.ok()) {
    return checked;
  }
  auto closure = std::make_shared<internal::Closure>();
  closure->function = function;
  closure->arguments = std::move(arguments);
  closure->handled_classes = handled_classes;
  if (absl::Status admitted = state_->Admit(*closure); !admitted.ok()) {
    return admitted;
  }
  std::vector<RCReference<AsyncValue>> results;
  for (size_t i = 0; i < function.result_types().size(); ++i) {
    closure->results.push_back(MakeIndirectAsyncValue());
    results.push_back(closure->results.back().CopyRef());
  }

  std::vector<AsyncValue*> inputs;
  for (const ClosureArgument& argument : closure->arguments) {
    if (argument.kind() == ClosureArgument::Kind::kValue) {
      inputs.push_back(argument.value().get());
    }
  }
  std::weak_ptr<internal::CoordinatorState> weak_state = state_;
  RunWhenReady(inputs, [weak_state, closure] {
    std::shared_ptr<internal::CoordinatorState> state = weak_state.lock();
    for (const ClosureArgument& argument : closure->arguments) {
      if (argument.kind() == ClosureArgument::Kind::kValue &&
          argument.value()->IsError()) {
        // As a kernel with an error input: no run, the error as results.
        if (state != nullptr) {
          state->Fail(*closure, argument.value()->GetError());
        }
        return;
      }
    }
    if (state == nullptr) {
      for (auto& result : closure->results) {
        result->ForwardTo(MakeErrorAsyncValueRef(
            absl::CancelledError("the coordinator was destroyed")));
      }
      return;
    }
    state->Enqueue(closure);
  });
  return results;
}

absl::StatusOr<std::vector<RCReference<AsyncValue>>> Coordinator::Schedule(
    const ClosureFunction& function, std::vector<ClosureArgument> arguments) {
  return Schedule(function, std::move(arguments), {});
}

Coordinator::JoinHold::JoinHold(
    std::shared_ptr<internal::CoordinatorState> state)
    : state_(std::move(state)) {
  state_->Hold();
}

Coordinator::JoinHold::~JoinHold() {
  if (state_ != nullptr) state_->ReleaseHold();
}

Coordinator::JoinHold Coordinator::HoldJoin() { return JoinHold(state_); }

absl::Status Coordinator::Join() { return state_->Join(); }

bool Coordinator::Done() const { return state_->Done(); }

absl::Status Coordinator::Fetch(
    absl::Span<const RCReference<AsyncValue>> values) {
  state_->host()->Await(values);
  for (const auto& value : values) {
    if (value->IsError()) return value->GetError();
  }
  return absl::OkStatus();
}

absl::StatusOr<PerWorkerResource> Coordinator::CreatePerWorkerResource(
    const ClosureFunction& function, std::vector<ClosureArgument> arguments) {
  if (absl::Status checked = CheckArguments(function, arguments, *state_,
                                            /*allow_resources=*/false);
      !checked.ok()) {
    return checked;
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    const ClosureArgument& argument = arguments[i];
    if (argument.kind() != ClosureArgument::Kind::kValue) continue;
    if (!argument.value()->IsAvailable()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " of resource function '", function.name(),
          "' is not available yet; a resource is rebuilt from its "
          "arguments whenever a worker restarts, so they must be known"));
    }
    if (argument.value()->IsError()) return argument.value()->GetError();
  }
  internal::ResourceSpec resource;
  resource.function = function;
  resource.arguments = std::move(arguments);
  for (size_t worker = 0; worker < state_->workers().size(); ++worker) {
    std::vector<uint64_t> ids;
    for (size_t i = 0; i < function.result_types().size(); ++i) {
      ids.push_back(state_->NewResourceId());
    }
    resource.ids.push_back(std::move(ids));
  }
  size_t index = state_->AddResource(std::move(resource));
  return PerWorkerResource(index, function.name(),
                           function.result_types().size());
}

absl::StatusOr<PerWorkerResource> Coordinator::CreatePerWorkerDataset(
    const ClosureFunction& function, std::vector<ClosureArgument> arguments) {
  if (function.result_types().size() != 1 ||
      function.result_types()[0] != kIteratorTypeName) {
    return absl::InvalidArgumentError(
        absl::StrCat("dataset function '", function.name(),
                     "' must return one ", kIteratorTypeName, ", but returns (",
                     absl::StrJoin(function.result_types(), ", "), ")"));
  }
  return CreatePerWorkerResource(function, std::move(arguments));
}

}  // namespace sluice::dist
