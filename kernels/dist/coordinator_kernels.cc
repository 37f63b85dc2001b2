// The coordinator kernels. schedule and the per-worker ops return at once;
// join and fit wait on a thread of the host's blocking pool, never on one
// of its work queue. Failures of the op itself (no cluster, a single-threaded
// host, arguments that do not fit the function, the first error of an
// earlier closure that Schedule reports) are reported at the op, so they
// name it and its location; a closure's results carry the closure's own
// error as the worker's kernel made it.
#include "kernels/dist/coordinator_kernels.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/dist/distributed_context.h"
#include "kernels/dist/failure_policy.h"
#include "kernels/dist/remote_results.h"
#include "lib/checkpoint/data_root.h"
#include "sluice/bef/format.h"
#include "sluice/coordinator/fit.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/support/print.h"

namespace sluice {
namespace coordinator_kernels {
namespace {

// The ClosureFunction of each function the ops name, made once per
// function: copying the program and reading its signatures at every
// schedule would cost more than many closures do. Sharing one copy of the
// bytes also lets the coordinator send each program to a worker once.
class ClosureFunctions {
 public:
  absl::StatusOr<dist::ClosureFunction> Get(const Function& function) {
    absl::Span<const uint8_t> bytes = function.program_bytes();
    if (bytes.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "function '", function.name(),
          "' belongs to no loaded program, so no worker can run it"));
    }
    std::lock_guard<std::mutex> lock(mu_);
    Program& program = programs_[bytes.data()];
    // A program loaded where an unloaded one was has bytes of its own.
    if (program.bytes == nullptr ||
        !std::equal(bytes.begin(), bytes.end(), program.bytes->begin(),
                    program.bytes->end())) {
      program.bytes = std::make_shared<const std::vector<uint8_t>>(
          bytes.begin(), bytes.end());
      program.functions.clear();
    }
    auto known = program.functions.find(function.name());
    if (known != program.functions.end()) return known->second;
    absl::StatusOr<dist::ClosureFunction> made =
        dist::ClosureFunction::FromProgram(program.bytes, function.name());
    if (made.ok()) program.functions.emplace(function.name(), *made);
    return made;
  }

 private:
  struct Program {
    std::shared_ptr<const std::vector<uint8_t>> bytes;
    std::unordered_map<std::string, dist::ClosureFunction> functions;
  };
  std::mutex mu_;
  std::unordered_map<const uint8_t*, Program> programs_;
};

// The host's coordinator, or nullptr after reporting why there is none.
dist::Coordinator* GetCoordinator(KernelFrame* frame) {
  absl::StatusOr<dist::Coordinator*> coordinator =
      frame->host()
          ->GetOrCreateSharedContext<DistributedContext>()
          .GetCoordinator();
  if (!coordinator.ok()) {
    frame->ReportError(coordinator.status());
    return nullptr;
  }
  return *coordinator;
}

// The function the op names, with one result slot per result of it; an
// empty optional after reporting why not.
// The callee is the op's first function; a failure policy's fallback may
// follow it (`callees` 2).
std::optional<dist::ClosureFunction> GetCallee(KernelFrame* frame,
                                               RemainingFunctions functions,
                                               std::string_view op,
                                               size_t callees = 1) {
  if (functions.size() != callees) {
    frame->ReportError(absl::InvalidArgumentError(absl::StrCat(
        std::string(op), " needs ", callees,
        callees == 1 ? " function" : " functions",
        " (the callee, then the fallback), got ", functions.size())));
    return std::nullopt;
  }
  absl::StatusOr<dist::ClosureFunction> callee =
      frame->host()->GetOrCreateSharedContext<ClosureFunctions>().Get(
          *functions[0]);
  if (!callee.ok()) {
    frame->ReportError(callee.status());
    return std::nullopt;
  }
  if (frame->GetNumResults() != callee->result_types().size()) {
    frame->ReportError(absl::InvalidArgumentError(absl::StrCat(
        "'", callee->name(), "' returns ", callee->result_types().size(),
        " result(s), ", std::string(op), " has ", frame->GetNumResults())));
    return std::nullopt;
  }
  return *std::move(callee);
}

// A per-worker operand is known by its payload, so it must be available
// when the op runs, as the result of a create op always is; any other
// operand is a value the closure waits for.
std::vector<dist::ClosureArgument> ToClosureArguments(
    absl::Span<AsyncValue* const> arguments) {
  std::vector<dist::ClosureArgument> closure_arguments;
  closure_arguments.reserve(arguments.size());
  for (AsyncValue* argument : arguments) {
    if (argument->IsConcrete() && argument->IsType<PerWorkerValue>()) {
      closure_arguments.push_back(
          argument->get<PerWorkerValue>().ToClosureArgument());
    } else {
      closure_arguments.emplace_back(FormRef(argument));
    }
  }
  return closure_arguments;
}

// --- tfrt_dist.schedule ------------------------------------------------------

// The failure classes an attempt of a closure leaves to `policy`: those it
// retries, unless it is the last attempt, and those it falls back on.
std::vector<FailureClass> HandledClasses(const FailurePolicy& policy,
                                         bool last_attempt) {
  std::vector<FailureClass> handled;
  for (FailureClass failure_class :
       {FailureClass::kRetryable, FailureClass::kStale, FailureClass::kFatal,
        FailureClass::kCancelled}) {
    if ((!last_attempt && policy.Retries(failure_class)) ||
        policy.FallsBackOn(failure_class)) {
      handled.push_back(failure_class);
    }
  }
  return handled;
}

// Schedules the closure under `policy`: each attempt is a new closure, and
// the frame's results wait for the last one (or the fallback). Join waits
// for the whole of it, backoffs included.
void ScheduleWithPolicy(const FailurePolicy& policy,
                        dist::Coordinator* coordinator,
                        dist::ClosureFunction callee,
                        RemainingArguments arguments, KernelFrame* frame) {
  std::vector<RCReference<AsyncValue>> operands;
  for (AsyncValue* argument : arguments.values()) {
    operands.push_back(FormRef(argument));
  }
  std::vector<AsyncValue*> raw(arguments.values().begin(),
                               arguments.values().end());
  // The operands, given to the policy for the fallback, stay alive for as
  // long as it makes attempts.
  auto start = [policy, coordinator, callee = std::move(callee),
                raw = std::move(raw), attempts = int64_t{0},
                results = frame->GetNumResults()]() mutable {
    ++attempts;
    absl::StatusOr<std::vector<RCReference<AsyncValue>>> scheduled =
        coordinator->Schedule(
            callee, ToClosureArguments(raw),
            HandledClasses(policy, attempts >= policy.max_attempts));
    if (scheduled.ok()) return *std::move(scheduled);
    std::vector<RCReference<AsyncValue>> errors;
    for (size_t i = 0; i < results; ++i) {
      errors.push_back(MakeErrorAsyncValueRef(scheduled.status()));
    }
    return errors;
  };
  auto hold =
      std::make_shared<dist::Coordinator::JoinHold>(coordinator->HoldJoin());
  AsyncKernelFrame async(frame);
  RunWithFailurePolicy(
      policy, frame->exec_ctx(), std::move(start), std::move(operands),
      // A copy, not a move: copying detaches the frame from the kernel's.
      [frame = async, hold = std::move(hold)](
          std::vector<RCReference<AsyncValue>> results) mutable {
        SetAnsweredResults(frame, std::move(results));
        hold.reset();
      });
}

void Schedule(RemainingArguments arguments,
              OptionalAggregateAttribute on_failure,
              RemainingFunctions functions, KernelFrame* frame) {
  dist::Coordinator* coordinator = GetCoordinator(frame);
  if (coordinator == nullptr) return;
  const bool falls_back = on_failure && functions.size() == 2;
  std::optional<dist::ClosureFunction> callee =
      GetCallee(frame, functions, "tfrt_dist.schedule", falls_back ? 2 : 1);
  if (!callee) return;
  if (on_failure) {
    absl::StatusOr<FailurePolicy> policy =
        ReadFailurePolicy(*on_failure, falls_back ? functions[1] : nullptr);
    if (!policy.ok()) {
      frame->ReportError(policy.status());
      return;
    }
    ScheduleWithPolicy(*policy, coordinator, *std::move(callee), arguments,
                       frame);
    return;
  }
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> results =
      coordinator->Schedule(*callee, ToClosureArguments(arguments.values()));
  if (!results.ok()) {
    frame->ReportError(results.status());
    return;
  }
  SetResultsWhenAnswered(frame, *std::move(results));
}

// --- tfrt_dist.create_per_worker_resource / _dataset
// --------------------------

using CreateMethod = absl::StatusOr<dist::PerWorkerResource> (
    dist::Coordinator::*)(const dist::ClosureFunction&,
                          std::vector<dist::ClosureArgument>);

void CreatePerWorker(CreateMethod create, std::string_view op,
                     RemainingArguments arguments, RemainingFunctions functions,
                     KernelFrame* frame) {
  dist::Coordinator* coordinator = GetCoordinator(frame);
  if (coordinator == nullptr) return;
  std::optional<dist::ClosureFunction> callee = GetCallee(frame, functions, op);
  if (!callee) return;
  absl::StatusOr<dist::PerWorkerResource> resource =
      (coordinator->*create)(*callee, ToClosureArguments(arguments.values()));
  if (!resource.ok()) {
    frame->ReportError(resource.status());
    return;
  }
  for (size_t i = 0; i < frame->GetNumResults(); ++i) {
    frame->EmplaceResultAt<PerWorkerValue>(i, PerWorkerValue{*resource, i});
  }
}

void CreatePerWorkerResource(RemainingArguments arguments,
                             RemainingFunctions functions, KernelFrame* frame) {
  CreatePerWorker(&dist::Coordinator::CreatePerWorkerResource,
                  "tfrt_dist.create_per_worker_resource", arguments, functions,
                  frame);
}

void CreatePerWorkerDataset(RemainingArguments arguments,
                            RemainingFunctions functions, KernelFrame* frame) {
  CreatePerWorker(&dist::Coordinator::CreatePerWorkerDataset,
                  "tfrt_dist.create_per_worker_dataset", arguments, functions,
                  frame);
}

// --- tfrt_dist.worker_index --------------------------------------------------

PerWorkerValue WorkerIndex() { return PerWorkerValue{}; }

// --- tfrt_dist.join ----------------------------------------------------------

// Non-strict: the `after` operands only order it, and it waits for its
// chain itself, so that an error chain is passed on without joining.
void Join(Argument<Chain> in_chain, RemainingArguments /*after*/,
          KernelFrame* frame) {
  dist::Coordinator* coordinator = GetCoordinator(frame);
  if (coordinator == nullptr) return;
  AsyncValueRef<Chain> done =
      frame->host()
          ->GetOrCreateSharedContext<DistributedContext>()
          .BeginOperation();
  AsyncKernelFrame async(frame);
  in_chain.value()->AndThen([frame = async, chain = in_chain.ValueRef(),
                             coordinator, done = std::move(done)]() mutable {
    if (chain->IsError()) {
      frame.SetResultAt(0, std::move(chain));
      done.emplace();
      return;
    }
    HostContext* host = frame.host();
    host->EnqueueBlockingWork([frame = std::move(frame), coordinator,
                               done = std::move(done)]() mutable {
      if (absl::Status joined = coordinator->Join(); joined.ok()) {
        frame.EmplaceResultAt<Chain>(0);
      } else {
        frame.ReportError(std::move(joined));
      }
      done.emplace();
    });
  });
}

// --- tfrt_dist.fit -----------------------------------------------------------

constexpr char kFit[] = "tfrt_dist.fit";

// The metric names, each a string attribute.
absl::StatusOr<std::vector<std::string>> MetricNames(
    const AggregateAttribute& names) {
  std::vector<std::string> result;
  for (size_t i = 0; i < names.size(); ++i) {
    const auto type = static_cast<bef::AttributeType>(names.type(i));
    if (type != bef::AttributeType::kString) {
      return absl::InvalidArgumentError(
          absl::StrCat(kFit, ": metric_names[", i, "] is a ",
                       bef::AttributeTypeName(type), ", not a string"));
    }
    result.push_back(StringAttribute(names.data(i)).str());
  }
  return result;
}

// "epoch 2/3: loss 0.6931 accuracy 0.5000", as examples/ps_training's
// ps_train prints each epoch; `step` adds " step 40/100" for the metrics of
// a callback_every_steps window.
void PrintMetrics(const dist::FitMetrics& metrics, int64_t epochs,
                  int64_t steps_per_epoch, bool step) {
  std::string line = absl::StrFormat("epoch %d/%d", metrics.epoch + 1, epochs);
  if (step) {
    absl::StrAppendFormat(&line, " step %d/%d",
                          metrics.step - metrics.epoch * steps_per_epoch,
                          steps_per_epoch);
  }
  line += ":";
  for (const auto& [name, value] : metrics.values) {
    absl::StrAppendFormat(&line, " %s %.4f", name, value);
  }
  PrintLine(line);
}

// Strict: the dataset's arguments and the variables must be known, and an
// error among them is fit's result without training.
void Fit(const Chain& /*in_chain*/, RemainingArguments arguments,
         ArrayAttribute<int32_t> segments, Attribute<int64_t> epochs,
         Attribute<int64_t> steps_per_epoch, AggregateAttribute metric_names,
         OptionalAttribute<int64_t> callback_every_steps,
         OptionalStringAttribute checkpoint_directory,
         OptionalAttribute<int64_t> checkpoint_every_steps,
         RemainingFunctions functions, KernelFrame* frame) {
  // Operand segments: the chain, the dataset's arguments, the variables.
  if (segments.size() != 3 || segments[0] != 1 || segments[1] < 0 ||
      segments[2] < 0 ||
      static_cast<size_t>(segments[1]) + segments[2] != arguments.size()) {
    return frame->ReportError(absl::InvalidArgumentError(absl::StrCat(
        kFit, ": operandSegmentSizes must split its ", arguments.size() + 1,
        " operands into the chain, the dataset's arguments and the "
        "variables")));
  }
  if (functions.size() != 2) {
    return frame->ReportError(absl::InvalidArgumentError(
        absl::StrCat(kFit, " needs a dataset and a step function, got ",
                     functions.size(), " function(s)")));
  }
  absl::StatusOr<std::vector<std::string>> names = MetricNames(metric_names);
  if (!names.ok()) return frame->ReportError(names.status());
  dist::Coordinator* coordinator = GetCoordinator(frame);
  if (coordinator == nullptr) return;

  // The program lists attributes by name, so `dataset` comes before `step`.
  auto& closure_functions =
      frame->host()->GetOrCreateSharedContext<ClosureFunctions>();
  dist::FitModel model;
  for (auto [function, i] : {std::pair{&model.dataset_function, 0},
                             std::pair{&model.step_function, 1}}) {
    absl::StatusOr<dist::ClosureFunction> found =
        closure_functions.Get(*functions[i]);
    if (!found.ok()) return frame->ReportError(found.status());
    *function = *std::move(found);
  }
  const size_t num_dataset_arguments = segments[1];
  model.dataset_arguments =
      ToClosureArguments(arguments.values().subspan(0, num_dataset_arguments));
  for (AsyncValue* variable :
       arguments.values().subspan(num_dataset_arguments)) {
    if (!variable->IsType<dist::VariableHandle>()) {
      return frame->ReportError(absl::InvalidArgumentError(
          absl::StrCat(kFit, ": operand #",
                       1 + num_dataset_arguments + model.variables.size(),
                       " is not a !tfrt_dist.variable")));
    }
    model.variables.push_back(variable->get<dist::VariableHandle>());
  }
  model.metric_names = *std::move(names);

  dist::FitOptions options;
  options.epochs = *epochs;
  options.steps_per_epoch = *steps_per_epoch;
  options.callback_every_steps = callback_every_steps.value_or(0);
  if (checkpoint_directory.has_value()) {
    // On a worker, where the program comes from a caller, only under the
    // worker's data root (lib/checkpoint/data_root.h).
    absl::StatusOr<std::string> confined =
        frame->host()->GetOrCreateSharedContext<checkpoint::DataRoot>().Resolve(
            std::string(checkpoint_directory.value_or("")));
    if (!confined.ok()) {
      return frame->ReportError(absl::Status(
          confined.status().code(),
          absl::StrCat(kFit, ": checkpoint_directory refused: ",
                       confined.status().message())));
    }
    options.checkpoint_directory = *std::move(confined);
  }
  options.checkpoint_every_steps = checkpoint_every_steps.value_or(0);
  // Fit calls them on its own thread, one at a time.
  auto printer = [epochs = *epochs, steps = *steps_per_epoch](bool step) {
    return [=](const dist::FitMetrics& metrics) {
      PrintMetrics(metrics, epochs, steps, step);
    };
  };
  options.on_epoch_end = printer(/*step=*/false);
  options.on_steps = printer(/*step=*/true);

  AsyncValueRef<Chain> done =
      frame->host()
          ->GetOrCreateSharedContext<DistributedContext>()
          .BeginOperation();
  // Fit joins the coordinator at every sync point: a blocking-pool thread
  // waits, never one of the work queue's. The copy of the frame detaches
  // it, so that the result outlives the kernel.
  AsyncKernelFrame async(frame);
  frame->host()->EnqueueBlockingWork(
      [frame = async, coordinator, model = std::move(model),
       options = std::move(options), done = std::move(done)]() mutable {
        if (absl::Status fitted = dist::Fit(*coordinator, model, options);
            fitted.ok()) {
          frame.EmplaceResultAt<Chain>(0);
        } else {
          frame.ReportError(std::move(fitted));
        }
        done.emplace();
      });
}

}  // namespace
}  // namespace coordinator_kernels

absl::Status RegisterCoordinatorKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_dist.schedule",
       SLUICE_KERNEL(coordinator_kernels::Schedule)
           .WithAttributeNames({"on_failure"}),
       Strictness::kNonStrict},
      {"tfrt_dist.create_per_worker_resource",
       SLUICE_KERNEL(coordinator_kernels::CreatePerWorkerResource)},
      {"tfrt_dist.create_per_worker_dataset",
       SLUICE_KERNEL(coordinator_kernels::CreatePerWorkerDataset)},
      {"tfrt_dist.worker_index",
       SLUICE_KERNEL(coordinator_kernels::WorkerIndex)},
      {"tfrt_dist.join", SLUICE_KERNEL(coordinator_kernels::Join),
       Strictness::kNonStrict},
      {"tfrt_dist.fit",
       SLUICE_KERNEL(coordinator_kernels::Fit)
           .WithAttributeNames({"operandSegmentSizes", "epochs",
                                "steps_per_epoch", "metric_names",
                                "callback_every_steps", "checkpoint_directory",
                                "checkpoint_every_steps"})},
  });
}

}  // namespace sluice
