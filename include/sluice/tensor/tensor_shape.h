// The shape of a dense tensor: a list of non-negative dimensions, row-major.
#ifndef SLUICE_TENSOR_TENSOR_SHAPE_H_
#define SLUICE_TENSOR_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace sluice {

class TensorShape {
 public:
  // Shapes come from programs and from the wire, so limits are checked here
  // once rather than by every kernel.
  static constexpr int kMaxRank = 32;

  // A scalar: rank 0, one element.
  TensorShape() = default;

  // InvalidArgument for a negative dimension, a rank over kMaxRank, or an
  // element count that does not fit in int64_t.
  static absl::StatusOr<TensorShape> Create(absl::Span<const int64_t> dims);

  // For shapes known to be valid (constants in code and tests); dies on an
  // invalid one.
  TensorShape(std::initializer_list<int64_t> dims);

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  absl::Span<const int64_t> dims() const { return dims_; }
  int64_t num_elements() const { return num_elements_; }

  // "[2, 3]"; "[]" for a scalar.
  std::string ToString() const;

  friend bool operator==(const TensorShape& a, const TensorShape& b) {
    return a.dims_ == b.dims_;
  }
  friend bool operator!=(const TensorShape& a, const TensorShape& b) {
    return !(a == b);
  }

 private:
  absl::InlinedVector<int64_t, 4> dims_;
  int64_t num_elements_ = 1;
};

}  // namespace sluice

#endif  // SLUICE_TENSOR_TENSOR_SHAPE_H_
