// The kernels of the `tfrt_math` dialect: tensor math on dense host tensors.
// docs/tensor_math.md describes every op.
#ifndef SLUICE_KERNELS_MATH_KERNELS_H_
#define SLUICE_KERNELS_MATH_KERNELS_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// Registers every `tfrt_math.*` kernel.
absl::Status RegisterMathKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_MATH_KERNELS_H_
