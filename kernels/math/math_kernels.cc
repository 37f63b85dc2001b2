#include "sluice/kernels/math_kernels.h"

#include "absl/strings/str_cat.h"
#include "kernels/math/math_kernels_internal.h"

namespace sluice {
namespace math_kernels {

std::string KernelName(std::string_view family, DType dtype) {
  return absl::StrCat("tfrt_math.", std::string(family), ".", DTypeName(dtype));
}

absl::Status CheckOperandDTypes(
    std::string_view family, DType dtype,
    std::initializer_list<const DenseHostTensor*> operands) {
  int index = 0;
  for (const DenseHostTensor* operand : operands) {
    if (operand->dtype() != dtype) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(family), ": operand #", index, " is an ",
                       DTypeName(operand->dtype()), " tensor of shape ",
                       operand->shape().ToString(), "; ",
                       KernelName(family, dtype), " takes ", DTypeName(dtype)));
    }
    ++index;
  }
  return absl::OkStatus();
}

}  // namespace math_kernels

absl::Status RegisterMathKernels(KernelRegistry* registry) {
  for (auto* group : {&math_kernels::RegisterArithmeticKernels,
                      &math_kernels::RegisterActivationKernels,
                      &math_kernels::RegisterReductionKernels,
                      &math_kernels::RegisterLossKernels,
                      &math_kernels::RegisterRandomKernels,
                      &math_kernels::RegisterSliceKernels}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace sluice
