// Kernels whose results arrive late or from other threads
// (TFRT's tfrt_test ops): the async_* kernels complete
// their results from work-queue tasks, copy.with_delay holds up its own
// thread, and the usleep kernels sleep on the blocking pool.
//
// Every kernel reads only the operands it declares, so the one trailing
// !tfrt.chain operand the spec allows on any op is ignored.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/print.h"

namespace sluice {
namespace test_kernels {
namespace {

// Long enough for other work to overtake a delayed kernel, short enough to
// keep test programs fast.
constexpr absl::Duration kDelay = absl::Milliseconds(2);

// --- Synchronous delay -------------------------------------------------------

template <typename T>
T CopyWithDelay(T value) {
  absl::SleepFor(kDelay);
  return value;
}

// --- Results from work-queue tasks -------------------------------------------

AsyncValueRef<int32_t> AsyncAddI32(int32_t a, int32_t b, HostContext* host) {
  return EnqueueWork(host, [a, b] {
    // Wraps around on overflow like tfrt.add.i32 instead of being undefined.
    return static_cast<int32_t>(static_cast<uint32_t>(a) +
                                static_cast<uint32_t>(b));
  });
}

AsyncValueRef<int32_t> AsyncCopyI32(int32_t value, HostContext* host) {
  return EnqueueWork(host, [value] { return value; });
}

// The sleep would hold up a worker, so it goes to the blocking pool; the
// result is still completed from a work-queue task, like the other async
// kernels.
AsyncValueRef<int32_t> AsyncCopyWithDelayI32(int32_t value, HostContext* host) {
  AsyncValueRef<int32_t> result = MakeUnconstructedAsyncValueRef<int32_t>();
  host->EnqueueBlockingWork([host, value, result = result.CopyRef()]() mutable {
    absl::SleepFor(kDelay);
    host->EnqueueWork(
        [value, result = std::move(result)] { result.emplace(value); });
  });
  return result;
}

// A copy that takes two hops through the work queue: the first task queues
// the second, which completes the result.
AsyncValueRef<int32_t> AsyncCopy2I32(int32_t value, HostContext* host) {
  AsyncValueRef<int32_t> result = MakeUnconstructedAsyncValueRef<int32_t>();
  host->EnqueueWork([host, value, result = result.CopyRef()]() mutable {
    host->EnqueueWork(
        [value, result = std::move(result)] { result.emplace(value); });
  });
  return result;
}

AsyncValueRef<int32_t> AsyncConstantI32(Attribute<int32_t> value,
                                        HostContext* host) {
  return EnqueueWork(host, [value = *value] { return value; });
}

// --- Sleeping on the blocking pool -------------------------------------------

void SleepAndReport(int32_t microseconds) {
  absl::SleepFor(absl::Microseconds(microseconds));
  PrintLine(absl::StrCat("Slept for ", microseconds, " microseconds"));
}

// No result tracks the sleep: the runner's quiesce after each function is
// what waits for it.
void Usleep(int32_t microseconds, HostContext* host) {
  host->EnqueueBlockingWork([microseconds] { SleepAndReport(microseconds); });
}

AsyncValueRef<Chain> BlockingUsleep(int32_t microseconds, HostContext* host) {
  AsyncValueRef<Chain> done = MakeUnconstructedAsyncValueRef<Chain>();
  host->EnqueueBlockingWork([microseconds, done = done.CopyRef()] {
    SleepAndReport(microseconds);
    done.emplace();
  });
  return done;
}

}  // namespace

absl::Status RegisterAsyncKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_test.copy.with_delay.i32", SLUICE_KERNEL(CopyWithDelay<int32_t>)},
      {"tfrt_test.copy.with_delay.i64", SLUICE_KERNEL(CopyWithDelay<int64_t>)},
      {"tfrt_test.async_add.i32", SLUICE_KERNEL(AsyncAddI32)},
      {"tfrt_test.async_copy.i32", SLUICE_KERNEL(AsyncCopyI32)},
      {"tfrt_test.async_copy.with_delay.i32",
       SLUICE_KERNEL(AsyncCopyWithDelayI32)},
      {"tfrt_test.async_copy_2.i32", SLUICE_KERNEL(AsyncCopy2I32)},
      {"tfrt_test.async_constant.i32",
       SLUICE_KERNEL(AsyncConstantI32).WithAttributeNames({"value"})},
      {"tfrt_test.usleep", SLUICE_KERNEL(Usleep)},
      {"tfrt_test.blocking.usleep", SLUICE_KERNEL(BlockingUsleep)},
  });
}

}  // namespace test_kernels
}  // namespace sluice
