// Slices of a dense host tensor that share its bytes.
#ifndef SLUICE_TENSOR_SLICING_H_
#define SLUICE_TENSOR_SLICING_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {

// Rows [begin, begin + size) of the first dimension of `x` (rank 1 or
// more): a batch of a data set. Row-major rows are contiguous, so the slice
// shares x's buffer (HostBuffer::Slice) instead of copying it, keeps that
// buffer alive, and sees later writes to it. The slice's bytes are aligned
// to its element size only, not to HostBuffer::kAlignment.
//
// InvalidArgument for a scalar, a negative begin or size, or rows past the
// end ("slice_rows: 4 rows from row 8 are past the end of [10, 3], which
// has 10").
absl::StatusOr<DenseHostTensor> SliceRows(const DenseHostTensor& x,
                                          int64_t begin, int64_t size);

}  // namespace sluice

#endif  // SLUICE_TENSOR_SLICING_H_
