#include "sluice/kernels/test_kernels.h"

#include "kernels/test/test_kernels_internal.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

absl::Status RegisterTestKernels(KernelRegistry* registry) {
  for (auto* group :
       {&test_kernels::RegisterFailureKernels,
        &test_kernels::RegisterAsyncKernels,
        &test_kernels::RegisterValueKernels,
        &test_kernels::RegisterForwardingKernels,
        &test_kernels::RegisterAsyncValueKernels,
        &test_kernels::RegisterResourceKernels,
        &test_kernels::RegisterRegionKernels, &test_kernels::RegisterVtKernels,
        &test_kernels::RegisterTutorialKernels,
        &test_kernels::RegisterNativeFunctions,
        &test_kernels::RegisterAttributeKernels}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace sluice
