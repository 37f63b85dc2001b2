// The one list of kernel groups the stock tools register: a new group of
// //kernels/... is added here and nowhere else.
#include "sluice/tools/standard_kernels.h"

#include "kernels/basic/basic_kernels.h"
#include "kernels/ccl/ccl_kernels.h"
#include "kernels/data/data_kernels.h"
#include "kernels/dist/dist_kernels.h"
#include "kernels/ft/ft_kernels.h"
#include "kernels/gpu/gpu_kernels.h"
#include "kernels/math/math_kernels.h"
#include "kernels/tensor/tensor_kernels.h"
#include "kernels/test/test_kernels.h"

namespace sluice {

absl::Status RegisterStandardKernels(KernelRegistry* registry) {
  for (auto* group :
       {&RegisterBasicKernels, &RegisterTestKernels, &RegisterDistKernels,
        &RegisterTensorKernels, &RegisterMathKernels, &RegisterFtKernels,
        &RegisterDataKernels, &RegisterCclKernels, &RegisterGpuKernels}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace sluice
