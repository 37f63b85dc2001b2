#include "sluice/tensor/elementwise.h"

#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "lib/tensor/eigen_maps.h"
#include "lib/tensor/math_operands.h"

namespace sluice {
namespace {

using tensor_internal::ArrayOf;
using tensor_internal::ConstArrayOf;
using tensor_internal::RowMajorArray;

enum class BinaryOp { kAdd, kSub, kMul, kDiv };

const char* OpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "add";
    case BinaryOp::kSub:
      return "sub";
    case BinaryOp::kMul:
      return "mul";
    case BinaryOp::kDiv:
      return "div";
  }
  return "div";
}

// How `b` meets `a`.
enum class Broadcast { kNone, kScalar, kRow };

absl::StatusOr<Broadcast> BroadcastOf(BinaryOp op, const TensorShape& a,
                                      const TensorShape& b) {
  if (a == b) return Broadcast::kNone;
  if (b.rank() == 0) return Broadcast::kScalar;
  if (a.rank() >= 2 && b.rank() == 1 && b.dim(0) == a.dim(a.rank() - 1)) {
    return Broadcast::kRow;
  }
  const std::string row =
      a.rank() >= 2 ? absl::StrCat(", or [", a.dim(a.rank() - 1), "] (a row)")
                    : "";
  return absl::InvalidArgumentError(
      absl::StrCat(OpName(op), ": cannot broadcast ", b.ToString(), " onto ",
                   a.ToString(), ": the right operand must have shape ",
                   a.ToString(), ", [] (a scalar)", row));
}

// Signed overflow is undefined in C++; the unsigned type wraps, and
// converting back is two's complement (defined since C++20, what every
// compiler does for C++17).
template <typename T>
using Unsigned = std::make_unsigned_t<T>;

template <typename T>
T WrappingAdd(T x, T y) {
  return static_cast<T>(static_cast<Unsigned<T>>(x) +
                        static_cast<Unsigned<T>>(y));
}
template <typename T>
T WrappingSub(T x, T y) {
  return static_cast<T>(static_cast<Unsigned<T>>(x) -
                        static_cast<Unsigned<T>>(y));
}
template <typename T>
T WrappingMul(T x, T y) {
  return static_cast<T>(static_cast<Unsigned<T>>(x) *
                        static_cast<Unsigned<T>>(y));
}
// The divisor is never 0 here. min / -1 overflows (and traps on x86); its
// wrapped quotient is -min, which is min.
template <typename T>
T WrappingDiv(T x, T y) {
  return y == -1 ? WrappingSub<T>(0, x) : static_cast<T>(x / y);
}

// out = a op b, where the three are Eigen array expressions of one shape.
template <typename T, typename A, typename B, typename Out>
void Combine(BinaryOp op, const A& a, const B& b, Out out) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case BinaryOp::kAdd:
        out = a + b;
        return;
      case BinaryOp::kSub:
        out = a - b;
        return;
      case BinaryOp::kMul:
        out = a * b;
        return;
      case BinaryOp::kDiv:
        out = a / b;
        return;
    }
  } else {
    switch (op) {
      case BinaryOp::kAdd:
        out = a.binaryExpr(b, &WrappingAdd<T>);
        return;
      case BinaryOp::kSub:
        out = a.binaryExpr(b, &WrappingSub<T>);
        return;
      case BinaryOp::kMul:
        out = a.binaryExpr(b, &WrappingMul<T>);
        return;
      case BinaryOp::kDiv:
        out = a.binaryExpr(b, &WrappingDiv<T>);
        return;
    }
  }
}

template <typename T>
absl::Status CheckNoZeroDivisor(const DenseHostTensor& b) {
  absl::Span<const T> divisor = b.values<T>();
  for (size_t i = 0; i < divisor.size(); ++i) {
    if (divisor[i] == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("div: division by zero: element ", i, " of the divisor ",
                       b.shape().ToString(), " is 0"));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::StatusOr<DenseHostTensor> Apply(BinaryOp op, Broadcast broadcast,
                                      const DenseHostTensor& a,
                                      const DenseHostTensor& b,
                                      HostAllocator* allocator) {
  if constexpr (std::is_integral_v<T>) {
    if (op == BinaryOp::kDiv) {
      if (absl::Status s = CheckNoZeroDivisor<T>(b); !s.ok()) return s;
    }
  }
  absl::StatusOr<DenseHostTensor> result = tensor_internal::AllocateResult(
      OpName(op), DTypeOf<T>(), a.shape(), allocator);
  if (!result.ok() || result->num_elements() == 0) return result;
  const int64_t size = a.num_elements();
  switch (broadcast) {
    case Broadcast::kNone:
      Combine<T>(op, ConstArrayOf<T>(a, 1, size), ConstArrayOf<T>(b, 1, size),
                 ArrayOf<T>(*result, 1, size));
      break;
    case Broadcast::kScalar:
      Combine<T>(op, ConstArrayOf<T>(a, 1, size),
                 RowMajorArray<T>::Constant(1, size, b.values<T>()[0]),
                 ArrayOf<T>(*result, 1, size));
      break;
    case Broadcast::kRow: {
      const int64_t cols = b.num_elements();
      const int64_t rows = size / cols;
      auto x = ConstArrayOf<T>(a, rows, cols);
      auto row = ConstArrayOf<T>(b, 1, cols);
      auto out = ArrayOf<T>(*result, rows, cols);
      // Row by row, so each row is one contiguous, vectorized pass.
      for (int64_t r = 0; r < rows; ++r) {
        Combine<T>(op, x.row(r), row, out.row(r));
      }
      break;
    }
  }
  return result;
}

absl::StatusOr<DenseHostTensor> Binary(BinaryOp op, const DenseHostTensor& a,
                                       const DenseHostTensor& b,
                                       HostAllocator* allocator) {
  const char* name = OpName(op);
  if (absl::Status s = tensor_internal::CheckHaveBuffers(name, {&a, &b});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = tensor_internal::CheckSameDType(name, a, b); !s.ok()) {
    return s;
  }
  absl::StatusOr<Broadcast> broadcast = BroadcastOf(op, a.shape(), b.shape());
  if (!broadcast.ok()) return broadcast.status();
  return tensor_internal::DispatchNumeric(name, a.dtype(), [&](auto element) {
    return Apply<decltype(element)>(op, *broadcast, a, b, allocator);
  });
}

}  // namespace

absl::StatusOr<DenseHostTensor> Add(const DenseHostTensor& a,
                                    const DenseHostTensor& b,
                                    HostAllocator* allocator) {
  return Binary(BinaryOp::kAdd, a, b, allocator);
}

absl::StatusOr<DenseHostTensor> Sub(const DenseHostTensor& a,
                                    const DenseHostTensor& b,
                                    HostAllocator* allocator) {
  return Binary(BinaryOp::kSub, a, b, allocator);
}

absl::StatusOr<DenseHostTensor> Mul(const DenseHostTensor& a,
                                    const DenseHostTensor& b,
                                    HostAllocator* allocator) {
  return Binary(BinaryOp::kMul, a, b, allocator);
}

absl::StatusOr<DenseHostTensor> Div(const DenseHostTensor& a,
                                    const DenseHostTensor& b,
                                    HostAllocator* allocator) {
  return Binary(BinaryOp::kDiv, a, b, allocator);
}

absl::StatusOr<DenseHostTensor> Scale(const DenseHostTensor& x, double factor,
                                      HostAllocator* allocator) {
  constexpr char kOp[] = "scale";
  if (absl::Status s = tensor_internal::CheckHaveBuffers(kOp, {&x}); !s.ok()) {
    return s;
  }
  return tensor_internal::DispatchFloat(kOp, x.dtype(), [&](auto element) {
    using T = decltype(element);
    absl::StatusOr<DenseHostTensor> result =
        tensor_internal::AllocateResult(kOp, x.dtype(), x.shape(), allocator);
    if (!result.ok()) return result;
    tensor_internal::FlatOf<T>(*result) =
        tensor_internal::ConstFlatOf<T>(x) * static_cast<T>(factor);
    return result;
  });
}

}  // namespace sluice
