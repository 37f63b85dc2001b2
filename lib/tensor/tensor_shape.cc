#include "sluice/tensor/tensor_shape.h"

#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sluice/support/logging.h"

namespace sluice {

absl::StatusOr<TensorShape> TensorShape::Create(
    absl::Span<const int64_t> dims) {
  if (dims.size() > kMaxRank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a tensor of rank ", dims.size(), " is over the limit of ", kMaxRank));
  }
  TensorShape shape;
  shape.dims_.assign(dims.begin(), dims.end());
  for (int64_t dim : dims) {
    if (dim < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape ", shape.ToString(), " has a negative dimension"));
    }
    if (dim != 0 &&
        shape.num_elements_ > std::numeric_limits<int64_t>::max() / dim) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape ", shape.ToString(), " has more elements than int64 counts"));
    }
    shape.num_elements_ *= dim;
  }
  return shape;
}

TensorShape::TensorShape(std::initializer_list<int64_t> dims) {
  absl::StatusOr<TensorShape> shape =
      Create(absl::Span<const int64_t>(dims.begin(), dims.size()));
  SLUICE_CHECK(shape.ok()) << shape.status().message();
  *this = *std::move(shape);
}

std::string TensorShape::ToString() const {
  return absl::StrCat("[", absl::StrJoin(dims_, ", "), "]");
}

}  // namespace sluice
