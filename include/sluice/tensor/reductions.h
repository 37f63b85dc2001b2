// Reductions of a dense host tensor over one axis or over every element.
//
// An axis is in [-rank, rank); a negative one counts from the end (-1 is the
// last). Reducing over an axis drops it: sum over axis 1 of [2, 3, 4] is
// [2, 4]. Reducing over every element gives a scalar (shape []). Results
// are new tensors from `allocator`.
#ifndef SLUICE_TENSOR_REDUCTIONS_H_
#define SLUICE_TENSOR_REDUCTIONS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {

// Sum: i32, i64 (wrapping on overflow), f32 and f64; an empty axis sums to
// 0. Floating-point terms are added in f64, pairwise, and the sum rounded
// to the dtype once: before that rounding it is within
// (18 + ceil(log2 n)) * 2^-53 * sum(|x|) of the exact sum of n terms, at
// any length (docs/tensor_math.md).
absl::StatusOr<DenseHostTensor> ReduceSum(const DenseHostTensor& x,
                                          int64_t axis,
                                          HostAllocator* allocator);
absl::StatusOr<DenseHostTensor> ReduceSumAll(const DenseHostTensor& x,
                                             HostAllocator* allocator);

// Mean: f32 and f64 (an integer mean would need rounding): the f64 sum, as
// above, divided by the count and rounded once. InvalidArgument for an empty
// axis, whose mean is undefined.
absl::StatusOr<DenseHostTensor> ReduceMean(const DenseHostTensor& x,
                                           int64_t axis,
                                           HostAllocator* allocator);
absl::StatusOr<DenseHostTensor> ReduceMeanAll(const DenseHostTensor& x,
                                              HostAllocator* allocator);

// Max: i32, i64, f32 and f64; NaN wins over any number. InvalidArgument
// for an empty axis.
absl::StatusOr<DenseHostTensor> ReduceMax(const DenseHostTensor& x,
                                          int64_t axis,
                                          HostAllocator* allocator);
absl::StatusOr<DenseHostTensor> ReduceMaxAll(const DenseHostTensor& x,
                                             HostAllocator* allocator);

// The index of the largest element along `axis`, as i64, of x's shape
// without that axis. The first of equal maxima wins, and a NaN wins over
// any number (the first NaN, if several). i32, i64, f32 and f64;
// InvalidArgument for an empty axis.
absl::StatusOr<DenseHostTensor> ArgMax(const DenseHostTensor& x, int64_t axis,
                                       HostAllocator* allocator);

}  // namespace sluice

#endif  // SLUICE_TENSOR_REDUCTIONS_H_
