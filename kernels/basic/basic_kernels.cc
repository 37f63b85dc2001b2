#include "sluice/kernels/basic_kernels.h"

#include "kernels/basic/basic_kernels_internal.h"

namespace sluice {

absl::Status RegisterBasicKernels(KernelRegistry* registry) {
  for (auto* group : {&basic_kernels::RegisterValueKernels,
                      &basic_kernels::RegisterPrintKernels,
                      &basic_kernels::RegisterControlFlowKernels,
                      &basic_kernels::RegisterParallelKernels}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace sluice
