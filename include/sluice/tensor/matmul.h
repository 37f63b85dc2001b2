// Matrix product of two rank-2 tensors, on Eigen's GEMM.
#ifndef SLUICE_TENSOR_MATMUL_H_
#define SLUICE_TENSOR_MATMUL_H_

#include "absl/status/statusor.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {

// op(a) x op(b), where op transposes its operand when the flag says so:
// op(a) is [m, k], op(b) is [k, n] and the result [m, n], a new tensor from
// `allocator`. f32 or f64, both operands of the same dtype. An inner
// dimension of 0 gives zeros.
//
// InvalidArgument, e.g. "matmul: [32, 10] x [20, 5]: inner dimensions
// differ", for operands that are not matrices, whose dtypes differ or are
// not f32 or f64, or whose inner dimensions differ.
absl::StatusOr<DenseHostTensor> MatMul(const DenseHostTensor& a,
                                       const DenseHostTensor& b,
                                       bool transpose_a, bool transpose_b,
                                       HostAllocator* allocator);

}  // namespace sluice

#endif  // SLUICE_TENSOR_MATMUL_H_
