#include "sluice/tensor/activations.h"

#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/tensor/eigen_maps.h"
#include "lib/tensor/math_operands.h"

namespace sluice {
namespace {

using tensor_internal::ConstFlatOf;
using tensor_internal::FlatOf;

// Allocates the result, of x's dtype and shape, and fills it with
// `compute(ConstFlatOf<T>(x), FlatOf<T>(result))` for the C++ type T that
// `dispatch` picks.
template <typename Dispatch, typename Compute>
absl::StatusOr<DenseHostTensor> Activate(const char* op,
                                         const DenseHostTensor& x,
                                         HostAllocator* allocator,
                                         Dispatch dispatch, Compute compute) {
  if (absl::Status s = tensor_internal::CheckHaveBuffers(op, {&x}); !s.ok()) {
    return s;
  }
  return dispatch(op, x.dtype(), [&](auto element) {
    using T = decltype(element);
    absl::StatusOr<DenseHostTensor> result =
        tensor_internal::AllocateResult(op, x.dtype(), x.shape(), allocator);
    if (!result.ok()) return result;
    compute(ConstFlatOf<T>(x), FlatOf<T>(*result));
    return result;
  });
}

// As Activate, for a gradient of `dy` and the forward tensor `forward`.
template <typename Dispatch, typename Compute>
absl::StatusOr<DenseHostTensor> Differentiate(
    const char* op, const DenseHostTensor& dy, const DenseHostTensor& forward,
    HostAllocator* allocator, Dispatch dispatch, Compute compute) {
  if (absl::Status s = tensor_internal::CheckHaveBuffers(op, {&dy, &forward});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = tensor_internal::CheckSameDType(op, dy, forward);
      !s.ok()) {
    return s;
  }
  if (dy.shape() != forward.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": the gradient ", dy.shape().ToString(),
                     " and the forward tensor ", forward.shape().ToString(),
                     " must have the same shape"));
  }
  return dispatch(op, dy.dtype(), [&](auto element) {
    using T = decltype(element);
    absl::StatusOr<DenseHostTensor> result =
        tensor_internal::AllocateResult(op, dy.dtype(), dy.shape(), allocator);
    if (!result.ok()) return result;
    compute(ConstFlatOf<T>(dy), ConstFlatOf<T>(forward), FlatOf<T>(*result));
    return result;
  });
}

// The dtypes an op takes, as the `dispatch` argument above.
struct NumericDTypes {
  template <typename F>
  auto operator()(std::string_view op, DType dtype, F&& f) const {
    return tensor_internal::DispatchNumeric(op, dtype, std::forward<F>(f));
  }
};
struct FloatDTypes {
  template <typename F>
  auto operator()(std::string_view op, DType dtype, F&& f) const {
    return tensor_internal::DispatchFloat(op, dtype, std::forward<F>(f));
  }
};

}  // namespace

absl::StatusOr<DenseHostTensor> Relu(const DenseHostTensor& x,
                                     HostAllocator* allocator) {
  return Activate("relu", x, allocator, NumericDTypes{}, [](auto in, auto out) {
    using T = typename decltype(in)::Scalar;
    // "x < 0" rather than "x > 0" keeps NaN, which compares false.
    out = (in < T{0}).select(T{0}, in);
  });
}

absl::StatusOr<DenseHostTensor> Sigmoid(const DenseHostTensor& x,
                                        HostAllocator* allocator) {
  return Activate("sigmoid", x, allocator, FloatDTypes{},
                  [](auto in, auto out) { out = in.logistic(); });
}

absl::StatusOr<DenseHostTensor> Tanh(const DenseHostTensor& x,
                                     HostAllocator* allocator) {
  return Activate("tanh", x, allocator, FloatDTypes{},
                  [](auto in, auto out) { out = in.tanh(); });
}

absl::StatusOr<DenseHostTensor> ReluGrad(const DenseHostTensor& dy,
                                         const DenseHostTensor& x,
                                         HostAllocator* allocator) {
  return Differentiate("relu_grad", dy, x, allocator, NumericDTypes{},
                       [](auto upstream, auto input, auto out) {
                         using T = typename decltype(upstream)::Scalar;
                         // 0 at x == 0, where relu has no derivative.
                         out = (input > T{0}).select(upstream, T{0});
                       });
}

absl::StatusOr<DenseHostTensor> SigmoidGrad(const DenseHostTensor& dy,
                                            const DenseHostTensor& y,
                                            HostAllocator* allocator) {
  return Differentiate("sigmoid_grad", dy, y, allocator, FloatDTypes{},
                       [](auto upstream, auto output, auto out) {
                         using T = typename decltype(upstream)::Scalar;
                         out = upstream * output * (T{1} - output);
                       });
}

absl::StatusOr<DenseHostTensor> TanhGrad(const DenseHostTensor& dy,
                                         const DenseHostTensor& y,
                                         HostAllocator* allocator) {
  return Differentiate("tanh_grad", dy, y, allocator, FloatDTypes{},
                       [](auto upstream, auto output, auto out) {
                         using T = typename decltype(upstream)::Scalar;
                         out = upstream * (T{1} - output.square());
                       });
}

}  // namespace sluice
