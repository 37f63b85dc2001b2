// The tfrt_gpu kernels. Work goes onto the device's stream and the kernel
// returns at once; its results are set when the event recorded after the
// work completes (the process's EventPoller watches it and hands the result
// to the host's work queue), so no thread waits for the device. Errors,
// from the CUDA calls or from the stream, reach every result through the
// frame, which adds the kernel and its `.mlir` location.
#include "sluice/kernels/gpu_kernels.h"

#include <cstdint>
#include <type_traits>
#include <utility>

#include "sluice/gpu/device_tensor.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {
namespace gpu_kernels {
namespace {

using gpu::DeviceTensor;

// Sets the chain (result 0) and, when `T` is not Chain, `value` as result 1
// once `value` is available; its error goes to both.
template <typename T>
void ResultsWhenReady(AsyncValueRef<T> value, AsyncKernelFrame* frame) {
  AsyncValue* pending = value.GetAsyncValue();
  pending->AndThen([frame = *frame, value = std::move(value)]() mutable {
    if (value.IsError()) return frame.ReportError(value.GetError());
    frame.EmplaceResultAt<Chain>(0);
    if constexpr (!std::is_same_v<T, Chain>) {
      frame.EmplaceResultAt<T>(1, value.get());
    }
  });
}

// The first use initializes the CUDA runtime and the device's context,
// which can take a while: it runs on the blocking pool.
void DeviceGet(Attribute<int64_t> ordinal, AsyncKernelFrame* frame) {
  frame->host()->EnqueueBlockingWork(
      [frame = *frame, ordinal = static_cast<int>(*ordinal)]() mutable {
        absl::StatusOr<DeviceValue> device = gpu::GpuDevice::Shared(ordinal);
        if (!device.ok()) return frame.ReportError(device.status());
        frame.EmplaceResultAt<DeviceValue>(0, *std::move(device));
      });
}

void ToDevice(const DeviceValue& device, const DenseHostTensor& input,
              const Chain&, AsyncKernelFrame* frame) {
  ResultsWhenReady(gpu::CopyToDevice(device, input, frame->host()), frame);
}

void ToHost(const DeviceTensor& input, const Chain&, AsyncKernelFrame* frame) {
  ResultsWhenReady(gpu::CopyToHost(input, frame->host()), frame);
}

void Synchronize(const DeviceValue& device, const Chain&,
                 AsyncKernelFrame* frame) {
  ResultsWhenReady(device->OnStreamDone(0, frame->host()), frame);
}

}  // namespace
}  // namespace gpu_kernels

absl::Status RegisterGpuKernels(KernelRegistry* registry) {
  using namespace gpu_kernels;  // NOLINT: the kernels of this file
  return registry->AddKernels({
      {"tfrt_gpu.device_get",
       SLUICE_KERNEL(DeviceGet).WithAttributeNames({"ordinal"})},
      {"tfrt_gpu.to_device", SLUICE_KERNEL(ToDevice)},
      {"tfrt_gpu.to_host", SLUICE_KERNEL(ToHost)},
      {"tfrt_gpu.synchronize", SLUICE_KERNEL(Synchronize)},
  });
}

}  // namespace sluice
