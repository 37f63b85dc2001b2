// Test kernels that run a region (TFRT's tfrt_test ops): tfrt_test.do.async
// runs its body once as a work-queue task, and tfrt_test.benchmark runs its
// body repeatedly and prints timings.
//
// The body is the kernel's function 0. Functions belong to the loaded
// program, which outlives every execution of its kernels, so tasks and
// callbacks keep plain pointers to them. The body receives the operands it
// declares, in order; any past those (the trailing !tfrt.chain the spec
// allows on any op) are ignored.
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/print.h"
#include "sluice/support/ref_count.h"

namespace sluice {
namespace test_kernels {
namespace {

absl::string_view KernelName(const KernelFrame& frame) {
  const std::string_view name = frame.debug_info().name;
  return absl::string_view(name.data(), name.size());
}

// The compiler verifies the region's signature; a hand-built frame can still
// get it wrong, and an error value is kinder than a crash.
absl::Status CheckBody(const KernelFrame& frame) {
  if (frame.GetNumFunctions() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(KernelName(frame), " needs a region"));
  }
  const Function& body = *frame.GetFunctionAt(0);
  if (body.num_arguments() > frame.GetNumArgs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        KernelName(frame), "'s region takes ", body.num_arguments(),
        " arguments but the op has ", frame.GetNumArgs(), " operand(s)"));
  }
  return absl::OkStatus();
}

absl::Status CheckBodyResults(const KernelFrame& frame, size_t num_results) {
  const Function& body = *frame.GetFunctionAt(0);
  if (num_results == body.num_results()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(KernelName(frame), "'s region returns ", body.num_results(),
                   " values but the op has ", num_results, " result(s)"));
}

// References to the operands the body takes: tasks and callbacks run after
// the kernel has returned, when the frame no longer lends them.
std::vector<RCReference<AsyncValue>> BodyOperands(const KernelFrame& frame) {
  std::vector<RCReference<AsyncValue>> operands;
  const size_t count = frame.GetFunctionAt(0)->num_arguments();
  operands.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    operands.push_back(FormRef(frame.GetArgAt(i)));
  }
  return operands;
}

std::vector<AsyncValue*> Pointers(
    const std::vector<RCReference<AsyncValue>>& values) {
  std::vector<AsyncValue*> pointers;
  pointers.reserve(values.size());
  for (const RCReference<AsyncValue>& value : values) {
    pointers.push_back(value.get());
  }
  return pointers;
}

// --- tfrt_test.do.async ------------------------------------------------------

// The results are placeholders the caller sees at once; the task forwards
// them to the body's results, which may themselves still be pending.
void DoAsync(RemainingResults results, KernelFrame* frame) {
  absl::Status status = CheckBody(*frame);
  if (status.ok()) status = CheckBodyResults(*frame, results.size());
  if (!status.ok()) {
    frame->ReportError(std::move(status));
    return;
  }
  std::vector<RCReference<IndirectAsyncValue>> placeholders;
  placeholders.reserve(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    placeholders.push_back(results.AllocateIndirectAt(i));
  }
  frame->host()->EnqueueWork([context = frame->exec_ctx(),
                              body = frame->GetFunctionAt(0),
                              operands = BodyOperands(*frame),
                              placeholders = std::move(placeholders)] {
    std::vector<AsyncValue*> arguments = Pointers(operands);
    std::vector<RCReference<AsyncValue>> body_results(body->num_results());
    body->Execute(context, arguments, absl::MakeSpan(body_results));
    for (size_t i = 0; i < placeholders.size(); ++i) {
      placeholders[i]->ForwardTo(std::move(body_results[i]));
    }
  });
}

// --- tfrt_test.benchmark -----------------------------------------------------

int64_t CpuNowNanos() {
  struct timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

// The spec writes the integer attributes without a type: the op's custom
// syntax makes them i32, the generic form without `: i32` makes them i64.
// Both are stored little-endian, so the first 4 bytes hold the value of
// either width whenever it fits in 32 bits, and reading only those stays
// inside the attribute whatever its width.
struct BenchmarkOptions {
  std::string name;
  absl::Duration duration;
  int32_t max_count = 0;
  int32_t num_warmup_runs = 1;
};

// Runs the body once at a time: each run starts when every result of the
// previous one is available. Runs that finish synchronously follow each
// other in a loop; a run that finishes later resumes the loop from the
// waiter on its results, so the stack never grows with the run count. Owns
// itself from Start() until it resolves `done_`.
class Benchmark {
 public:
  Benchmark(ExecutionContext context, const Function* body,
            std::vector<RCReference<AsyncValue>> operands,
            BenchmarkOptions options, AsyncValueRef<Chain> done)
      : context_(std::move(context)),
        body_(body),
        operands_(std::move(operands)),
        arguments_(Pointers(operands_)),
        options_(std::move(options)),
        done_(std::move(done)) {}

  // Runs until a run is pending, or to the end (deleting this).
  void Run() {
    while (true) {
      if (context_.IsCancelled()) {
        Finish(context_.request_context()->GetCancelAsyncValue()->GetError());
        return;
      }
      if (IsMeasuring() && IsFinished()) {
        PrintReport();
        Finish(absl::OkStatus());
        return;
      }
      StartRun();
      const bool pending =
          std::any_of(results_.begin(), results_.end(),
                      [](const RCReference<AsyncValue>& result) {
                        return result->IsUnavailable();
                      });
      if (pending) {
        RunWhenReady(absl::MakeConstSpan(results_), [this] {
          if (EndRun()) Run();
        });
        return;
      }
      if (!EndRun()) return;
    }
  }

 private:
  bool IsMeasuring() const { return runs_ >= options_.num_warmup_runs; }
  int64_t NumMeasured() const {
    return std::max<int64_t>(0, runs_ - options_.num_warmup_runs);
  }

  // At least one measured run happens unless max_count is 0, so a short
  // duration still reports something.
  bool IsFinished() const {
    const int64_t measured = NumMeasured();
    if (measured >= options_.max_count) return true;
    return measured > 0 && absl::Now() - measure_start_ >= options_.duration;
  }

  void StartRun() {
    run_start_ = absl::Now();
    run_start_cpu_ = CpuNowNanos();
    if (runs_ == options_.num_warmup_runs) {
      measure_start_ = run_start_;
      measure_start_cpu_ = run_start_cpu_;
    }
    results_.clear();
    results_.resize(body_->num_results());
    body_->Execute(context_, arguments_, absl::MakeSpan(results_));
  }

  // Records the run that just finished. False if the benchmark stopped
  // (deleting this) because the run failed.
  bool EndRun() {
    const absl::Time end = absl::Now();
    const int64_t end_cpu = CpuNowNanos();
    for (const RCReference<AsyncValue>& result : results_) {
      if (result->IsError()) {
        Finish(result->GetError());
        return false;
      }
    }
    results_.clear();
    if (IsMeasuring()) {
      wall_nanos_.push_back(absl::ToInt64Nanoseconds(end - run_start_));
      cpu_nanos_.push_back(end_cpu - run_start_cpu_);
      measure_end_ = end;
      measure_end_cpu_ = end_cpu;
    }
    ++runs_;
    return true;
  }

  // The error of a failed run travels as a value: whoever made it has
  // reported it already.
  void Finish(const absl::Status& status) {
    if (status.ok()) {
      done_.emplace();
    } else {
      done_.SetError(status);
    }
    delete this;
  }

  // The sample at `percent` percent of the sorted samples (0 for none).
  static int64_t Percentile(const std::vector<int64_t>& sorted, int percent) {
    if (sorted.empty()) return 0;
    const size_t index =
        std::min(sorted.size() - 1, sorted.size() * percent / 100);
    return sorted[index];
  }

  void PrintReport() {
    const int64_t duration =
        wall_nanos_.empty()
            ? 0
            : absl::ToInt64Nanoseconds(measure_end_ - measure_start_);
    const int64_t cpu =
        wall_nanos_.empty() ? 0 : measure_end_cpu_ - measure_start_cpu_;
    std::vector<int64_t> wall = wall_nanos_;
    std::vector<int64_t> cpu_per_run = cpu_nanos_;
    std::sort(wall.begin(), wall.end());
    std::sort(cpu_per_run.begin(), cpu_per_run.end());

    const std::string prefix = absl::StrCat("BM:", options_.name, ":");
    auto line = [&prefix](absl::string_view label, int64_t value) {
      PrintLine(absl::StrCat(prefix, label, ": ", value));
    };
    line("Duration(ns)", duration);
    line("Count", static_cast<int64_t>(wall.size()));
    line("Time Min(ns)", Percentile(wall, 0));
    line("Time 50%(ns)", Percentile(wall, 50));
    line("Time 95%(ns)", Percentile(wall, 95));
    line("Time 99%(ns)", Percentile(wall, 99));
    line("CPU Min(ns)", Percentile(cpu_per_run, 0));
    line("CPU 50%(ns)", Percentile(cpu_per_run, 50));
    line("CPU 95%(ns)", Percentile(cpu_per_run, 95));
    line("CPU 99%(ns)", Percentile(cpu_per_run, 99));
    // Printed the way LLVM's raw_ostream prints a double (%e), as TFRT's
    // output does.
    const double utilization =
        duration > 0 ? 100.0 * static_cast<double>(cpu) / duration : 0.0;
    PrintLine(absl::StrCat(prefix, "CPU utilization(percent): ",
                           absl::StrFormat("%e", utilization)));
  }

  const ExecutionContext context_;
  const Function* const body_;
  const std::vector<RCReference<AsyncValue>> operands_;
  const std::vector<AsyncValue*> arguments_;
  const BenchmarkOptions options_;
  const AsyncValueRef<Chain> done_;

  int64_t runs_ = 0;  // finished runs, warm-up included
  std::vector<RCReference<AsyncValue>> results_;  // of the current run
  absl::Time run_start_;
  int64_t run_start_cpu_ = 0;
  absl::Time measure_start_;
  int64_t measure_start_cpu_ = 0;
  absl::Time measure_end_;
  int64_t measure_end_cpu_ = 0;
  std::vector<int64_t> wall_nanos_;
  std::vector<int64_t> cpu_nanos_;
};

// The body's results only tell when a run has finished.
void BenchmarkKernel(Result<Chain> done, StringAttribute name,
                     Attribute<int32_t> duration_secs,
                     Attribute<int32_t> max_count,
                     OptionalAttribute<int32_t> num_warmup_runs,
                     KernelFrame* frame) {
  if (absl::Status status = CheckBody(*frame); !status.ok()) {
    frame->ReportError(std::move(status));
    return;
  }
  BenchmarkOptions options;
  options.duration = absl::Seconds(*duration_secs);
  options.max_count = *max_count;
  options.name = name.str();
  options.num_warmup_runs = std::max(num_warmup_runs.value_or(1), 0);

  // The kernel returns at once; the runs go on as tasks and waiters.
  auto* benchmark =
      new Benchmark(frame->exec_ctx(), frame->GetFunctionAt(0),
                    BodyOperands(*frame), std::move(options), done.Allocate());
  frame->host()->EnqueueWork([benchmark] { benchmark->Run(); });
}

}  // namespace

absl::Status RegisterRegionKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_test.do.async", SLUICE_KERNEL(DoAsync)},
      {"tfrt_test.benchmark",
       SLUICE_KERNEL(BenchmarkKernel)
           .WithAttributeNames(
               {"name", "duration_secs", "max_count", "num_warmup_runs"})},
  });
}

}  // namespace test_kernels
}  // namespace sluice
