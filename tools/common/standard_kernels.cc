// The one list of kernel groups the stock tools register: a new group of
// //kernels/... is added here and nowhere else.
#include "sluice/tools/standard_kernels.h"

#include "sluice/kernels/basic_kernels.h"
#include "sluice/kernels/ccl_kernels.h"
#include "sluice/kernels/data_kernels.h"
#include "sluice/kernels/dist_kernels.h"
#include "sluice/kernels/ft_kernels.h"
#include "sluice/kernels/gpu_kernels.h"
#include "sluice/kernels/math_kernels.h"
#include "sluice/kernels/nccl_kernels.h"
#include "sluice/kernels/tensor_kernels.h"
#include "sluice/kernels/test_kernels.h"

namespace sluice {

absl::Status RegisterStandardKernels(KernelRegistry* registry) {
  for (auto* group :
       {&RegisterBasicKernels, &RegisterTestKernels, &RegisterDistKernels,
        &RegisterTensorKernels, &RegisterMathKernels, &RegisterFtKernels,
        &RegisterDataKernels, &RegisterCclKernels, &RegisterGpuKernels,
        &RegisterCclDeviceKernels}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace sluice
