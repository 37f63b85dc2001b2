// tfrt_math.relu, sigmoid, tanh and their gradients.
#include <cstdint>

#include "kernels/math/math_kernels_internal.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/tensor/activations.h"

namespace sluice {
namespace math_kernels {
namespace {

constexpr char kRelu[] = "relu";
constexpr char kReluGrad[] = "relu_grad";
constexpr char kSigmoid[] = "sigmoid";
constexpr char kSigmoidGrad[] = "sigmoid_grad";
constexpr char kTanh[] = "tanh";
constexpr char kTanhGrad[] = "tanh_grad";

template <typename T>
absl::Status RegisterRelu(KernelRegistry* registry) {
  return registry->AddKernels({
      {KernelName<T>(kRelu), SLUICE_KERNEL((UnaryKernel<T, kRelu, &Relu>))},
      {KernelName<T>(kReluGrad),
       SLUICE_KERNEL((BinaryKernel<T, kReluGrad, &ReluGrad>))},
  });
}

template <typename T>
absl::Status RegisterSigmoidAndTanh(KernelRegistry* registry) {
  return registry->AddKernels({
      {KernelName<T>(kSigmoid),
       SLUICE_KERNEL((UnaryKernel<T, kSigmoid, &Sigmoid>))},
      {KernelName<T>(kSigmoidGrad),
       SLUICE_KERNEL((BinaryKernel<T, kSigmoidGrad, &SigmoidGrad>))},
      {KernelName<T>(kTanh), SLUICE_KERNEL((UnaryKernel<T, kTanh, &Tanh>))},
      {KernelName<T>(kTanhGrad),
       SLUICE_KERNEL((BinaryKernel<T, kTanhGrad, &TanhGrad>))},
  });
}

}  // namespace

absl::Status RegisterActivationKernels(KernelRegistry* registry) {
  for (auto* group :
       {&RegisterRelu<int32_t>, &RegisterRelu<int64_t>, &RegisterRelu<float>,
        &RegisterRelu<double>, &RegisterSigmoidAndTanh<float>,
        &RegisterSigmoidAndTanh<double>}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace math_kernels
}  // namespace sluice
