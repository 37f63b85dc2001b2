#include "sluice/tensor/matmul.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/tensor/eigen_maps.h"
#include "lib/tensor/math_operands.h"

namespace sluice {
namespace {

using tensor_internal::ConstMatrixOf;
using tensor_internal::MatrixOf;

constexpr char kOp[] = "matmul";

// "[32, 10]", or "[10, 32]^T" for an operand used transposed.
std::string Operand(const DenseHostTensor& t, bool transposed) {
  return absl::StrCat(t.shape().ToString(), transposed ? "^T" : "");
}

template <typename T>
absl::StatusOr<DenseHostTensor> Multiply(const DenseHostTensor& a,
                                         const DenseHostTensor& b,
                                         bool transpose_a, bool transpose_b,
                                         HostAllocator* allocator) {
  const int64_t m = a.shape().dim(transpose_a ? 1 : 0);
  const int64_t n = b.shape().dim(transpose_b ? 0 : 1);
  // m * n may not fit in int64 even though m * k and k * n do.
  absl::StatusOr<TensorShape> shape = tensor_internal::ResultShape(kOp, {m, n});
  if (!shape.ok()) return shape.status();
  absl::StatusOr<DenseHostTensor> result = tensor_internal::AllocateResult(
      kOp, DTypeOf<T>(), *std::move(shape), allocator);
  if (!result.ok()) return result;
  auto x = ConstMatrixOf<T>(a, a.shape().dim(0), a.shape().dim(1));
  auto y = ConstMatrixOf<T>(b, b.shape().dim(0), b.shape().dim(1));
  auto out = MatrixOf<T>(*result, m, n);
  // noalias: the result is a fresh buffer, so Eigen need not build the
  // product in a temporary first.
  if (transpose_a && transpose_b) {
    out.noalias() = x.transpose() * y.transpose();
  } else if (transpose_a) {
    out.noalias() = x.transpose() * y;
  } else if (transpose_b) {
    out.noalias() = x * y.transpose();
  } else {
    out.noalias() = x * y;
  }
  return result;
}

}  // namespace

absl::StatusOr<DenseHostTensor> MatMul(const DenseHostTensor& a,
                                       const DenseHostTensor& b,
                                       bool transpose_a, bool transpose_b,
                                       HostAllocator* allocator) {
  if (absl::Status s = tensor_internal::CheckHaveBuffers(kOp, {&a, &b});
      !s.ok()) {
    return s;
  }
  if (a.shape().rank() != 2 || b.shape().rank() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        kOp, ": ", Operand(a, transpose_a), " x ", Operand(b, transpose_b),
        ": both operands must be matrices (rank 2)"));
  }
  if (absl::Status s = tensor_internal::CheckSameDType(kOp, a, b); !s.ok()) {
    return s;
  }
  const int64_t inner_a = a.shape().dim(transpose_a ? 0 : 1);
  const int64_t inner_b = b.shape().dim(transpose_b ? 1 : 0);
  if (inner_a != inner_b) {
    return absl::InvalidArgumentError(
        absl::StrCat(kOp, ": ", Operand(a, transpose_a), " x ",
                     Operand(b, transpose_b), ": inner dimensions differ"));
  }
  return tensor_internal::DispatchFloat(kOp, a.dtype(), [&](auto element) {
    return Multiply<decltype(element)>(a, b, transpose_a, transpose_b,
                                       allocator);
  });
}

}  // namespace sluice
