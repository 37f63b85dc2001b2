// The kernels of the `tfrt_gpu` dialect (docs/gpu.md). A `!tfrt_gpu.device`
// value holds a DeviceValue, a `!tfrt_gpu.tensor` value a gpu::DeviceTensor.
#ifndef SLUICE_KERNELS_GPU_KERNELS_H_
#define SLUICE_KERNELS_GPU_KERNELS_H_

#include "absl/status/status.h"
#include "sluice/gpu/gpu_device.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/ref_count.h"

namespace sluice {

// The payload of a `!tfrt_gpu.device` value: kernels of other dialects that
// run on a device (collectives) take one of these.
using DeviceValue = RCReference<gpu::GpuDevice>;

absl::Status RegisterGpuKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_GPU_KERNELS_H_
