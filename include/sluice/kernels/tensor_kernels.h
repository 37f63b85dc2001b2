// The kernels of the `tfrt_dht` and `ts` dialects (as TFRT defines them):
// dense host tensors, shapes and host buffers. docs/tensors.md describes
// every op.
#ifndef SLUICE_KERNELS_TENSOR_KERNELS_H_
#define SLUICE_KERNELS_TENSOR_KERNELS_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// Registers every `tfrt_dht.*` and `ts.*` kernel.
absl::Status RegisterTensorKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_TENSOR_KERNELS_H_
