// The tfrt_ccl.device_* kernels. Each enqueues its collective on the NCCL
// group's stream and returns at once; the chain and the tensor are set when
// the watchdog finds the collective done (or its error), on the host's work
// queue, so that nothing downstream runs on the watchdog's thread. A group
// of another backend is a fatal error naming it.
#include "sluice/kernels/nccl_kernels.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "sluice/collective/nccl_group.h"
#include "sluice/gpu/device_tensor.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernels/ccl_kernels.h"

namespace sluice {
namespace ccl_device_kernels {
namespace {

using gpu::DeviceTensor;

absl::Duration Timeout(OptionalAttribute<int64_t> timeout_ms) {
  return timeout_ms ? absl::Milliseconds(*timeout_ms)
                    : absl::InfiniteDuration();
}

// The NCCL group behind `group`, or an error for the frame.
ccl::NcclGroup* AsNccl(const GroupValue& group, AsyncKernelFrame* frame) {
  auto* nccl = dynamic_cast<ccl::NcclGroup*>(group.get());
  if (nccl == nullptr) {
    frame->ReportError(absl::InvalidArgumentError(
        "device-tensor collectives need a group of the nccl backend (made "
        "where the process sees a CUDA device); this one is not"));
  }
  return nccl;
}

// Sets the chain and, unless `T` is Chain, the value as result 1 once
// `value` is available, on the host's work queue.
template <typename T>
void ResultsWhenReady(AsyncValueRef<T> value, AsyncKernelFrame* frame) {
  AsyncValue* pending = value.GetAsyncValue();
  pending->AndThen([frame = *frame, value = std::move(value)]() mutable {
    frame.host()->EnqueueWork(
        [frame = std::move(frame), value = std::move(value)]() mutable {
          if (value.IsError()) return frame.ReportError(value.GetError());
          frame.EmplaceResultAt<Chain>(0);
          if constexpr (!std::is_same_v<T, Chain>) {
            frame.EmplaceResultAt<T>(1, std::move(value.get()));
          }
        });
  });
}

void DeviceAllReduce(const GroupValue& group, const DeviceTensor& input,
                     const Chain&, StringAttribute reduction,
                     OptionalAttribute<int64_t> timeout_ms,
                     AsyncKernelFrame* frame) {
  absl::StatusOr<ccl::ReduceOp> op = ccl::ParseReduceOp(reduction.get());
  if (!op.ok()) return frame->ReportError(op.status());
  if (ccl::NcclGroup* nccl = AsNccl(group, frame)) {
    ResultsWhenReady(nccl->DeviceAllReduce(input, *op, Timeout(timeout_ms)),
                     frame);
  }
}

void DeviceReduceScatter(const GroupValue& group, const DeviceTensor& input,
                         const Chain&, StringAttribute reduction,
                         OptionalAttribute<int64_t> timeout_ms,
                         AsyncKernelFrame* frame) {
  absl::StatusOr<ccl::ReduceOp> op = ccl::ParseReduceOp(reduction.get());
  if (!op.ok()) return frame->ReportError(op.status());
  if (ccl::NcclGroup* nccl = AsNccl(group, frame)) {
    ResultsWhenReady(nccl->DeviceReduceScatter(input, *op, Timeout(timeout_ms)),
                     frame);
  }
}

void DeviceAllGather(const GroupValue& group, const DeviceTensor& input,
                     const Chain&, OptionalAttribute<int64_t> timeout_ms,
                     AsyncKernelFrame* frame) {
  if (ccl::NcclGroup* nccl = AsNccl(group, frame)) {
    ResultsWhenReady(nccl->DeviceAllGather(input, Timeout(timeout_ms)), frame);
  }
}

void DeviceAllToAll(const GroupValue& group, const DeviceTensor& input,
                    const Chain&, OptionalAttribute<int64_t> timeout_ms,
                    AsyncKernelFrame* frame) {
  if (ccl::NcclGroup* nccl = AsNccl(group, frame)) {
    ResultsWhenReady(nccl->DeviceAllToAll(input, Timeout(timeout_ms)), frame);
  }
}

void DeviceBroadcast(const GroupValue& group, const DeviceTensor& input,
                     const Chain&, Attribute<int64_t> root,
                     OptionalAttribute<int64_t> timeout_ms,
                     AsyncKernelFrame* frame) {
  if (ccl::NcclGroup* nccl = AsNccl(group, frame)) {
    ResultsWhenReady(nccl->DeviceBroadcast(input, static_cast<int>(*root),
                                           Timeout(timeout_ms)),
                     frame);
  }
}

void DeviceSend(const GroupValue& group, const DeviceTensor& input,
                const Chain&, Attribute<int64_t> peer,
                OptionalAttribute<int64_t> timeout_ms,
                AsyncKernelFrame* frame) {
  if (ccl::NcclGroup* nccl = AsNccl(group, frame)) {
    ResultsWhenReady(
        nccl->DeviceSend(input, static_cast<int>(*peer), Timeout(timeout_ms)),
        frame);
  }
}

void DeviceRecv(const GroupValue& group, const Chain&, Attribute<int64_t> peer,
                StringAttribute dtype_name, AggregateAttribute dims,
                OptionalAttribute<int64_t> timeout_ms,
                AsyncKernelFrame* frame) {
  absl::StatusOr<std::pair<DType, TensorShape>> type =
      ReceivedTensorType(dtype_name, dims);
  if (!type.ok()) return frame->ReportError(type.status());
  if (ccl::NcclGroup* nccl = AsNccl(group, frame)) {
    ResultsWhenReady(
        nccl->DeviceRecv(type->first, type->second, static_cast<int>(*peer),
                         Timeout(timeout_ms)),
        frame);
  }
}

}  // namespace
}  // namespace ccl_device_kernels

absl::Status RegisterCclDeviceKernels(KernelRegistry* registry) {
  using namespace ccl_device_kernels;  // NOLINT: the kernels of this file
  return registry->AddKernels({
      {"tfrt_ccl.device_allreduce",
       SLUICE_KERNEL(DeviceAllReduce)
           .WithAttributeNames({"reduction", "timeout_ms"})},
      {"tfrt_ccl.device_reduce_scatter",
       SLUICE_KERNEL(DeviceReduceScatter)
           .WithAttributeNames({"reduction", "timeout_ms"})},
      {"tfrt_ccl.device_allgather",
       SLUICE_KERNEL(DeviceAllGather).WithAttributeNames({"timeout_ms"})},
      {"tfrt_ccl.device_all_to_all",
       SLUICE_KERNEL(DeviceAllToAll).WithAttributeNames({"timeout_ms"})},
      {"tfrt_ccl.device_broadcast",
       SLUICE_KERNEL(DeviceBroadcast)
           .WithAttributeNames({"root", "timeout_ms"})},
      {"tfrt_ccl.device_send",
       SLUICE_KERNEL(DeviceSend).WithAttributeNames({"peer", "timeout_ms"})},
      {"tfrt_ccl.device_recv",
       SLUICE_KERNEL(DeviceRecv)
           .WithAttributeNames({"peer", "dtype", "shape", "timeout_ms"})},
  });
}

}  // namespace sluice
