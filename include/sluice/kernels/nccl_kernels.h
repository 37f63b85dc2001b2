// The device-tensor kernels of the `tfrt_ccl` dialect (tfrt_ccl.device_*),
// on groups of the NCCL backend (docs/collectives.md, "NCCL").
#ifndef SLUICE_KERNELS_NCCL_KERNELS_H_
#define SLUICE_KERNELS_NCCL_KERNELS_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

absl::Status RegisterCclDeviceKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_NCCL_KERNELS_H_
