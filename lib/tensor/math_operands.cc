#include "lib/tensor/math_operands.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice {
namespace tensor_internal {

absl::Status UnsupportedDType(std::string_view op, DType dtype,
                              std::string_view supported) {
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(op), ": ", DTypeName(dtype),
      " tensors are not supported; it takes ", std::string(supported)));
}

absl::Status CheckHaveBuffers(
    std::string_view op,
    std::initializer_list<const DenseHostTensor*> tensors) {
  int index = 0;
  for (const DenseHostTensor* tensor : tensors) {
    if (!tensor->buffer()) {
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(op), ": operand #", index,
          " is an empty tensor with no buffer (a variable never assigned?)"));
    }
    ++index;
  }
  return absl::OkStatus();
}

absl::Status CheckSameDType(std::string_view op, const DenseHostTensor& a,
                            const DenseHostTensor& b) {
  if (a.dtype() == b.dtype()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(op), ": operands are ", DTypeName(a.dtype()), " and ",
      DTypeName(b.dtype()), "; they must have the same dtype"));
}

absl::Status CheckRank(std::string_view op, std::string_view what,
                       const DenseHostTensor& tensor, int rank) {
  if (tensor.shape().rank() == rank) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(op), ": ", std::string(what), " must have rank ",
                   rank, ", got ", tensor.shape().ToString()));
}

absl::Status CheckLabels(std::string_view op, const DenseHostTensor& labels,
                         int64_t batch, int64_t num_classes) {
  if (labels.dtype() != DType::kI32 && labels.dtype() != DType::kI64) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(op), ": labels are ",
                     DTypeName(labels.dtype()), "; they must be i32 or i64"));
  }
  if (labels.shape().rank() != 1 || labels.shape().dim(0) != batch) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(op), ": labels of shape ",
                     labels.shape().ToString(), " do not fit a batch of ",
                     batch, "; they must have shape [", batch, "]"));
  }
  for (int64_t row = 0; row < batch; ++row) {
    int64_t label = LabelAt(labels, row);
    if (label < 0 || label >= num_classes) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(op), ": label ", label, " of row ", row,
                       " is outside [0, ", num_classes, ")"));
    }
  }
  return absl::OkStatus();
}

int64_t LabelAt(const DenseHostTensor& labels, int64_t row) {
  if (labels.dtype() == DType::kI32) return labels.values<int32_t>()[row];
  return labels.values<int64_t>()[row];
}

absl::StatusOr<int> NormalizeAxis(std::string_view op, const TensorShape& shape,
                                  int64_t axis) {
  const int rank = shape.rank();
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(op), ": axis ", axis, " is outside [", -rank,
                     ", ", rank, ") for a tensor of shape ", shape.ToString()));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

TensorShape RemoveAxis(const TensorShape& shape, int axis) {
  absl::InlinedVector<int64_t, 4> dims(shape.dims().begin(),
                                       shape.dims().end());
  dims.erase(dims.begin() + axis);
  // Fewer dimensions of a valid shape are valid.
  return *TensorShape::Create(dims);
}

absl::StatusOr<TensorShape> ResultShape(std::string_view op,
                                        absl::Span<const int64_t> dims) {
  absl::StatusOr<TensorShape> shape = TensorShape::Create(dims);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(op), ": result ", shape.status().message()));
  }
  return shape;
}

absl::StatusOr<DenseHostTensor> AllocateResult(std::string_view op, DType dtype,
                                               TensorShape shape,
                                               HostAllocator* allocator) {
  absl::StatusOr<DenseHostTensor> result =
      DenseHostTensor::Create(dtype, std::move(shape), allocator);
  if (!result.ok()) {
    return absl::Status(
        result.status().code(),
        absl::StrCat(std::string(op), ": ", result.status().message()));
  }
  return result;
}

}  // namespace tensor_internal
}  // namespace sluice
