#include "sluice/kernels/ft_kernels.h"

#include "kernels/ft/kernel_groups.h"

namespace sluice {

absl::Status RegisterFtKernels(KernelRegistry* registry) {
  if (absl::Status status = RegisterCheckpointKernels(registry); !status.ok()) {
    return status;
  }
  if (absl::Status status = RegisterStepSignalKernels(registry); !status.ok()) {
    return status;
  }
  return RegisterQuorumKernels(registry);
}

}  // namespace sluice
