// The kernels of the `tfrt_data` dialect: datasets and iterators over
// //lib/data. docs/datasets.md describes every op.
#ifndef SLUICE_KERNELS_DATA_KERNELS_H_
#define SLUICE_KERNELS_DATA_KERNELS_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// Registers every `tfrt_data.*` kernel.
absl::Status RegisterDataKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_DATA_KERNELS_H_
