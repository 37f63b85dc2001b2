#include "sluice/kernels/tensor_kernels.h"

#include "kernels/tensor/tensor_kernels_internal.h"

namespace sluice {

absl::Status RegisterTensorKernels(KernelRegistry* registry) {
  for (auto* group : {&tensor_kernels::RegisterDenseHostTensorKernels,
                      &tensor_kernels::RegisterBufferKernels,
                      &tensor_kernels::RegisterShapeKernels}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace sluice
