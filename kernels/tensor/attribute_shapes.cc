// Errors that name the op, and shapes read from array attributes.
#include <vector>

#include "kernels/tensor/tensor_kernels_internal.h"

namespace sluice {
namespace tensor_kernels {

absl::Status PrefixOp(std::string_view op, const absl::Status& status) {
  return absl::Status(
      status.code(),
      absl::StrCat(std::string(op), ": ", std::string(status.message())));
}

absl::StatusOr<TensorShape> ShapeFromAttribute(std::string_view op,
                                               const AggregateAttribute& dims) {
  std::vector<int64_t> values;
  values.reserve(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const auto type = static_cast<bef::AttributeType>(dims.type(i));
    if (type != bef::AttributeType::kI64) {
      return OpError(op, "dimension ", i, " is an attribute of type ",
                     bef::AttributeTypeName(type), "; dimensions are i64");
    }
    values.push_back(*Attribute<int64_t>(dims.data(i)));
  }
  absl::StatusOr<TensorShape> shape = TensorShape::Create(values);
  if (!shape.ok()) return PrefixOp(op, shape.status());
  return shape;
}

}  // namespace tensor_kernels
}  // namespace sluice
