#include "lib/coordinator/worker_agent.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/resource_ref.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"

namespace sluice::dist::internal {
namespace {

// The job of the task an error names, or "" when it names none.
std::string JobOf(const absl::Status& status) {
  absl::StatusOr<std::pair<std::string, int>> task =
      ParseTaskName(GetErrorContext(status).task);
  return task.ok() ? task->first : "";
}

}  // namespace

WorkerAgent::WorkerAgent(CoordinatorState* state, size_t index,
                         TaskClient* task)
    : state_(state), index_(index), task_(task) {}

WorkerAgent::~WorkerAgent() { Join(); }

void WorkerAgent::Start() {
  thread_ = std::thread([this] { Run(); });
}

void WorkerAgent::Join() {
  if (thread_.joinable()) thread_.join();
}

void WorkerAgent::Run() {
  while (!state_->stopping()) {
    if (!healthy_) {
      Probe();
      continue;
    }
    if (!BuildResources()) continue;
    std::shared_ptr<Closure> closure = state_->Take(resources_built_);
    if (closure != nullptr) RunClosure(std::move(closure));
  }
}

void WorkerAgent::Probe() {
  const absl::Time start = absl::Now();
  AsyncValueRef<TaskStatus> status =
      task_->GetStatus(state_->options().probe_deadline);
  state_->host()->Await(status.CopyRCRef());
  if (status.IsError() || !status->serving) {
    state_->SetHealthy(index_, false,
                       status.IsError()
                           ? status.GetError()
                           : absl::UnavailableError("it is shutting down"));
    state_->CheckRecovery();
    state_->SleepUnlessStopping(state_->options().probe_interval -
                                (absl::Now() - start));
    return;
  }
  if (status->incarnation != incarnation_) {
    // A new process: nothing this agent built or registered there is left.
    incarnation_ = status->incarnation;
    resources_built_ = 0;
    resource_errors_.clear();
    functions_.clear();
  }
  healthy_ = true;
  state_->SetHealthy(index_, true, absl::OkStatus());
}

bool WorkerAgent::BuildResources() {
  while (resources_built_ < state_->num_resources()) {
    ResourceSpec resource = state_->GetResource(resources_built_);
    auto results =
        Call(resource.function, resource.arguments, resource.ids[index_]);
    absl::Status why;
    Outcome outcome = Judge(results, &why);
    if (outcome != Outcome::kSucceeded &&
        HandleFailure(
            outcome, why,
            absl::StrCat("resource '", resource.function.name(), "'"))) {
      return false;
    }
    state_->Count(&CoordinatorStats::resource_builds);
    resource_errors_.push_back(why);
    ++resources_built_;
  }
  return true;
}

void WorkerAgent::RunClosure(std::shared_ptr<Closure> closure) {
  for (const ClosureArgument& argument : closure->arguments) {
    if (argument.kind() != ClosureArgument::Kind::kResource) continue;
    const absl::Status& error = resource_errors_[argument.resource_index()];
    if (!error.ok()) {
      // Recorded before the closure counts as finished, so that a Join
      // that sees it finished also sees its error.
      if (!closure->Handles(error)) state_->RecordError(error);
      state_->Fail(*closure, error);
      return;
    }
  }
  state_->Count(&CoordinatorStats::attempts);
  auto results = Call(closure->function, closure->arguments, {});
  absl::Status why;
  Outcome outcome = Judge(results, &why);
  if (outcome == Outcome::kWorkerFailed &&
      HandleFailure(outcome, why,
                    absl::StrCat("closure '", closure->function.name(), "'"))) {
    state_->Requeue(std::move(closure));
    return;
  }
  if (outcome == Outcome::kJobFailed) {
    HandleFailure(outcome, why, closure->function.name());
    state_->Fail(*closure, why);
    return;
  }
  // Before finishing the closure, as above.
  if (outcome == Outcome::kFailed && !closure->Handles(why)) {
    state_->RecordError(why);
  }
  if (!results.ok()) {
    state_->Fail(*closure, results.status());
  } else {
    state_->Finish(*closure, *std::move(results));
  }
}

absl::StatusOr<std::vector<RCReference<AsyncValue>>> WorkerAgent::Call(
    const ClosureFunction& function,
    const std::vector<ClosureArgument>& arguments,
    std::vector<uint64_t> keep_results_as) {
  absl::StatusOr<RemoteFunction> remote = FunctionOn(function);
  if (!remote.ok()) return remote.status();

  std::vector<RCReference<AsyncValue>> values;
  for (const ClosureArgument& argument : arguments) {
    switch (argument.kind()) {
      case ClosureArgument::Kind::kValue:
        values.push_back(argument.value().CopyRef());
        break;
      case ClosureArgument::Kind::kResource:
        values.push_back(MakeAvailableAsyncValueRef<ResourceRef>(
                             ResourceRef{state_->ResourceId(
                                 argument.resource_index(), index_,
                                 argument.resource_result())})
                             .CopyRCRef());
        break;
      case ClosureArgument::Kind::kWorkerIndex:
        values.push_back(
            MakeAvailableAsyncValueRef<int32_t>(static_cast<int32_t>(index_))
                .CopyRCRef());
        break;
    }
  }
  std::vector<AsyncValue*> pointers;
  for (const auto& value : values) pointers.push_back(value.get());

  RCReference<RequestContext> request = RequestContext::Create(state_->host());
  state_->SetRunning(index_, request.CopyRef());
  CallOptions options;
  options.deadline = state_->options().closure_deadline;
  options.keep_results_as = std::move(keep_results_as);
  std::vector<RCReference<AsyncValue>> results =
      task_->Call(*remote, pointers, request.get(), options);
  state_->host()->Await(results);
  state_->SetRunning(index_, RCReference<RequestContext>());
  return results;
}

absl::StatusOr<RemoteFunction> WorkerAgent::FunctionOn(
    const ClosureFunction& function) {
  auto key = std::make_pair(function.program().get(), function.name());
  if (auto it = functions_.find(key); it != functions_.end()) {
    return it->second;
  }
  AsyncValueRef<RemoteProgram> program =
      task_->RegisterProgram(*function.program());
  state_->host()->Await(program.CopyRCRef());
  if (program.IsError()) return program.GetError();
  absl::StatusOr<RemoteFunction> remote = program->GetFunction(function.name());
  if (remote.ok()) functions_.emplace(key, *remote);
  return remote;
}

Outcome WorkerAgent::Judge(
    const absl::StatusOr<std::vector<RCReference<AsyncValue>>>& results,
    absl::Status* why) const {
  std::vector<absl::Status> errors;
  if (!results.ok()) {
    errors.push_back(results.status());
  } else {
    for (const auto& value : *results) {
      if (value->IsError()) errors.push_back(value->GetError());
    }
  }
  if (errors.empty()) return Outcome::kSucceeded;

  // The gravest failure among the results decides: a parameter server's,
  // then the worker's, then the function's own.
  const std::string& ps_job = state_->options().ps_job;
  for (const absl::Status& error : errors) {
    if (Classify(error) == FailureClass::kRetryable && JobOf(error) == ps_job) {
      *why = error;
      return Outcome::kJobFailed;
    }
  }
  for (const absl::Status& error : errors) {
    FailureClass failure_class = Classify(error);
    // A worker that shuts down cancels its calls; only Stop cancels ours.
    if (failure_class == FailureClass::kRetryable ||
        failure_class == FailureClass::kStale ||
        (failure_class == FailureClass::kCancelled && !state_->stopping())) {
      *why = error;
      return Outcome::kWorkerFailed;
    }
  }
  *why = errors.front();
  return Outcome::kFailed;
}

bool WorkerAgent::HandleFailure(Outcome outcome, const absl::Status& why,
                                std::string_view what) {
  switch (outcome) {
    case Outcome::kWorkerFailed:
      healthy_ = false;
      functions_.clear();
      state_->SetHealthy(index_, false, why);
      return true;
    case Outcome::kJobFailed:
      state_->FailJob(MarkFailureClass(
          WithMessagePrefix(
              why,
              absl::StrCat(std::string(what), " on ", task_->task_name(),
                           ": parameter server ", GetErrorContext(why).task,
                           " failed; the job must restart from its "
                           "last checkpoint: ")),
          FailureClass::kRetryable));
      return false;
    case Outcome::kSucceeded:
    case Outcome::kFailed:
      return false;
  }
  return false;
}

}  // namespace sluice::dist::internal
