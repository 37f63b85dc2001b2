#include "sluice/gpu/device_tensor.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/gpu/pinned_host_allocator.h"
#include "sluice/gpu/cuda_status.h"
#include "sluice/tensor/host_buffer.h"

namespace sluice {
namespace gpu {
namespace {

std::string Describe(DType dtype, const TensorShape& shape) {
  return absl::StrCat(DTypeName(dtype), " tensor of shape ", shape.ToString());
}

template <typename T>
AsyncValueRef<T> ErrorValue(absl::Status status) {
  return AsyncValueRef<T>(MakeErrorAsyncValueRef(std::move(status)));
}

absl::Status Prefixed(const std::string& what, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(what, ": ", std::string(status.message())));
}

// Makes `result` the value once the work enqueued so far on the stream has
// completed (set on `host`'s work queue, see EventPoller::WatchOnHost).
// `keep_alive` holds the copy's source until then.
template <typename T, typename KeepAlive>
AsyncValueRef<T> ResolveAfterStream(const GpuDevice& device, int stream_index,
                                    HostContext* host, std::string what,
                                    T result, KeepAlive keep_alive) {
  absl::StatusOr<std::unique_ptr<PolledEvent>> event =
      RecordEvent(device, stream_index);
  if (!event.ok()) return ErrorValue<T>(Prefixed(what, event.status()));
  AsyncValueRef<Chain> done = EventPoller::Process().WatchOnHost(
      *std::move(event), host, std::move(what));
  AsyncValueRef<T> value = MakeUnconstructedAsyncValueRef<T>();
  AsyncValue* pending = done.GetAsyncValue();
  pending->AndThen([value = value.CopyRef(), done = std::move(done),
                    result = std::move(result),
                    keep_alive = std::move(keep_alive)]() mutable {
    if (done.IsError()) return value.SetError(done.GetError());
    value.emplace(std::move(result));
  });
  return value;
}

// `bytes` bytes of page-locked host memory, or ResourceExhausted.
absl::StatusOr<RCReference<HostBuffer>> PageLockedBuffer(size_t bytes) {
  RCReference<HostBuffer> buffer =
      HostBuffer::Allocate(bytes, PinnedHostAllocator::Process());
  if (!buffer) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cudaHostAlloc of ", bytes, " page-locked bytes failed"));
  }
  return buffer;
}

// The bytes of `tensor` in page-locked memory, which the device reads
// without making the calling thread wait for the stream: the tensor's own
// buffer when it lies there already (a tensor copied from a device), else a
// copy.
absl::StatusOr<RCReference<HostBuffer>> PageLockedBytes(
    const DenseHostTensor& tensor) {
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, tensor.raw_data()) == cudaSuccess &&
      attributes.type == cudaMemoryTypeHost) {
    return tensor.buffer().CopyRef();
  }
  absl::StatusOr<RCReference<HostBuffer>> staging =
      PageLockedBuffer(tensor.num_bytes());
  if (staging.ok()) {
    std::memcpy((*staging)->data(), tensor.raw_data(), tensor.num_bytes());
  }
  return staging;
}

}  // namespace

absl::StatusOr<RCReference<DeviceBuffer>> DeviceBuffer::Allocate(
    RCReference<GpuDevice> device, int stream_index, size_t size) {
  if (absl::Status status = device->CheckStream(stream_index); !status.ok()) {
    return status;
  }
  if (absl::Status active = device->Activate(); !active.ok()) return active;
  void* data = nullptr;
  // A zero-byte tensor still gets a distinct pointer, as on the host.
  if (absl::Status status = CudaStatus(
          cudaMallocAsync(&data, size == 0 ? 1 : size,
                          device->stream(stream_index)),
          absl::StrCat("cudaMallocAsync of ", size, " bytes on ",
                       device->ToString(), " stream ", stream_index));
      !status.ok()) {
    return status;
  }
  return TakeRef(new DeviceBuffer(std::move(device), stream_index, data, size));
}

DeviceBuffer::~DeviceBuffer() {
  // Errors cannot be reported from here; a failed free leaves the stream's
  // sticky error for the next event on it to report.
  cudaSetDevice(device_->ordinal());
  cudaFreeAsync(data_, device_->stream(stream_index_));
}

absl::StatusOr<DeviceTensor> DeviceTensor::Allocate(
    RCReference<GpuDevice> device, DType dtype, TensorShape shape,
    int stream_index) {
  const size_t element_size = DTypeSize(dtype);
  const uint64_t num_elements = static_cast<uint64_t>(shape.num_elements());
  if (num_elements > SIZE_MAX / element_size) {
    return absl::InvalidArgumentError(
        absl::StrCat(Describe(dtype, shape),
                     " has more bytes than fit in "
                     "memory"));
  }
  absl::StatusOr<RCReference<DeviceBuffer>> buffer = DeviceBuffer::Allocate(
      std::move(device), stream_index, num_elements * element_size);
  if (!buffer.ok()) {
    return Prefixed("allocating " + Describe(dtype, shape), buffer.status());
  }
  return DeviceTensor(dtype, std::move(shape), *std::move(buffer));
}

std::string DeviceTensor::ToString() const {
  return absl::StrCat("DeviceTensor dtype = ", DTypeName(dtype_),
                      ", shape = ", shape_.ToString(),
                      ", device = ", device()->ToString());
}

AsyncValueRef<DeviceTensor> CopyToDevice(const RCReference<GpuDevice>& device,
                                         const DenseHostTensor& tensor,
                                         HostContext* host, int stream_index) {
  const std::string what =
      absl::StrCat("copying ", Describe(tensor.dtype(), tensor.shape()), " to ",
                   device->ToString());
  absl::StatusOr<DeviceTensor> copy = DeviceTensor::Allocate(
      device.CopyRef(), tensor.dtype(), tensor.shape(), stream_index);
  if (!copy.ok()) {
    return ErrorValue<DeviceTensor>(Prefixed(what, copy.status()));
  }
  if (tensor.num_bytes() == 0) {
    return ResolveAfterStream<DeviceTensor>(*device, stream_index, host, what,
                                            *std::move(copy),
                                            RCReference<HostBuffer>());
  }
  absl::StatusOr<RCReference<HostBuffer>> source = PageLockedBytes(tensor);
  if (!source.ok()) {
    return ErrorValue<DeviceTensor>(Prefixed(what, source.status()));
  }
  if (absl::Status status = CudaStatus(
          cudaMemcpyAsync(copy->data(), (*source)->data(), tensor.num_bytes(),
                          cudaMemcpyHostToDevice, device->stream(stream_index)),
          "cudaMemcpyAsync");
      !status.ok()) {
    return ErrorValue<DeviceTensor>(Prefixed(what, status));
  }
  return ResolveAfterStream<DeviceTensor>(*device, stream_index, host, what,
                                          *std::move(copy), *std::move(source));
}

AsyncValueRef<DenseHostTensor> CopyToHost(const DeviceTensor& tensor,
                                          HostContext* host) {
  const GpuDevice& device = *tensor.device();
  const int stream_index = tensor.buffer()->stream_index();
  const std::string what =
      absl::StrCat("copying ", Describe(tensor.dtype(), tensor.shape()),
                   " from ", device.ToString());
  if (absl::Status active = device.Activate(); !active.ok()) {
    return ErrorValue<DenseHostTensor>(Prefixed(what, active));
  }
  absl::StatusOr<RCReference<HostBuffer>> bytes =
      PageLockedBuffer(tensor.num_bytes());
  if (!bytes.ok()) {
    return ErrorValue<DenseHostTensor>(Prefixed(what, bytes.status()));
  }
  absl::StatusOr<DenseHostTensor> copy = DenseHostTensor::Create(
      tensor.dtype(), tensor.shape(), *std::move(bytes));
  if (!copy.ok()) {
    return ErrorValue<DenseHostTensor>(Prefixed(what, copy.status()));
  }
  if (tensor.num_bytes() > 0) {
    if (absl::Status status =
            CudaStatus(cudaMemcpyAsync(
                           copy->raw_data(), tensor.data(), tensor.num_bytes(),
                           cudaMemcpyDeviceToHost, device.stream(stream_index)),
                       "cudaMemcpyAsync");
        !status.ok()) {
      return ErrorValue<DenseHostTensor>(Prefixed(what, status));
    }
  }
  return ResolveAfterStream<DenseHostTensor>(device, stream_index, host, what,
                                             *std::move(copy), tensor);
}

AsyncValueRef<DeviceTensor> CopyOnDevice(const DeviceTensor& tensor,
                                         HostContext* host) {
  const RCReference<GpuDevice>& device = tensor.device();
  const int stream_index = tensor.buffer()->stream_index();
  const std::string what =
      absl::StrCat("copying ", Describe(tensor.dtype(), tensor.shape()), " on ",
                   device->ToString());
  absl::StatusOr<DeviceTensor> copy = DeviceTensor::Allocate(
      device.CopyRef(), tensor.dtype(), tensor.shape(), stream_index);
  if (!copy.ok()) {
    return ErrorValue<DeviceTensor>(Prefixed(what, copy.status()));
  }
  if (tensor.num_bytes() > 0) {
    if (absl::Status status = CudaStatus(
            cudaMemcpyAsync(copy->data(), tensor.data(), tensor.num_bytes(),
                            cudaMemcpyDeviceToDevice,
                            device->stream(stream_index)),
            "cudaMemcpyAsync");
        !status.ok()) {
      return ErrorValue<DeviceTensor>(Prefixed(what, status));
    }
  }
  return ResolveAfterStream<DeviceTensor>(*device, stream_index, host, what,
                                          *std::move(copy), tensor);
}

}  // namespace gpu
}  // namespace sluice
