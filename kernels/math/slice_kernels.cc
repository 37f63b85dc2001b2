// tfrt_math.slice_rows: a batch of rows that shares the tensor's bytes.
#include <cstdint>

#include "kernels/math/math_kernels_internal.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/tensor/slicing.h"

namespace sluice {
namespace math_kernels {

absl::Status RegisterSliceKernels(KernelRegistry* registry) {
  return registry->AddKernel("tfrt_math.slice_rows", SLUICE_KERNEL(SliceRows));
}

}  // namespace math_kernels
}  // namespace sluice
