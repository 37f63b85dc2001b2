#include "sluice/tensor/reductions.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "lib/tensor/accurate_sum.h"
#include "lib/tensor/eigen_maps.h"
#include "lib/tensor/math_operands.h"

namespace sluice {
namespace {

using tensor_internal::ColumnSums;
using tensor_internal::PairwiseSum;
using tensor_internal::RowMajorArray;

enum class Reduction { kSum, kMean, kMax, kArgMax };

const char* OpName(Reduction reduction) {
  switch (reduction) {
    case Reduction::kSum:
      return "sum";
    case Reduction::kMean:
      return "mean";
    case Reduction::kMax:
      return "max";
    case Reduction::kArgMax:
      return "argmax";
  }
  return "argmax";
}

// A reduction seen as one over the middle dimension of [outer, size, inner]:
// the dimensions before the axis, the axis, and those after it. Over every
// element it is [1, num_elements, 1].
struct Extent {
  int64_t outer = 1;
  int64_t size = 1;
  int64_t inner = 1;
  TensorShape result_shape;
};

Extent AxisExtent(const TensorShape& shape, int axis) {
  Extent extent;
  for (int i = 0; i < shape.rank(); ++i) {
    if (i < axis) extent.outer *= shape.dim(i);
    if (i > axis) extent.inner *= shape.dim(i);
  }
  extent.size = shape.dim(axis);
  extent.result_shape = tensor_internal::RemoveAxis(shape, axis);
  return extent;
}

Extent AllExtent(const TensorShape& shape) {
  Extent extent;
  extent.size = shape.num_elements();
  return extent;
}

// The unsigned type wraps where the signed one's overflow is undefined.
template <typename T>
T WrappingAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}

// The larger, or a NaN if either is one.
template <typename T>
T MaxPropagatingNaN(T a, T b) {
  return (a != a || a > b) ? a : b;  // NOLINT: a != a is the NaN test.
}

// Floating-point sums and means: every term added in f64, pairwise (see
// accurate_sum.h), and the result rounded to T once. Eigen's sum runs in T,
// where an f32 sum of ones stops growing at 2^24.
template <typename T>
void SumFloatValues(Reduction reduction, const T* in, const Extent& extent,
                    T* out) {
  const bool mean = reduction == Reduction::kMean;
  const double count = static_cast<double>(extent.size);
  auto finish = [&](double sum) {
    return static_cast<T>(mean ? sum / count : sum);
  };
  if (extent.inner == 1) {
    for (int64_t o = 0; o < extent.outer; ++o) {
      out[o] = finish(PairwiseSum(in + o * extent.size, extent.size));
    }
    return;
  }
  ColumnSums columns;
  for (int64_t o = 0; o < extent.outer; ++o) {
    const T* slice = in + o * extent.size * extent.inner;
    T* reduced = out + o * extent.inner;
    for (int64_t j = 0; j < extent.inner; j += ColumnSums::kMaxColumns) {
      const int64_t cols = std::min(ColumnSums::kMaxColumns, extent.inner - j);
      absl::Span<const double> sums =
          columns.Sum(slice + j, extent.size, cols, extent.inner);
      for (int64_t c = 0; c < cols; ++c) reduced[j + c] = finish(sums[c]);
    }
  }
}

// Reduces the [size, inner] slice of every outer index into the matching
// [inner] slice of `result`.
template <typename T>
void ReduceValues(Reduction reduction, const DenseHostTensor& x,
                  const Extent& extent, DenseHostTensor& result) {
  const T* in = x.values<T>().data();
  T* out = result.mutable_values<T>().data();
  if constexpr (std::is_floating_point_v<T>) {
    if (reduction != Reduction::kMax) {
      SumFloatValues(reduction, in, extent, out);
      return;
    }
  }
  for (int64_t o = 0; o < extent.outer; ++o) {
    Eigen::Map<const RowMajorArray<T>> slice(
        in + o * extent.size * extent.inner, extent.size, extent.inner);
    Eigen::Map<RowMajorArray<T>> reduced(out + o * extent.inner, 1,
                                         extent.inner);
    if (extent.size == 0) {
      // Only a sum gets here with an empty axis.
      reduced.setZero();
    } else if (reduction == Reduction::kMax) {
      reduced = slice.colwise().redux(&MaxPropagatingNaN<T>);
    } else if constexpr (std::is_integral_v<T>) {
      reduced = slice.colwise().redux(&WrappingAdd<T>);
    }
  }
}

// The first index of the maximum in each [size] column of the slices.
template <typename T>
void ArgMaxValues(const DenseHostTensor& x, const Extent& extent,
                  DenseHostTensor& result) {
  const T* in = x.values<T>().data();
  int64_t* out = result.mutable_values<int64_t>().data();
  for (int64_t o = 0; o < extent.outer; ++o) {
    for (int64_t j = 0; j < extent.inner; ++j) {
      const T* column = in + o * extent.size * extent.inner + j;
      int64_t best = 0;
      for (int64_t k = 1; k < extent.size; ++k) {
        const T best_value = column[best * extent.inner];
        if (best_value != best_value) break;  // A NaN is final.
        if (MaxPropagatingNaN(best_value, column[k * extent.inner]) !=
            best_value) {
          best = k;
        }
      }
      out[o * extent.inner + j] = best;
    }
  }
}

// `empty_description` is the error of a reduction other than a sum over an
// empty axis: "axis 1 of [2, 0] is empty".
absl::StatusOr<DenseHostTensor> Reduce(Reduction reduction,
                                       const DenseHostTensor& x,
                                       const Extent& extent,
                                       std::string_view empty_description,
                                       HostAllocator* allocator) {
  const char* op = OpName(reduction);
  if (extent.size == 0 && reduction != Reduction::kSum) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": ", std::string(empty_description)));
  }
  auto compute = [&](auto element) -> absl::StatusOr<DenseHostTensor> {
    using T = decltype(element);
    const DType dtype =
        reduction == Reduction::kArgMax ? DType::kI64 : DTypeOf<T>();
    absl::StatusOr<DenseHostTensor> result = tensor_internal::AllocateResult(
        op, dtype, extent.result_shape, allocator);
    if (!result.ok()) return result;
    if (reduction == Reduction::kArgMax) {
      ArgMaxValues<T>(x, extent, *result);
    } else {
      ReduceValues<T>(reduction, x, extent, *result);
    }
    return result;
  };
  if (reduction == Reduction::kMean) {
    return tensor_internal::DispatchFloat(op, x.dtype(), compute);
  }
  return tensor_internal::DispatchNumeric(op, x.dtype(), compute);
}

absl::StatusOr<DenseHostTensor> ReduceAxis(Reduction reduction,
                                           const DenseHostTensor& x,
                                           int64_t axis,
                                           HostAllocator* allocator) {
  const char* op = OpName(reduction);
  if (absl::Status s = tensor_internal::CheckHaveBuffers(op, {&x}); !s.ok()) {
    return s;
  }
  absl::StatusOr<int> normalized =
      tensor_internal::NormalizeAxis(op, x.shape(), axis);
  if (!normalized.ok()) return normalized.status();
  return Reduce(
      reduction, x, AxisExtent(x.shape(), *normalized),
      absl::StrCat("axis ", axis, " of ", x.shape().ToString(), " is empty"),
      allocator);
}

absl::StatusOr<DenseHostTensor> ReduceAll(Reduction reduction,
                                          const DenseHostTensor& x,
                                          HostAllocator* allocator) {
  if (absl::Status s =
          tensor_internal::CheckHaveBuffers(OpName(reduction), {&x});
      !s.ok()) {
    return s;
  }
  return Reduce(reduction, x, AllExtent(x.shape()),
                absl::StrCat(x.shape().ToString(), " has no elements"),
                allocator);
}

}  // namespace

absl::StatusOr<DenseHostTensor> ReduceSum(const DenseHostTensor& x,
                                          int64_t axis,
                                          HostAllocator* allocator) {
  return ReduceAxis(Reduction::kSum, x, axis, allocator);
}

absl::StatusOr<DenseHostTensor> ReduceSumAll(const DenseHostTensor& x,
                                             HostAllocator* allocator) {
  return ReduceAll(Reduction::kSum, x, allocator);
}

absl::StatusOr<DenseHostTensor> ReduceMean(const DenseHostTensor& x,
                                           int64_t axis,
                                           HostAllocator* allocator) {
  return ReduceAxis(Reduction::kMean, x, axis, allocator);
}

absl::StatusOr<DenseHostTensor> ReduceMeanAll(const DenseHostTensor& x,
                                              HostAllocator* allocator) {
  return ReduceAll(Reduction::kMean, x, allocator);
}

absl::StatusOr<DenseHostTensor> ReduceMax(const DenseHostTensor& x,
                                          int64_t axis,
                                          HostAllocator* allocator) {
  return ReduceAxis(Reduction::kMax, x, axis, allocator);
}

absl::StatusOr<DenseHostTensor> ReduceMaxAll(const DenseHostTensor& x,
                                             HostAllocator* allocator) {
  return ReduceAll(Reduction::kMax, x, allocator);
}

absl::StatusOr<DenseHostTensor> ArgMax(const DenseHostTensor& x, int64_t axis,
                                       HostAllocator* allocator) {
  return ReduceAxis(Reduction::kArgMax, x, axis, allocator);
}

}  // namespace sluice
