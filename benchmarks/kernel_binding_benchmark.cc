// Cost of calling a kernel through the binding layer, outside any executor:
// what the binding itself adds to the call of the C++ function.
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernel/llvm_kernel_binding.h"

namespace sluice {
namespace {

int32_t AddI32(int32_t a, int32_t b) { return a + b; }

llvm::Expected<int32_t> CheckedAdd(int32_t a, int32_t b) {
  if (b == INT32_MIN) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "overflow");
  }
  return a + b;
}

// Two available arguments, one result made and dropped per call, through a
// function pointer as the executor calls kernels.
void BM_SyncKernel(benchmark::State& state, KernelImplementation kernel) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   CreateSingleThreadedWorkQueue());
  ExecutionContext context(RequestContext::Create(&host));
  KernelDebugInfo info{"tfrt.add.i32", std::nullopt};
  AsyncValueRef<int32_t> a = MakeAvailableAsyncValueRef<int32_t>(1);
  AsyncValueRef<int32_t> b = MakeAvailableAsyncValueRef<int32_t>(2);
  AsyncValue* arguments[] = {a.GetAsyncValue(), b.GetAsyncValue()};
  RCReference<AsyncValue> results[1];
  KernelFrame frame(&context, &info);
  frame.Reset(arguments, {}, results);
  for (auto _ : state) {
    kernel(&frame);
    benchmark::DoNotOptimize(results[0].get());
    results[0].reset();
  }
}
BENCHMARK_CAPTURE(BM_SyncKernel, plain, SLUICE_KERNEL(AddI32).implementation());
BENCHMARK_CAPTURE(BM_SyncKernel, expected,
                  SLUICE_KERNEL(CheckedAdd).implementation());

}  // namespace
}  // namespace sluice
