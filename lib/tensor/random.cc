#include "sluice/tensor/random.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/tensor/math_operands.h"
#include "lib/tensor/random_samples.h"

namespace sluice {
namespace {

// Copies the samples of block 0, 1, ... of `draw` into `out`, in order; the
// last block may be used in part.
template <typename T, typename Draw>
void Fill(absl::Span<T> out, Draw draw) {
  for (size_t begin = 0, block = 0; begin < out.size(); ++block) {
    const auto samples = draw(block);
    const size_t count = std::min(samples.size(), out.size() - begin);
    for (size_t i = 0; i < count; ++i) {
      out[begin + i] = static_cast<T>(samples[i]);
    }
    begin += count;
  }
}

}  // namespace

absl::StatusOr<DenseHostTensor> RandomUniform(DType dtype, TensorShape shape,
                                              double low, double high,
                                              uint64_t seed,
                                              HostAllocator* allocator) {
  constexpr char kOp[] = "random_uniform";
  return tensor_internal::DispatchFloat(
      kOp, dtype, [&](auto element) -> absl::StatusOr<DenseHostTensor> {
        using T = decltype(element);
        const T lower = static_cast<T>(low);
        const T upper = static_cast<T>(high);
        if (!std::isfinite(lower) || !std::isfinite(upper) ||
            !(lower < upper) ||
            !std::isfinite(static_cast<double>(upper) - lower)) {
          return absl::InvalidArgumentError(absl::StrCat(
              kOp, ": [", low, ", ", high, ") is not a finite, non-empty ",
              DTypeName(dtype), " range"));
        }
        absl::StatusOr<DenseHostTensor> result =
            tensor_internal::AllocateResult(kOp, dtype, std::move(shape),
                                            allocator);
        if (!result.ok()) return result;
        Fill(result->mutable_values<T>(), [&](uint64_t block) {
          if constexpr (std::is_same_v<T, float>) {
            return tensor_internal::UniformF32Block(seed, block, lower, upper);
          } else {
            return tensor_internal::UniformF64Block(seed, block, lower, upper);
          }
        });
        return result;
      });
}

absl::StatusOr<DenseHostTensor> RandomNormal(DType dtype, TensorShape shape,
                                             double mean, double stddev,
                                             uint64_t seed,
                                             HostAllocator* allocator) {
  constexpr char kOp[] = "random_normal";
  if (!std::isfinite(mean) || !std::isfinite(stddev) || stddev < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kOp, ": mean ", mean, " and stddev ", stddev,
                     " must be finite, and stddev not negative"));
  }
  return tensor_internal::DispatchFloat(
      kOp, dtype, [&](auto element) -> absl::StatusOr<DenseHostTensor> {
        using T = decltype(element);
        absl::StatusOr<DenseHostTensor> result =
            tensor_internal::AllocateResult(kOp, dtype, std::move(shape),
                                            allocator);
        if (!result.ok()) return result;
        Fill(result->mutable_values<T>(), [&](uint64_t block) {
          return tensor_internal::NormalBlock(seed, block, mean, stddev);
        });
        return result;
      });
}

}  // namespace sluice
