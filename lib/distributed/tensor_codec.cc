#include "lib/distributed/tensor_codec.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "sluice/tensor/i1_bytes.h"

namespace sluice::dist {

// The wire carries elements little-endian, and the codec copies them as
// they are: a big-endian host would need a byte swap here.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the tensor codec copies elements in host byte order, which "
              "must be the wire's little-endian order");

std::string WireTensor::Describe() const {
  return absl::StrCat(DTypeName(dtype), " ", shape.ToString());
}

std::string DescribeTensor(const DenseHostTensor& tensor) {
  return absl::StrCat(DTypeName(tensor.dtype()), " ",
                      tensor.shape().ToString());
}

absl::StatusOr<WireTensor> CheckTensor(const proto::Tensor& tensor) {
  std::optional<DType> dtype;
  if (tensor.dtype() <= std::numeric_limits<uint8_t>::max()) {
    dtype = DTypeFromByte(static_cast<uint8_t>(tensor.dtype()));
  }
  if (!dtype.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor message has unknown dtype ", tensor.dtype()));
  }
  absl::StatusOr<TensorShape> shape = TensorShape::Create(
      absl::MakeConstSpan(tensor.dims().data(), tensor.dims().size()));
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor message has an invalid shape: ", shape.status().message()));
  }
  WireTensor wire;
  wire.dtype = *dtype;
  wire.shape = *std::move(shape);
  wire.data = tensor.data().data();
  wire.size = tensor.data().size();

  const size_t element_size = DTypeSize(wire.dtype);
  const uint64_t elements = static_cast<uint64_t>(wire.shape.num_elements());
  if (elements > wire.size / element_size ||
      elements * element_size != wire.size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor message (", wire.Describe(), ") carries ", wire.size,
        " bytes, but its ", elements, " element(s) of ", element_size,
        " byte(s) need ",
        elements > std::numeric_limits<uint64_t>::max() / element_size
            ? std::string("more than 2^64")
            : absl::StrCat(elements * element_size)));
  }
  if (wire.dtype == DType::kI1) {
    if (absl::Status bytes = CheckI1Bytes(absl::MakeConstSpan(
            reinterpret_cast<const uint8_t*>(wire.data), wire.size));
        !bytes.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tensor message (", wire.Describe(), "): ", bytes.message()));
    }
  }
  return wire;
}

absl::StatusOr<DenseHostTensor> DecodeTensor(const proto::Tensor& tensor,
                                             HostAllocator* allocator) {
  absl::StatusOr<WireTensor> wire = CheckTensor(tensor);
  if (!wire.ok()) return wire.status();
  absl::StatusOr<DenseHostTensor> decoded =
      DenseHostTensor::Create(wire->dtype, std::move(wire->shape), allocator);
  if (decoded.ok() && wire->size != 0) {
    std::memcpy(decoded->raw_data(), wire->data, wire->size);
  }
  return decoded;
}

absl::Status EncodeTensor(const DenseHostTensor& tensor, proto::Tensor* out) {
  if (tensor.buffer() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot send a tensor that holds no elements yet (",
                     DescribeTensor(tensor), ", never assigned)"));
  }
  // An i1 tensor's bytes may have been written through a view of another
  // dtype since it was made: the peer would refuse them, so refuse them
  // here, where the error belongs.
  if (tensor.dtype() == DType::kI1) {
    if (absl::Status bytes = CheckI1Bytes(
            absl::MakeConstSpan(static_cast<const uint8_t*>(tensor.raw_data()),
                                tensor.num_bytes()));
        !bytes.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot send a tensor (",
                                                     DescribeTensor(tensor),
                                                     "): ", bytes.message()));
    }
  }
  out->set_dtype(static_cast<uint32_t>(tensor.dtype()));
  out->mutable_dims()->Add(tensor.shape().dims().begin(),
                           tensor.shape().dims().end());
  out->set_data(tensor.raw_data(), tensor.num_bytes());
  return absl::OkStatus();
}

}  // namespace sluice::dist
