// tfrt_math.random_uniform and random_normal: new tensors of the dtype in
// the op's name, from an explicit seed.
#include <cstdint>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/math/math_kernels_internal.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/tensor/random.h"

namespace sluice {
namespace math_kernels {
namespace {

absl::StatusOr<TensorShape> ShapeOf(std::string_view family, DType dtype,
                                    ArrayAttribute<int64_t> dims) {
  absl::StatusOr<TensorShape> shape = TensorShape::Create(dims.data());
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        KernelName(family, dtype), ": ", shape.status().message()));
  }
  return shape;
}

// The seed is an i64 attribute; its bits are the generator's 64-bit key.
template <typename T>
absl::StatusOr<DenseHostTensor> RandomUniformKernel(
    ArrayAttribute<int64_t> shape, Attribute<T> low, Attribute<T> high,
    Attribute<int64_t> seed, HostContext* host) {
  absl::StatusOr<TensorShape> dims =
      ShapeOf("random_uniform", DTypeOf<T>(), shape);
  if (!dims.ok()) return dims.status();
  return RandomUniform(DTypeOf<T>(), *std::move(dims), *low, *high,
                       static_cast<uint64_t>(*seed), host->allocator());
}

template <typename T>
absl::StatusOr<DenseHostTensor> RandomNormalKernel(
    ArrayAttribute<int64_t> shape, Attribute<T> mean, Attribute<T> stddev,
    Attribute<int64_t> seed, HostContext* host) {
  absl::StatusOr<TensorShape> dims =
      ShapeOf("random_normal", DTypeOf<T>(), shape);
  if (!dims.ok()) return dims.status();
  return RandomNormal(DTypeOf<T>(), *std::move(dims), *mean, *stddev,
                      static_cast<uint64_t>(*seed), host->allocator());
}

template <typename T>
absl::Status RegisterFloat(KernelRegistry* registry) {
  return registry->AddKernels({
      {KernelName<T>("random_uniform"),
       SLUICE_KERNEL(RandomUniformKernel<T>)
           .WithAttributeNames({"shape", "low", "high", "seed"})},
      {KernelName<T>("random_normal"),
       SLUICE_KERNEL(RandomNormalKernel<T>)
           .WithAttributeNames({"shape", "mean", "stddev", "seed"})},
  });
}

}  // namespace

absl::Status RegisterRandomKernels(KernelRegistry* registry) {
  for (auto* group : {&RegisterFloat<float>, &RegisterFloat<double>}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace math_kernels
}  // namespace sluice
