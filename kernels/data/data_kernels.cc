#include "sluice/kernels/data_kernels.h"

#include "kernels/data/data_kernels_internal.h"

namespace sluice {

absl::Status RegisterDataKernels(KernelRegistry* registry) {
  if (absl::Status status = data_kernels::RegisterDatasetKernels(registry);
      !status.ok()) {
    return status;
  }
  return data_kernels::RegisterIteratorKernels(registry);
}

}  // namespace sluice
