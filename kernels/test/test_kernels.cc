#include "kernels/test/test_kernels.h"

#include "kernels/test/test_kernels_internal.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

void RegisterTestKernels(KernelRegistry* registry) {
  test_kernels::RegisterFailureKernels(registry);
  test_kernels::RegisterAsyncKernels(registry);
  test_kernels::RegisterValueKernels(registry);
  test_kernels::RegisterForwardingKernels(registry);
  test_kernels::RegisterAsyncValueKernels(registry);
  test_kernels::RegisterResourceKernels(registry);
  test_kernels::RegisterRegionKernels(registry);
  test_kernels::RegisterVtKernels(registry);
  test_kernels::RegisterTutorialKernels(registry);
  test_kernels::RegisterNativeFunctions(registry);
  test_kernels::RegisterAttributeKernels(registry);
}

}  // namespace sluice
