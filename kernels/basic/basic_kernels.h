// The kernels of the `tfrt` dialect (shared/spec/tfrt_ops.md).
#ifndef SLUICE_KERNELS_BASIC_BASIC_KERNELS_H_
#define SLUICE_KERNELS_BASIC_BASIC_KERNELS_H_

#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// Registers every `tfrt.*` kernel.
absl::Status RegisterBasicKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_BASIC_BASIC_KERNELS_H_
