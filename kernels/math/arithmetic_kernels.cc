// tfrt_math.matmul, the elementwise arithmetic and scale.
#include <cstdint>

#include "kernels/math/math_kernels_internal.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/tensor/elementwise.h"
#include "sluice/tensor/matmul.h"

namespace sluice {
namespace math_kernels {
namespace {

constexpr char kMatMul[] = "matmul";
constexpr char kAdd[] = "add";
constexpr char kSub[] = "sub";
constexpr char kMul[] = "mul";
constexpr char kDiv[] = "div";
constexpr char kScale[] = "scale";

// The flags are optional and false when left out; bool attributes are one
// byte.
template <typename T>
absl::StatusOr<DenseHostTensor> MatMulKernel(
    const DenseHostTensor& a, const DenseHostTensor& b,
    OptionalAttribute<uint8_t> transpose_a,
    OptionalAttribute<uint8_t> transpose_b, HostContext* host) {
  if (absl::Status s = CheckOperandDTypes(kMatMul, DTypeOf<T>(), {&a, &b});
      !s.ok()) {
    return s;
  }
  return MatMul(a, b, transpose_a.value_or(0) != 0,
                transpose_b.value_or(0) != 0, host->allocator());
}

template <typename T>
absl::StatusOr<DenseHostTensor> ScaleKernel(const DenseHostTensor& x,
                                            Attribute<T> factor,
                                            HostContext* host) {
  if (absl::Status s = CheckOperandDTypes(kScale, DTypeOf<T>(), {&x});
      !s.ok()) {
    return s;
  }
  return Scale(x, *factor, host->allocator());
}

template <typename T>
absl::Status RegisterElementwise(KernelRegistry* registry) {
  return registry->AddKernels({
      {KernelName<T>(kAdd), SLUICE_KERNEL((BinaryKernel<T, kAdd, &Add>))},
      {KernelName<T>(kSub), SLUICE_KERNEL((BinaryKernel<T, kSub, &Sub>))},
      {KernelName<T>(kMul), SLUICE_KERNEL((BinaryKernel<T, kMul, &Mul>))},
      {KernelName<T>(kDiv), SLUICE_KERNEL((BinaryKernel<T, kDiv, &Div>))},
  });
}

template <typename T>
absl::Status RegisterFloat(KernelRegistry* registry) {
  return registry->AddKernels({
      {KernelName<T>(kMatMul),
       SLUICE_KERNEL(MatMulKernel<T>)
           .WithAttributeNames({"transpose_a", "transpose_b"})},
      {KernelName<T>(kScale),
       SLUICE_KERNEL(ScaleKernel<T>).WithAttributeNames({"factor"})},
  });
}

}  // namespace

absl::Status RegisterArithmeticKernels(KernelRegistry* registry) {
  for (auto* group :
       {&RegisterElementwise<int32_t>, &RegisterElementwise<int64_t>,
        &RegisterElementwise<float>, &RegisterElementwise<double>,
        &RegisterFloat<float>, &RegisterFloat<double>}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace math_kernels
}  // namespace sluice
