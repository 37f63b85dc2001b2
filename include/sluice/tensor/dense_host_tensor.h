// A dense, row-major tensor in host memory: a dtype, a shape and a
// reference-counted buffer. Copying a DenseHostTensor shares its bytes (like
// copying a pointer); Clone copies them.
#ifndef SLUICE_TENSOR_DENSE_HOST_TENSOR_H_
#define SLUICE_TENSOR_DENSE_HOST_TENSOR_H_

#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/logging.h"
#include "sluice/support/ref_count.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/host_buffer.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice {

class DenseHostTensor {
 public:
  // An i32 scalar with no buffer: what a tensor variable holds before it is
  // assigned. Its values are empty; everything else works.
  DenseHostTensor() = default;

  // Uninitialized elements from `allocator`. ResourceExhausted when the
  // allocator refuses the bytes.
  static absl::StatusOr<DenseHostTensor> Create(DType dtype, TensorShape shape,
                                                HostAllocator* allocator);

  // A tensor over the first bytes of `buffer`, shared with it.
  // InvalidArgument when the buffer is too small or not aligned for `dtype`.
  static absl::StatusOr<DenseHostTensor> Create(DType dtype, TensorShape shape,
                                                RCReference<HostBuffer> buffer);

  // A new tensor holding `values` (row-major); InvalidArgument when their
  // count is not the shape's.
  template <typename T>
  static absl::StatusOr<DenseHostTensor> FromValues(TensorShape shape,
                                                    absl::Span<const T> values,
                                                    HostAllocator* allocator);

  DenseHostTensor(const DenseHostTensor& other)
      : dtype_(other.dtype_),
        shape_(other.shape_),
        buffer_(other.buffer_.CopyRef()) {}
  DenseHostTensor& operator=(const DenseHostTensor& other) {
    if (this != &other) *this = DenseHostTensor(other);
    return *this;
  }
  DenseHostTensor(DenseHostTensor&&) noexcept = default;
  DenseHostTensor& operator=(DenseHostTensor&&) noexcept = default;

  // A copy of the elements in a new buffer from `allocator`.
  absl::StatusOr<DenseHostTensor> Clone(HostAllocator* allocator) const;

  DType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t num_bytes() const {
    return buffer_ ? static_cast<size_t>(num_elements()) * DTypeSize(dtype_)
                   : 0;
  }
  const RCReference<HostBuffer>& buffer() const { return buffer_; }

  const void* raw_data() const { return buffer_ ? buffer_->data() : nullptr; }
  void* raw_data() { return buffer_ ? buffer_->data() : nullptr; }

  // The elements as T, which must be the C++ type of dtype().
  template <typename T>
  absl::Span<const T> values() const {
    SLUICE_DCHECK(DTypeOf<T>() == dtype_);
    if (!buffer_) return {};
    // Parentheses: braces would pick Span<const bool>'s initializer-list
    // constructor.
    return absl::Span<const T>(static_cast<const T*>(buffer_->data()),
                               static_cast<size_t>(num_elements()));
  }
  template <typename T>
  absl::Span<T> mutable_values() {
    SLUICE_DCHECK(DTypeOf<T>() == dtype_);
    if (!buffer_) return {};
    return absl::Span<T>(static_cast<T*>(buffer_->data()),
                         static_cast<size_t>(num_elements()));
  }

  // "DenseHostTensor dtype = i32, shape = [2, 2], values = [1, 1, 1, 1]",
  // TFRT's format (floating point as %e). Past kMaxPrintedValues elements,
  // the rest print as "...".
  static constexpr int64_t kMaxPrintedValues = 256;
  std::string ToString() const;

 private:
  DenseHostTensor(DType dtype, TensorShape shape,
                  RCReference<HostBuffer> buffer)
      : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {}

  DType dtype_ = DType::kI32;
  TensorShape shape_;
  RCReference<HostBuffer> buffer_;
};

// Same dtype, same shape, equal elements (floating point compares with ==,
// so NaN never equals itself, as in TFRT's tensor_equal).
bool TensorsEqual(const DenseHostTensor& a, const DenseHostTensor& b);

template <typename T>
absl::StatusOr<DenseHostTensor> DenseHostTensor::FromValues(
    TensorShape shape, absl::Span<const T> values, HostAllocator* allocator) {
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    return absl::InvalidArgumentError(
        "tensor of shape " + shape.ToString() + " needs " +
        std::to_string(shape.num_elements()) + " values, got " +
        std::to_string(values.size()));
  }
  absl::StatusOr<DenseHostTensor> tensor =
      Create(DTypeOf<T>(), std::move(shape), allocator);
  if (!tensor.ok()) return tensor;
  if (!values.empty()) {
    std::memcpy(tensor->raw_data(), values.data(), values.size() * sizeof(T));
  }
  return tensor;
}

}  // namespace sluice

#endif  // SLUICE_TENSOR_DENSE_HOST_TENSOR_H_
