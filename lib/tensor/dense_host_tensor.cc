#include "sluice/tensor/dense_host_tensor.h"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"

namespace sluice {
namespace {

// Bytes for `num_elements` of `dtype`, or nullopt when size_t overflows.
std::optional<size_t> ByteSize(DType dtype, int64_t num_elements) {
  size_t element_size = DTypeSize(dtype);
  if (static_cast<uint64_t>(num_elements) >
      std::numeric_limits<size_t>::max() / element_size) {
    return std::nullopt;
  }
  return static_cast<size_t>(num_elements) * element_size;
}

template <typename T>
void AppendValue(T value, std::string* out) {
  if constexpr (std::is_floating_point_v<T>) {
    char text[32];
    std::snprintf(text, sizeof(text), "%e", static_cast<double>(value));
    out->append(text);
  } else if constexpr (std::is_same_v<T, bool>) {
    out->append(value ? "1" : "0");
  } else {
    absl::StrAppend(out, value);
  }
}

// How this file reads a T tensor's elements. Every tensor made over a
// buffer shares its bytes, whatever its dtype, so an i1 element may hold
// any byte another view wrote there; loading it as a bool would be
// undefined. It is read as a byte instead, nonzero meaning true.
template <typename T>
using Stored = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

template <typename T>
absl::Span<const Stored<T>> StoredValues(const DenseHostTensor& tensor) {
  if (tensor.raw_data() == nullptr) return {};
  return absl::Span<const Stored<T>>(
      static_cast<const Stored<T>*>(tensor.raw_data()),
      static_cast<size_t>(tensor.num_elements()));
}

}  // namespace

absl::StatusOr<DenseHostTensor> DenseHostTensor::Create(
    DType dtype, TensorShape shape, HostAllocator* allocator) {
  std::optional<size_t> size = ByteSize(dtype, shape.num_elements());
  RCReference<HostBuffer> buffer;
  if (size.has_value()) buffer = HostBuffer::Allocate(*size, allocator);
  if (!buffer) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate an ", DTypeName(dtype), " tensor of shape ",
        shape.ToString(), ": the host allocator refused ",
        size.has_value() ? absl::StrCat(*size, " bytes") : "the size"));
  }
  return DenseHostTensor(dtype, std::move(shape), std::move(buffer));
}

absl::StatusOr<DenseHostTensor> DenseHostTensor::Create(
    DType dtype, TensorShape shape, RCReference<HostBuffer> buffer) {
  std::optional<size_t> size = ByteSize(dtype, shape.num_elements());
  if (!size.has_value() || *size > buffer->size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an ", DTypeName(dtype), " tensor of shape ", shape.ToString(),
        " does not fit in a buffer of ", buffer->size(), " bytes"));
  }
  if (reinterpret_cast<uintptr_t>(buffer->data()) % DTypeSize(dtype) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("a buffer at ", buffer->ToString(), " is not aligned for ",
                     DTypeName(dtype), " elements"));
  }
  return DenseHostTensor(dtype, std::move(shape), std::move(buffer));
}

absl::StatusOr<DenseHostTensor> DenseHostTensor::Clone(
    HostAllocator* allocator) const {
  absl::StatusOr<DenseHostTensor> copy = Create(dtype_, shape_, allocator);
  if (copy.ok() && num_bytes() != 0) {
    std::memcpy(copy->raw_data(), raw_data(), num_bytes());
  }
  return copy;
}

std::string DenseHostTensor::ToString() const {
  std::string out =
      absl::StrCat("DenseHostTensor dtype = ", DTypeName(dtype_),
                   ", shape = ", shape_.ToString(), ", values = [");
  DispatchDType(dtype_, [&](auto element) {
    using T = decltype(element);
    absl::Span<const Stored<T>> elements = StoredValues<T>(*this);
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i != 0) out.append(", ");
      if (static_cast<int64_t>(i) == kMaxPrintedValues) {
        out.append("...");
        break;
      }
      AppendValue(static_cast<T>(elements[i]), &out);
    }
  });
  out.append("]");
  return out;
}

bool TensorsEqual(const DenseHostTensor& a, const DenseHostTensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  return DispatchDType(a.dtype(), [&](auto element) {
    using T = decltype(element);
    absl::Span<const Stored<T>> x = StoredValues<T>(a);
    absl::Span<const Stored<T>> y = StoredValues<T>(b);
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!(static_cast<T>(x[i]) == static_cast<T>(y[i]))) return false;
    }
    return true;
  });
}

}  // namespace sluice
