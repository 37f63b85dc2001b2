// Element-by-element arithmetic on dense host tensors.
//
// The binary ops take i32, i64, f32 or f64 operands of one dtype. The right
// operand `b` either has the left operand's shape, or is broadcast:
//   - a scalar (shape []) applies to every element of `a`;
//   - a vector of shape [n], where n is the last dimension of `a` (rank 2 or
//     more), applies to every row of `a`: the bias of a layer, added to each
//     example of a batch [batch, n].
// The left operand is never broadcast, so the result has a's shape.
//
// Integers wrap around on overflow (two's complement), divide truncating
// toward zero, and a zero divisor is an error; floating point follows IEEE
// (x / 0 is an infinity or NaN).
#ifndef SLUICE_TENSOR_ELEMENTWISE_H_
#define SLUICE_TENSOR_ELEMENTWISE_H_

#include "absl/status/statusor.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {

// a + b, a - b, a * b and a / b, a new tensor from `allocator`.
// InvalidArgument for dtypes that differ or are not supported, shapes that
// do not broadcast ("add: cannot broadcast [3] onto [2, 4]: ..."), and an
// integer zero divisor.
absl::StatusOr<DenseHostTensor> Add(const DenseHostTensor& a,
                                    const DenseHostTensor& b,
                                    HostAllocator* allocator);
absl::StatusOr<DenseHostTensor> Sub(const DenseHostTensor& a,
                                    const DenseHostTensor& b,
                                    HostAllocator* allocator);
absl::StatusOr<DenseHostTensor> Mul(const DenseHostTensor& a,
                                    const DenseHostTensor& b,
                                    HostAllocator* allocator);
absl::StatusOr<DenseHostTensor> Div(const DenseHostTensor& a,
                                    const DenseHostTensor& b,
                                    HostAllocator* allocator);

// x * factor, for f32 and f64 tensors (the factor is rounded to x's dtype
// first). A learning-rate step is Sub(w, Scale(grad, rate)).
absl::StatusOr<DenseHostTensor> Scale(const DenseHostTensor& x, double factor,
                                      HostAllocator* allocator);

}  // namespace sluice

#endif  // SLUICE_TENSOR_ELEMENTWISE_H_
