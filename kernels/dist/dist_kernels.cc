// The tfrt_dist kernels (docs/tfrt_dist.md). Each starts one RPC through the
// host's DistributedContext and returns at once; its results are
// placeholders of a copied AsyncKernelFrame, set when the task answers. All
// three are strict: a handle or function that is an error never reaches
// them, and an argument that failed is never sent.
//
// Errors these kernels make (no cluster, an unknown task, a task that is
// down or does not answer) go through the frame's ReportError, so they name
// the kernel and its location and are reported once as diagnostics. Errors
// a task's own kernels made arrive as values that already say where they
// come from, and are passed on as they are.
#include "sluice/kernels/dist_kernels.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "kernels/dist/coordinator_kernels.h"
#include "kernels/dist/distributed_context.h"
#include "kernels/dist/failure_policy.h"
#include "kernels/dist/remote_results.h"
#include "kernels/dist/variable_kernels.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/error_util.h"

namespace sluice {
namespace dist_kernels {
namespace {

DistributedContext& GetDistributedContext(HostContext* host) {
  return host->GetOrCreateSharedContext<DistributedContext>();
}

// Whether a task's answer to the status RPC says it is `expected`: the
// cluster spec and the task may disagree about which task listens where.
bool IsSameTask(std::string_view expected, std::string_view reported) {
  absl::StatusOr<std::pair<std::string, int>> a = dist::ParseTaskName(expected);
  absl::StatusOr<std::pair<std::string, int>> b = dist::ParseTaskName(reported);
  return a.ok() && b.ok() && *a == *b;
}

// The client of `task_name` in the host's cluster, or nullptr after
// reporting why there is none (no cluster, an unknown task).
dist::TaskClient* FindTask(KernelFrame* frame, std::string_view task_name) {
  absl::StatusOr<dist::ClusterClient*> cluster =
      GetDistributedContext(frame->host()).GetClusterClient();
  if (!cluster.ok()) {
    frame->ReportError(cluster.status());
    return nullptr;
  }
  absl::StatusOr<dist::TaskClient*> task = (*cluster)->GetTask(task_name);
  if (!task.ok()) {
    frame->ReportError(task.status());
    return nullptr;
  }
  return *task;
}

// --- tfrt_dist.get_task_handle -----------------------------------------------

void GetTaskHandle(StringAttribute task_name, KernelFrame* frame) {
  dist::TaskClient* client = FindTask(frame, task_name);
  if (client == nullptr) return;
  AsyncValueRef<dist::TaskStatus> status =
      client->GetStatus(std::nullopt, frame->exec_ctx().request_context());
  AsyncValueRef<Chain> done =
      GetDistributedContext(frame->host()).BeginOperation();
  AsyncKernelFrame async(frame);
  status.AndThen([frame = async, status = status.CopyRef(), client,
                  done = std::move(done)]() mutable {
    if (status.IsError()) {
      frame.ReportError(status.GetError());
    } else if (!IsSameTask(client->task_name(), status->task_name)) {
      frame.ReportError(absl::FailedPreconditionError(
          absl::StrCat("task ", client->task_name(), " at ", client->address(),
                       " answers as ", status->task_name,
                       ": the cluster spec and the workers disagree")));
    } else if (!status->serving) {
      frame.ReportError(
          MarkRetryable(absl::UnavailableError(absl::StrCat(
                            "task ", client->task_name(), " is shutting down")),
                        client->task_name(), status->incarnation));
    } else {
      frame.EmplaceResultAt<dist::TaskHandle>(0, dist::TaskHandle{client});
    }
    done.emplace();
  });
}

// --- tfrt_dist.register_function ---------------------------------------------

void RegisterFunction(const dist::TaskHandle& task,
                      RemainingFunctions functions, KernelFrame* frame) {
  if (functions.size() != 1) {
    frame->ReportError(absl::InvalidArgumentError(absl::StrCat(
        "tfrt_dist.register_function needs one callee function, got ",
        functions.size())));
    return;
  }
  const Function& callee = *functions[0];
  absl::Span<const uint8_t> program = callee.program_bytes();
  if (program.empty()) {
    frame->ReportError(absl::FailedPreconditionError(absl::StrCat(
        "function '", callee.name(),
        "' belongs to no loaded program, so it cannot be sent to task ",
        task.client->task_name())));
    return;
  }
  AsyncValueRef<dist::RemoteProgram> registered =
      task.client->RegisterProgram(program);
  AsyncValueRef<Chain> done =
      GetDistributedContext(frame->host()).BeginOperation();
  AsyncKernelFrame async(frame);
  registered.AndThen([frame = async, registered = registered.CopyRef(),
                      name = callee.name(), done = std::move(done)]() mutable {
    if (registered.IsError()) {
      frame.ReportError(
          WithMessagePrefix(registered.GetError(),
                            absl::StrCat("cannot register '", name, "': ")));
    } else if (absl::StatusOr<dist::RemoteFunction> function =
                   registered->GetFunction(name);
               !function.ok()) {
      frame.ReportError(function.status());
    } else {
      frame.EmplaceResultAt<dist::RemoteFunction>(0, *std::move(function));
    }
    done.emplace();
  });
}

// --- tfrt_dist.call ----------------------------------------------------------

// Runs the call under `policy`: each attempt is a new call to the task,
// and the frame's results wait for the last one (or the fallback).
void CallWithPolicy(const FailurePolicy& policy, dist::TaskClient* task,
                    const dist::CallOptions& options,
                    RemainingArguments arguments, KernelFrame* frame) {
  // The function is the payload of the frame's first argument: holding
  // that value keeps it alive across attempts, as the arguments' do theirs.
  RCReference<AsyncValue> function_value = FormRef(frame->GetArgAt(0));
  std::vector<RCReference<AsyncValue>> kept;
  kept.reserve(arguments.size());
  for (AsyncValue* argument : arguments.values()) {
    kept.push_back(FormRef(argument));
  }
  std::vector<AsyncValue*> raw(arguments.values().begin(),
                               arguments.values().end());
  RequestContext* request = frame->exec_ctx().request_context();
  auto start = [task, options, request, raw = std::move(raw),
                function_value = std::move(function_value)]() {
    return task->Call(function_value->get<dist::RemoteFunction>(), raw, request,
                      options);
  };
  AsyncValueRef<Chain> done =
      GetDistributedContext(frame->host()).BeginOperation();
  AsyncKernelFrame async(frame);
  RunWithFailurePolicy(
      policy, frame->exec_ctx(), std::move(start), std::move(kept),
      // A copy, not a move: copying detaches the frame from the kernel's.
      [frame = async, done = std::move(done)](
          std::vector<RCReference<AsyncValue>> results) mutable {
        SetAnsweredResults(frame, std::move(results));
        done.emplace();
      });
}

void Call(const dist::RemoteFunction& function, RemainingArguments arguments,
          OptionalAttribute<int64_t> deadline_ms,
          OptionalAggregateAttribute on_failure, KernelFrame* frame) {
  // The compiler checks these only when it can see the registration; a
  // function passed in from elsewhere is checked here, before anything is
  // sent.
  if (arguments.size() != function.argument_types.size()) {
    frame->ReportError(absl::InvalidArgumentError(absl::StrCat(
        "'", function.name, "' on task ", function.task_name, " takes ",
        function.argument_types.size(), " argument(s), tfrt_dist.call passes ",
        arguments.size())));
    return;
  }
  if (frame->GetNumResults() != function.result_types.size()) {
    frame->ReportError(absl::InvalidArgumentError(absl::StrCat(
        "'", function.name, "' on task ", function.task_name, " returns ",
        function.result_types.size(), " result(s), tfrt_dist.call has ",
        frame->GetNumResults())));
    return;
  }
  dist::TaskClient* task = FindTask(frame, function.task_name);
  if (task == nullptr) return;

  dist::CallOptions options;
  if (deadline_ms) options.deadline = absl::Milliseconds(*deadline_ms);
  if (on_failure) {
    // The fallback, if any, is the one function the op names.
    absl::StatusOr<FailurePolicy> policy = ReadFailurePolicy(
        *on_failure,
        frame->GetNumFunctions() > 0 ? frame->GetFunctionAt(0) : nullptr);
    if (!policy.ok()) {
      frame->ReportError(policy.status());
      return;
    }
    CallWithPolicy(*policy, task, options, arguments, frame);
    return;
  }
  std::vector<RCReference<AsyncValue>> results =
      task->Call(function, arguments.values(),
                 frame->exec_ctx().request_context(), options);
  SetResultsWhenAnswered(frame, std::move(results));
}

}  // namespace
}  // namespace dist_kernels

absl::Status RegisterDistKernels(KernelRegistry* registry) {
  if (absl::Status variables = RegisterVariableKernels(registry);
      !variables.ok()) {
    return variables;
  }
  if (absl::Status coordinator = RegisterCoordinatorKernels(registry);
      !coordinator.ok()) {
    return coordinator;
  }
  return registry->AddKernels({
      {"tfrt_dist.get_task_handle", SLUICE_KERNEL(dist_kernels::GetTaskHandle)
                                        .WithAttributeNames({"task_name"})},
      {"tfrt_dist.register_function",
       SLUICE_KERNEL(dist_kernels::RegisterFunction)},
      {"tfrt_dist.call",
       SLUICE_KERNEL(dist_kernels::Call)
           .WithAttributeNames({"deadline_ms", "on_failure"})},
  });
}

}  // namespace sluice
