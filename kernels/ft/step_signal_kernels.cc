// tfrt_ft.step_begin, step_end, epoch_end and train_end: the process's
// StepReporter (sluice/monitor/step_reporter.h), which records a signal without
// waiting on the monitor. Without SLUICE_MONITOR they only pass the chain.
#include <cstdint>

#include "kernels/ft/kernel_groups.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/monitor/step_reporter.h"

namespace sluice {
namespace {

using monitor::StepReporter;

Chain StepBegin(int64_t step, const Chain&, StringAttribute kind) {
  if (StepReporter* reporter = StepReporter::FromEnvironment()) {
    reporter->StepBegin(step, kind.get());
  }
  return Chain();
}

Chain StepEnd(int64_t step, const Chain&) {
  if (StepReporter* reporter = StepReporter::FromEnvironment()) {
    reporter->StepEnd(step);
  }
  return Chain();
}

Chain EpochEnd(int64_t epoch, const Chain&) {
  if (StepReporter* reporter = StepReporter::FromEnvironment()) {
    reporter->EpochEnd(epoch);
  }
  return Chain();
}

// TrainEnd waits (bounded) for the monitor to receive it: off the work
// queue, on the blocking pool.
void TrainEnd(const Chain&, AsyncKernelFrame* frame) {
  StepReporter* reporter = StepReporter::FromEnvironment();
  if (reporter == nullptr) return frame->EmplaceResultAt<Chain>(0);
  frame->host()->EnqueueBlockingWork([frame = *frame, reporter]() mutable {
    reporter->TrainEnd();
    frame.EmplaceResultAt<Chain>(0);
  });
}

}  // namespace

absl::Status RegisterStepSignalKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_ft.step_begin",
       SLUICE_KERNEL(StepBegin).WithAttributeNames({"kind"})},
      {"tfrt_ft.step_end", SLUICE_KERNEL(StepEnd)},
      {"tfrt_ft.epoch_end", SLUICE_KERNEL(EpochEnd)},
      {"tfrt_ft.train_end", SLUICE_KERNEL(TrainEnd)},
  });
}

}  // namespace sluice
