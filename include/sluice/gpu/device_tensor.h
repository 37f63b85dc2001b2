// Dense tensors in GPU memory: the host tensor's dtype and shape over a
// reference-counted device buffer, and the copies between host and device.
// Copying a DeviceTensor shares its buffer, as copying a DenseHostTensor
// does.
#ifndef SLUICE_GPU_DEVICE_TENSOR_H_
#define SLUICE_GPU_DEVICE_TENSOR_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "sluice/gpu/gpu_device.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/support/ref_count.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice {
namespace gpu {

// Bytes of device memory, allocated and freed in the order of one stream
// of its device (cudaMallocAsync / cudaFreeAsync): work on that stream may
// use them until the last reference is dropped. Work on other streams must
// be ordered before the drop (with an event) by whoever enqueues it.
class DeviceBuffer : public ReferenceCounted<DeviceBuffer> {
 public:
  // ResourceExhausted when the device is out of memory.
  static absl::StatusOr<RCReference<DeviceBuffer>> Allocate(
      RCReference<GpuDevice> device, int stream_index, size_t size);

  void* data() const { return data_; }
  size_t size() const { return size_; }
  const RCReference<GpuDevice>& device() const { return device_; }
  int stream_index() const { return stream_index_; }

 private:
  friend class ReferenceCounted<DeviceBuffer>;
  DeviceBuffer(RCReference<GpuDevice> device, int stream_index, void* data,
               size_t size)
      : device_(std::move(device)),
        stream_index_(stream_index),
        data_(data),
        size_(size) {}
  ~DeviceBuffer();

  RCReference<GpuDevice> device_;
  int stream_index_;
  void* data_;
  size_t size_;
};

class DeviceTensor {
 public:
  // Uninitialized elements on `device`, allocated on stream `stream_index`.
  static absl::StatusOr<DeviceTensor> Allocate(RCReference<GpuDevice> device,
                                               DType dtype, TensorShape shape,
                                               int stream_index = 0);

  DeviceTensor(const DeviceTensor& other)
      : dtype_(other.dtype_),
        shape_(other.shape_),
        buffer_(other.buffer_.CopyRef()) {}
  DeviceTensor& operator=(const DeviceTensor& other) {
    if (this != &other) *this = DeviceTensor(other);
    return *this;
  }
  DeviceTensor(DeviceTensor&&) noexcept = default;
  DeviceTensor& operator=(DeviceTensor&&) noexcept = default;

  DType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t num_bytes() const {
    return static_cast<size_t>(num_elements()) * DTypeSize(dtype_);
  }
  void* data() const { return buffer_->data(); }
  const RCReference<DeviceBuffer>& buffer() const { return buffer_; }
  const RCReference<GpuDevice>& device() const { return buffer_->device(); }

  // "DeviceTensor dtype = f32, shape = [2, 3], device = gpu:0".
  std::string ToString() const;

 private:
  DeviceTensor(DType dtype, TensorShape shape, RCReference<DeviceBuffer> buffer)
      : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {}

  DType dtype_;
  TensorShape shape_;
  RCReference<DeviceBuffer> buffer_;
};

// The copies enqueue on a stream of the device and return at once; their
// value becomes available, on `host`'s work queue, when the copy has
// completed on the device, or an error naming the copy, the tensor's dtype
// and shape and the device. The source stays alive until then.

// `tensor` on stream `stream_index` of `device`.
AsyncValueRef<DeviceTensor> CopyToDevice(const RCReference<GpuDevice>& device,
                                         const DenseHostTensor& tensor,
                                         HostContext* host,
                                         int stream_index = 0);

// `tensor` back in host memory that the device can write asynchronously
// (page-locked, cudaHostAlloc), on the stream its buffer belongs to.
AsyncValueRef<DenseHostTensor> CopyToHost(const DeviceTensor& tensor,
                                          HostContext* host);

// A new device tensor with `tensor`'s elements, on the same stream.
AsyncValueRef<DeviceTensor> CopyOnDevice(const DeviceTensor& tensor,
                                         HostContext* host);

}  // namespace gpu
}  // namespace sluice

#endif  // SLUICE_GPU_DEVICE_TENSOR_H_
