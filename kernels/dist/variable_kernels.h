// The variable ops of the `tfrt_dist` dialect (docs/variables.md), part of
// RegisterDistKernels. The payload of !tfrt_dist.variable is
// dist::VariableHandle.
#ifndef SLUICE_KERNELS_DIST_VARIABLE_KERNELS_H_
#define SLUICE_KERNELS_DIST_VARIABLE_KERNELS_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

absl::Status RegisterVariableKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_DIST_VARIABLE_KERNELS_H_
