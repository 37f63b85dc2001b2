// The kernels of the `tfrt` dialect (as TFRT defines them).
#ifndef SLUICE_KERNELS_BASIC_KERNELS_H_
#define SLUICE_KERNELS_BASIC_KERNELS_H_

#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// Registers every `tfrt.*` kernel.
absl::Status RegisterBasicKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_BASIC_KERNELS_H_
