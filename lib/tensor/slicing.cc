#include "sluice/tensor/slicing.h"

#include <string>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "lib/tensor/math_operands.h"

namespace sluice {

absl::StatusOr<DenseHostTensor> SliceRows(const DenseHostTensor& x,
                                          int64_t begin, int64_t size) {
  constexpr char kOp[] = "slice_rows";
  if (absl::Status s = tensor_internal::CheckHaveBuffers(kOp, {&x}); !s.ok()) {
    return s;
  }
  const TensorShape& shape = x.shape();
  if (shape.rank() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kOp, ": a scalar has no rows"));
  }
  const int64_t rows = shape.dim(0);
  if (begin < 0 || size < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        kOp, ": begin ", begin, " and size ", size, " must not be negative"));
  }
  // begin <= rows first, so rows - begin cannot overflow.
  if (begin > rows || size > rows - begin) {
    return absl::InvalidArgumentError(absl::StrCat(
        kOp, ": ", size, " rows from row ", begin, " are past the end of ",
        shape.ToString(), ", which has ", rows));
  }
  absl::InlinedVector<int64_t, 4> dims(shape.dims().begin(),
                                       shape.dims().end());
  dims[0] = size;
  // No more elements than x has.
  TensorShape slice_shape = *TensorShape::Create(dims);
  const size_t element_size = DTypeSize(x.dtype());
  // A row of a valid shape fits in int64: rows * row_elements does.
  const int64_t row_elements = rows == 0 ? 0 : x.num_elements() / rows;
  const size_t row_bytes = static_cast<size_t>(row_elements) * element_size;
  RCReference<HostBuffer> bytes =
      HostBuffer::Slice(x.buffer(), static_cast<size_t>(begin) * row_bytes,
                        static_cast<size_t>(size) * row_bytes);
  // x's buffer holds all its rows, so the range lies inside it.
  return DenseHostTensor::Create(x.dtype(), std::move(slice_shape),
                                 std::move(bytes));
}

}  // namespace sluice
