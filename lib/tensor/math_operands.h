// Checks every math function makes of its operands before it touches their
// bytes, and the dtype dispatch they share. Each returns InvalidArgument
// with the op's name first ("matmul: ..."), so a bad operand is an error
// value, never an Eigen assertion or a read through a null buffer.
#ifndef SLUICE_LIB_TENSOR_MATH_OPERANDS_H_
#define SLUICE_LIB_TENSOR_MATH_OPERANDS_H_

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice {
namespace tensor_internal {

// "add: i1 tensors are not supported; it takes i32, i64, f32 or f64".
absl::Status UnsupportedDType(std::string_view op, DType dtype,
                              std::string_view supported);

// Every operand has bytes: a default-constructed tensor (an unassigned
// variable's) has none, and reading it would dereference null.
absl::Status CheckHaveBuffers(
    std::string_view op, std::initializer_list<const DenseHostTensor*> tensors);

// "add: operands are f32 and f64; they must have the same dtype".
absl::Status CheckSameDType(std::string_view op, const DenseHostTensor& a,
                            const DenseHostTensor& b);

// "loss: logits must have rank 2, got [3]"; `what` names the operand.
absl::Status CheckRank(std::string_view op, std::string_view what,
                       const DenseHostTensor& tensor, int rank);

// Labels are i32 or i64, of shape [batch], each in [0, num_classes).
absl::Status CheckLabels(std::string_view op, const DenseHostTensor& labels,
                         int64_t batch, int64_t num_classes);

// Label `row` of an i32 or i64 tensor CheckLabels accepted.
int64_t LabelAt(const DenseHostTensor& labels, int64_t row);

// An axis in [-rank, rank), negative ones counting from the end; returns it
// in [0, rank).
absl::StatusOr<int> NormalizeAxis(std::string_view op, const TensorShape& shape,
                                  int64_t axis);

// `shape` without dimension `axis`.
TensorShape RemoveAxis(const TensorShape& shape, int axis);

// The shape of a result; InvalidArgument naming the op when it has more
// elements than int64 counts.
absl::StatusOr<TensorShape> ResultShape(std::string_view op,
                                        absl::Span<const int64_t> dims);

// A new tensor for a result; the allocator's refusal is ResourceExhausted
// and names the op.
absl::StatusOr<DenseHostTensor> AllocateResult(std::string_view op, DType dtype,
                                               TensorShape shape,
                                               HostAllocator* allocator);

// Calls `f(T{})` for f32 and f64, and returns UnsupportedDType otherwise.
// `f` returns an absl::StatusOr.
template <typename F>
auto DispatchFloat(std::string_view op, DType dtype, F&& f)
    -> decltype(f(float{})) {
  switch (dtype) {
    case DType::kF32:
      return f(float{});
    case DType::kF64:
      return f(double{});
    default:
      return UnsupportedDType(op, dtype, "f32 or f64");
  }
}

// As DispatchFloat, for i32, i64, f32 and f64.
template <typename F>
auto DispatchNumeric(std::string_view op, DType dtype, F&& f)
    -> decltype(f(float{})) {
  switch (dtype) {
    case DType::kI32:
      return f(int32_t{});
    case DType::kI64:
      return f(int64_t{});
    case DType::kF32:
      return f(float{});
    case DType::kF64:
      return f(double{});
    default:
      return UnsupportedDType(op, dtype, "i32, i64, f32 or f64");
  }
}

}  // namespace tensor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_TENSOR_MATH_OPERANDS_H_
