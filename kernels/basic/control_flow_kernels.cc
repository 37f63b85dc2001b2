// Calls and control flow of the `tfrt` dialect (as TFRT defines them):
// tfrt.call, tfrt.if, tfrt.cond, tfrt.case, tfrt.while, tfrt.repeat.i32 and
// tfrt.once.
//
// All of them are non-strict. Operands reach them pending or as errors, and
// they hand them to the functions they run as they are: a function's own
// kernels wait for what they need, and an error operand only matters where
// data flows from it. The one operand a kernel itself must read (a condition,
// a branch index, an iteration count) it waits for; if that operand is an
// error, every result of the kernel is that same error value, silently (the
// error was reported where it was made).
//
// A kernel's functions are its regions, then the functions its symbol
// attributes name, in attribute-name order (tfrt.cond: a_true_fn, then
// b_false_fn). Functions belong to the loaded program, which outlives every
// execution of its kernels, so callbacks keep plain pointers to them.
//
// A function receives the operands it declares, in order; operands past those
// (the one trailing !tfrt.chain the spec allows on any op) are ignored.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "kernels/basic/basic_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/resource_context.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/ref_count.h"

namespace sluice {
namespace basic_kernels {
namespace {

// The kernel's name as absl::StrCat takes it: Debian's Abseil has a
// string_view of its own.
absl::string_view KernelName(const KernelFrame& frame) {
  const std::string_view name = frame.debug_info().name;
  return absl::string_view(name.data(), name.size());
}

// --- Checks ------------------------------------------------------------------
// The compiler verifies these; a hand-built frame or a mismatched native
// function can still get them wrong, and an error value is kinder than a
// crash.

absl::Status CheckNumFunctions(const KernelFrame& frame, size_t expected) {
  if (frame.GetNumFunctions() >= expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(KernelName(frame), " needs ",
                                                 expected, " function(s), got ",
                                                 frame.GetNumFunctions()));
}

// `function` is called with (the first of) `num_operands` values and fills
// `num_results` slots.
absl::Status CheckSignature(const KernelFrame& frame, const Function& function,
                            size_t num_operands, size_t num_results) {
  if (function.num_arguments() > num_operands) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", function.name(), "' takes ", function.num_arguments(),
        " arguments but ", KernelName(frame), " passes ", num_operands));
  }
  if (function.num_results() != num_results) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", function.name(), "' returns ", function.num_results(),
                     " results but ", KernelName(frame), " has ", num_results));
  }
  return absl::OkStatus();
}

// Loop bodies take the loop values exactly: an extra argument would have
// nothing to bind to on the second iteration.
absl::Status CheckLoopBody(const KernelFrame& frame, const Function& body,
                           size_t num_values, size_t num_body_results) {
  if (frame.GetNumArgs() < 1 + num_values) {
    return absl::InvalidArgumentError(absl::StrCat(
        KernelName(frame), " has ", num_values, " results but only ",
        frame.GetNumArgs() - 1, " loop operand(s)"));
  }
  if (body.num_arguments() != num_values) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", body.name(), "' takes ", body.num_arguments(), " arguments but ",
        KernelName(frame), " carries ", num_values, " loop value(s)"));
  }
  return CheckSignature(frame, body, num_values, num_body_results);
}

// --- tfrt.call ---------------------------------------------------------------

void Call(KernelFrame* frame) {
  if (absl::Status status = CheckNumFunctions(*frame, 1); !status.ok()) {
    frame->ReportError(std::move(status));
    return;
  }
  const Function* callee = frame->GetFunctionAt(0);
  if (absl::Status status = CheckSignature(*frame, *callee, frame->GetNumArgs(),
                                           frame->GetNumResults());
      !status.ok()) {
    frame->ReportError(std::move(status));
    return;
  }
  callee->Execute(frame->exec_ctx(),
                  frame->GetArguments().subspan(0, callee->num_arguments()),
                  frame->GetResults());
}

// --- tfrt.if, tfrt.cond, tfrt.case -------------------------------------------

// Which branch an available, non-error selector picks. An index past the
// last branch means "run nothing" (tfrt.if with its else region omitted);
// kNotASelector, that the selector holds a value of another type (MLIR
// checks its type, but a worker runs programs its clients compiled).
using BranchSelector = size_t (*)(const AsyncValue& selector,
                                  size_t num_branches);
constexpr size_t kNotASelector = ~size_t{0};

size_t SelectByCondition(const AsyncValue& condition, size_t) {
  if (!condition.IsType<bool>()) return kNotASelector;
  return condition.get<bool>() ? 0 : 1;
}

size_t SelectByIndex(const AsyncValue& index, size_t num_branches) {
  if (!index.IsType<int32_t>()) return kNotASelector;
  const int32_t i = index.get<int32_t>();
  // Out of range, negative included, is the last branch: TFRT's default
  // branch convention.
  if (i < 0 || static_cast<size_t>(i) >= num_branches) return num_branches - 1;
  return static_cast<size_t>(i);
}

void RunBranch(const ExecutionContext& context, AsyncValue* selector,
               absl::Span<const Function* const> branches,
               BranchSelector select, absl::Span<AsyncValue* const> operands,
               absl::Span<RCReference<AsyncValue>> results) {
  if (selector->IsError()) {
    for (RCReference<AsyncValue>& result : results) result = FormRef(selector);
    return;
  }
  const size_t index = select(*selector, branches.size());
  if (index == kNotASelector) {
    RCReference<AsyncValue> error = MakeErrorAsyncValueRef(
        absl::InvalidArgumentError("the branch selector (operand #0) is not "
                                   "an i1 condition or i32 index"));
    for (RCReference<AsyncValue>& result : results) result = error.CopyRef();
    return;
  }
  // Only an omitted else region gets here, and then there are no results.
  if (index >= branches.size()) return;
  const Function* branch = branches[index];
  branch->Execute(context, operands.subspan(0, branch->num_arguments()),
                  results);
}

// Operand 0 selects one of the kernel's functions, which runs with the other
// operands. `min_branches` functions are required; `optional_last` lets the
// last one be missing when the kernel has no results.
void SelectAndRun(KernelFrame* frame, BranchSelector select,
                  size_t min_branches, bool optional_last) {
  const bool may_omit = optional_last && frame->GetNumResults() == 0 &&
                        frame->GetNumFunctions() == min_branches - 1;
  if (!may_omit) {
    if (absl::Status status = CheckNumFunctions(*frame, min_branches);
        !status.ok()) {
      frame->ReportError(std::move(status));
      return;
    }
  }
  if (frame->GetNumArgs() < 1) {
    frame->ReportError(absl::InvalidArgumentError(
        absl::StrCat(KernelName(*frame), " needs a selector operand")));
    return;
  }
  // Inline: tfrt.if runs on every fib-like call; no heap for its branches.
  absl::InlinedVector<const Function*, 4> branches;
  branches.reserve(frame->GetNumFunctions());
  for (size_t i = 0; i < frame->GetNumFunctions(); ++i) {
    const Function* branch = frame->GetFunctionAt(i);
    if (absl::Status status = CheckSignature(
            *frame, *branch, frame->GetNumArgs() - 1, frame->GetNumResults());
        !status.ok()) {
      frame->ReportError(std::move(status));
      return;
    }
    branches.push_back(branch);
  }

  AsyncValue* selector = frame->GetArgAt(0);
  if (selector->IsAvailable()) {
    RunBranch(frame->exec_ctx(), selector, branches, select,
              frame->GetArguments().subspan(1), frame->GetResults());
    return;
  }
  // Copying the frame detaches it: the results become placeholders the
  // caller sees now, and the copy keeps the operands and the request alive
  // until the selector resolves.
  AsyncKernelFrame in_place(frame);
  AsyncKernelFrame detached(in_place);
  selector->AndThen([async_frame = std::move(detached),
                     branches = std::move(branches), select]() mutable {
    std::vector<AsyncValue*> operands;
    operands.reserve(async_frame.GetNumArgs() - 1);
    for (size_t i = 1; i < async_frame.GetNumArgs(); ++i) {
      operands.push_back(async_frame.GetArgAt(i));
    }
    std::vector<RCReference<AsyncValue>> results(async_frame.GetNumResults());
    RunBranch(async_frame.exec_ctx(), async_frame.GetArgAt(0), branches, select,
              operands, absl::MakeSpan(results));
    for (size_t i = 0; i < results.size(); ++i) {
      async_frame.SetResultAt(i, std::move(results[i]));
    }
  });
}

// tfrt.if (then, else regions) and tfrt.cond (a_true_fn, b_false_fn).
void If(KernelFrame* frame) {
  SelectAndRun(frame, SelectByCondition, /*min_branches=*/2,
               /*optional_last=*/true);
}

void Case(KernelFrame* frame) {
  SelectAndRun(frame, SelectByIndex, /*min_branches=*/1,
               /*optional_last=*/false);
}

// --- tfrt.while, tfrt.repeat.i32 ---------------------------------------------

// Runs one loop, an iteration at a time: an iteration starts once every loop
// value the previous one returned (and, for tfrt.while, its condition) is
// available. Iterations whose inputs are ready run in a plain loop on the
// current thread, so a synchronous body runs any number of times in
// constant stack; otherwise the loop suspends and resumes on the thread that
// makes the last input available.
//
// tfrt.while's `parallel_iterations` attribute is accepted and ignored: the
// loop always behaves as with parallel_iterations(1). Running iterations one
// after the other is a valid schedule of the same dataflow for any value of
// the attribute, and it bounds the work a loop has in flight to one body.
//
// Cancellation is checked before every iteration: a cancelled request makes
// every result the request's cancel value, and the body does not run again.
// A body that cancels the request during iteration k therefore runs exactly
// k times, unless k is the last iteration, whose results stand.
class Loop : public ReferenceCounted<Loop> {
 public:
  enum class Kind { kWhile, kRepeat };

  // `control`: tfrt.while's first condition, or tfrt.repeat.i32's count.
  Loop(Kind kind, const ExecutionContext& context, const Function* body,
       RCReference<AsyncValue> control,
       std::vector<RCReference<AsyncValue>> values)
      : kind_(kind),
        context_(context),
        body_(body),
        num_values_(values.size()),
        control_(std::move(control)),
        values_(std::move(values)) {}

  // Runs on the kernel's thread, during the kernel call: runs the loop as far
  // as it can, then sets the kernel's results.
  void Start(KernelFrame* frame) {
    Run();
    // `suspended_` and `placeholders_` only change on this thread before the
    // first suspension, so reading them here races with nothing.
    for (size_t i = 0; i < num_values_; ++i) {
      if (suspended_) {
        frame->SetResultAt(i, placeholders_[i].CopyRef());
      } else {
        frame->SetResultAt(i, std::move(finished_[i]));
      }
    }
  }

 private:
  // Runs iterations until the loop finishes or has to wait.
  void Run() {
    for (;;) {
      if (control_->IsUnavailable()) {
        if (Suspend(absl::MakeConstSpan(&control_, 1))) return;
        continue;
      }
      if (control_->IsError()) {
        FinishWithError(control_.get());
        return;
      }
      if (!(kind_ == Kind::kWhile ? control_->IsType<bool>()
                                  : control_->IsType<int32_t>())) {
        FinishWithError(
            MakeErrorAsyncValueRef(
                absl::InvalidArgumentError(
                    kind_ == Kind::kWhile
                        ? "the loop condition is not an i1"
                        : "the iteration count (operand #0) is not an i32"))
                .get());
        return;
      }
      if (kind_ == Kind::kWhile) {
        if (!control_->get<bool>()) {
          Finish(std::move(values_));
          return;
        }
      } else {
        // A negative count runs no iteration, like a C++ for loop.
        if (remaining_ < 0) remaining_ = std::max(0, control_->get<int32_t>());
        if (remaining_ == 0) {
          Finish(std::move(values_));
          return;
        }
      }
      if (!AllAvailable()) {
        if (Suspend(values_)) return;
        continue;
      }
      if (context_.IsCancelled()) {
        FinishWithError(context_.request_context()->GetCancelAsyncValue());
        return;
      }
      RunBody();
      if (kind_ == Kind::kRepeat) --remaining_;
    }
  }

  bool AllAvailable() const {
    for (const RCReference<AsyncValue>& value : values_) {
      if (value->IsUnavailable()) return false;
    }
    return true;
  }

  void RunBody() {
    arguments_.clear();
    for (const RCReference<AsyncValue>& value : values_) {
      arguments_.push_back(value.get());
    }
    next_.clear();
    next_.resize(body_->num_results());
    body_->Execute(context_, arguments_, absl::MakeSpan(next_));
    if (kind_ == Kind::kWhile) {
      control_ = std::move(next_.back());
      next_.pop_back();
    }
    values_.swap(next_);
    // The previous iteration's values are released now, not one iteration
    // late.
    next_.clear();
  }

  // Waits for `pending`. Returns true if the loop must return now because a
  // callback will resume it; false if everything became available while the
  // callback was being registered, in which case the caller goes on itself.
  // Resuming only from outside the registering call keeps the stack flat
  // however often values turn available in that window.
  bool Suspend(absl::Span<const RCReference<AsyncValue>> pending) {
    if (!suspended_) {
      // From here on the results are placeholders, made before any other
      // thread can finish the loop.
      suspended_ = true;
      placeholders_.reserve(num_values_);
      for (size_t i = 0; i < num_values_; ++i) {
        placeholders_.push_back(MakeIndirectAsyncValue());
      }
    }
    registering_.store(true, std::memory_order_relaxed);
    RunWhenReady(pending, [self = FormRef(this)] {
      if (!self->registering_.exchange(false, std::memory_order_acq_rel)) {
        self->Run();
      }
    });
    return registering_.exchange(false, std::memory_order_acq_rel);
  }

  void Finish(std::vector<RCReference<AsyncValue>> results) {
    if (!suspended_) {
      finished_ = std::move(results);
      return;
    }
    for (size_t i = 0; i < num_values_; ++i) {
      placeholders_[i]->ForwardTo(std::move(results[i]));
    }
  }

  void FinishWithError(AsyncValue* error) {
    std::vector<RCReference<AsyncValue>> results;
    results.reserve(num_values_);
    for (size_t i = 0; i < num_values_; ++i) results.push_back(FormRef(error));
    Finish(std::move(results));
  }

  const Kind kind_;
  const ExecutionContext context_;
  const Function* const body_;
  const size_t num_values_;
  // tfrt.while: the condition for the next iteration. tfrt.repeat.i32: the
  // count, read once into `remaining_`.
  RCReference<AsyncValue> control_;
  int64_t remaining_ = -1;
  std::vector<RCReference<AsyncValue>> values_;
  // Buffers reused by every iteration.
  std::vector<AsyncValue*> arguments_;
  std::vector<RCReference<AsyncValue>> next_;
  bool suspended_ = false;
  std::vector<RCReference<IndirectAsyncValue>> placeholders_;
  // The results of a loop that finished without suspending.
  std::vector<RCReference<AsyncValue>> finished_;
  std::atomic<bool> registering_{false};
};

// The loop values are operands 1..N, N the number of results.
void StartLoop(KernelFrame* frame, Loop::Kind kind, size_t num_body_results) {
  if (absl::Status status = CheckNumFunctions(*frame, 1); !status.ok()) {
    frame->ReportError(std::move(status));
    return;
  }
  const size_t num_values = frame->GetNumResults();
  const Function* body = frame->GetFunctionAt(0);
  if (absl::Status status =
          CheckLoopBody(*frame, *body, num_values, num_body_results);
      !status.ok()) {
    frame->ReportError(std::move(status));
    return;
  }
  std::vector<RCReference<AsyncValue>> values;
  values.reserve(num_values);
  for (size_t i = 0; i < num_values; ++i) {
    values.push_back(FormRef(frame->GetArgAt(1 + i)));
  }
  RCReference<Loop> loop =
      MakeRef<Loop>(kind, frame->exec_ctx(), body, FormRef(frame->GetArgAt(0)),
                    std::move(values));
  loop->Start(frame);
}

// The body returns the loop values followed by the next condition.
void While(KernelFrame* frame) {
  StartLoop(frame, Loop::Kind::kWhile, frame->GetNumResults() + 1);
}

void RepeatI32(KernelFrame* frame) {
  StartLoop(frame, Loop::Kind::kRepeat, frame->GetNumResults());
}

// --- tfrt.once ---------------------------------------------------------------

// The results of one function in one request. Placeholders, so that every
// execution, the first included, gets the same values even while the first
// one's call is still running.
struct OnceResults {
  std::atomic<bool> claimed{false};
  std::vector<RCReference<IndirectAsyncValue>> values;
};

// The key is the function, not the op: the spec runs `f` once per request,
// so two tfrt.once ops naming the same function share its results. Later
// executions' operands are not used. A function that reaches tfrt.once of
// itself would wait on its own results forever.
void Once(KernelFrame* frame) {
  if (absl::Status status = CheckNumFunctions(*frame, 1); !status.ok()) {
    frame->ReportError(std::move(status));
    return;
  }
  const Function* function = frame->GetFunctionAt(0);
  if (absl::Status status = CheckSignature(
          *frame, *function, frame->GetNumArgs(), frame->GetNumResults());
      !status.ok()) {
    frame->ReportError(std::move(status));
    return;
  }
  const size_t num_results = function->num_results();
  const std::string key =
      absl::StrCat("tfrt.once/", reinterpret_cast<uintptr_t>(function));
  // The factory runs under the resource map's lock, so it only builds the
  // placeholders; the call happens outside, where the function may use the
  // map itself (a nested tfrt.once).
  OnceResults* once =
      frame->exec_ctx()
          .request_context()
          ->resources()
          .GetOrCreateResource<OnceResults>(key, [num_results] {
            auto results = std::make_unique<OnceResults>();
            results->values.reserve(num_results);
            for (size_t i = 0; i < num_results; ++i) {
              results->values.push_back(MakeIndirectAsyncValue());
            }
            return results;
          });
  if (once == nullptr) {
    frame->ReportError(absl::InternalError(
        absl::StrCat("request resource '", key, "' has another type")));
    return;
  }
  if (!once->claimed.exchange(true, std::memory_order_acq_rel)) {
    std::vector<RCReference<AsyncValue>> results(num_results);
    function->Execute(
        frame->exec_ctx(),
        frame->GetArguments().subspan(0, function->num_arguments()),
        absl::MakeSpan(results));
    for (size_t i = 0; i < num_results; ++i) {
      once->values[i]->ForwardTo(std::move(results[i]));
    }
  }
  for (size_t i = 0; i < num_results; ++i) {
    frame->SetResultAt(i, once->values[i].CopyRef());
  }
}

}  // namespace

absl::Status RegisterControlFlowKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt.call", &Call, Strictness::kNonStrict},
      {"tfrt.if", &If, Strictness::kNonStrict},
      {"tfrt.cond", &If, Strictness::kNonStrict},
      {"tfrt.case", &Case, Strictness::kNonStrict},
      {"tfrt.while", &While, Strictness::kNonStrict},
      {"tfrt.repeat.i32", &RepeatI32, Strictness::kNonStrict},
      {"tfrt.once", &Once, Strictness::kNonStrict},
  });
}

}  // namespace basic_kernels
}  // namespace sluice
