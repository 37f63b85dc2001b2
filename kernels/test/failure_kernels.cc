// Kernels that fail on purpose, in each of the ways a kernel can fail
// (TFRT's tfrt_test ops): a synchronous error return, a
// partial failure, an error reported later from another thread, and
// cancelling the request.
//
// Every error here goes through the frame's ReportError (directly or through
// an error return), so each one is also emitted as a `runtime error`
// diagnostic at the op. Their code is kInternal, the code TFRT gives a plain
// string error (MakeStringError), which is what these kernels make there.
#include <cstdint>
#include <tuple>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {
namespace test_kernels {
namespace {

absl::Status SomethingBad() {
  return absl::InternalError("something bad happened");
}

absl::Status SomethingBadAsync() {
  return absl::InternalError("something bad happened asynchronously");
}

absl::StatusOr<int32_t> Fail() { return SomethingBad(); }

// Result 0 is set before the error is reported, so ReportError leaves it
// alone and fails only result 1.
void PartialFail(Result<int32_t> first, KernelFrame* frame) {
  first.Emplace(1);
  frame->ReportError(SomethingBad());
}

// The copy of the frame outlives the kernel; since result 0 was allocated
// before the copy, the copy's ReportError fails that value (rather than a
// placeholder), as a kernel that meant to fill it itself would.
void ReportAsyncError(AsyncKernelFrame* frame) {
  frame->host()->EnqueueWork(
      [frame = *frame]() mutable { frame.ReportError(SomethingBadAsync()); });
}

void ReportErrorAsync(AsyncKernelFrame* frame) {
  frame->AllocateResultAt<int32_t>(0);
  ReportAsyncError(frame);
}

// Input 0 succeeds with an available 0; any other input fails the allocated
// result later.
void ReportErrorConcreteAsync(int32_t input, AsyncKernelFrame* frame) {
  if (input == 0) {
    frame->EmplaceResultAt<int32_t>(0, 0);
    return;
  }
  ReportErrorAsync(frame);
}

// Same, through indirect values: on success an indirect result forwarded to
// an available 0; on failure the placeholder a copied frame gives an unset
// result, failed by the copy.
void ReportErrorIndirectAsync(int32_t input, Result<int32_t> result,
                              AsyncKernelFrame* frame) {
  if (input == 0) {
    result.AllocateIndirect()->ForwardTo(
        MakeAvailableAsyncValueRef<int32_t>(0).ReleaseRCRef());
    return;
  }
  ReportAsyncError(frame);
}

// The kernel itself is already running, so it finishes normally; only
// kernels not started yet see the cancellation.
std::tuple<int32_t, RCReference<AsyncValue>> Cancel(
    Argument<Chain> chain, const ExecutionContext& context) {
  context.request_context()->Cancel();
  return {0, chain.ValueRef()};
}

}  // namespace

absl::Status RegisterFailureKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_test.fail", SLUICE_KERNEL(Fail)},
      {"tfrt_test.partial_fail", SLUICE_KERNEL(PartialFail)},
      {"tfrt_test.report_error_async", SLUICE_KERNEL(ReportErrorAsync)},
      {"tfrt_test.report_error_concrete_async",
       SLUICE_KERNEL(ReportErrorConcreteAsync)},
      {"tfrt_test.report_error_indirect_async",
       SLUICE_KERNEL(ReportErrorIndirectAsync)},
      {"tfrt_test.cancel", SLUICE_KERNEL(Cancel)},
  });
}

}  // namespace test_kernels
}  // namespace sluice
