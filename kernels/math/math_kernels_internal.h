// What the tfrt_math kernel groups share: their registration functions, the
// check of an op's dtype suffix against its operands, and kernels that wrap
// a tensor function of one or two tensors.
#ifndef SLUICE_KERNELS_MATH_MATH_KERNELS_INTERNAL_H_
#define SLUICE_KERNELS_MATH_MATH_KERNELS_INTERNAL_H_

#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"

namespace sluice {
namespace math_kernels {

// matmul, add, sub, mul, div, scale.
absl::Status RegisterArithmeticKernels(KernelRegistry* registry);
// relu, sigmoid, tanh and their gradients.
absl::Status RegisterActivationKernels(KernelRegistry* registry);
// sum, mean, max, argmax.
absl::Status RegisterReductionKernels(KernelRegistry* registry);
// softmax_cross_entropy, accuracy.
absl::Status RegisterLossKernels(KernelRegistry* registry);
// random_uniform, random_normal.
absl::Status RegisterRandomKernels(KernelRegistry* registry);
// slice_rows.
absl::Status RegisterSliceKernels(KernelRegistry* registry);

// "tfrt_math.<family>.<dtype>".
std::string KernelName(std::string_view family, DType dtype);

template <typename T>
std::string KernelName(std::string_view family) {
  return KernelName(family, DTypeOf<T>());
}

// The op's name says its operands hold `dtype` elements: InvalidArgument
// "add: operand #1 is an i32 tensor of shape [2]; tfrt_math.add.f32 takes
// f32" for the first that does not.
absl::Status CheckOperandDTypes(
    std::string_view family, DType dtype,
    std::initializer_list<const DenseHostTensor*> operands);

// The tensor functions the generic kernels below wrap.
using UnaryFunction =
    absl::StatusOr<DenseHostTensor> (*)(const DenseHostTensor&, HostAllocator*);
using BinaryFunction = absl::StatusOr<DenseHostTensor> (*)(
    const DenseHostTensor&, const DenseHostTensor&, HostAllocator*);

// tfrt_math.<kFamily>.<T> %x: kFunction(x), a tensor from the host's
// allocator. `kFamily` is a constant string of the kernel group.
template <typename T, const char* kFamily, UnaryFunction kFunction>
absl::StatusOr<DenseHostTensor> UnaryKernel(const DenseHostTensor& x,
                                            HostContext* host) {
  if (absl::Status s = CheckOperandDTypes(kFamily, DTypeOf<T>(), {&x});
      !s.ok()) {
    return s;
  }
  return kFunction(x, host->allocator());
}

// tfrt_math.<kFamily>.<T> %a, %b: kFunction(a, b).
template <typename T, const char* kFamily, BinaryFunction kFunction>
absl::StatusOr<DenseHostTensor> BinaryKernel(const DenseHostTensor& a,
                                             const DenseHostTensor& b,
                                             HostContext* host) {
  if (absl::Status s = CheckOperandDTypes(kFamily, DTypeOf<T>(), {&a, &b});
      !s.ok()) {
    return s;
  }
  return kFunction(a, b, host->allocator());
}

}  // namespace math_kernels
}  // namespace sluice

#endif  // SLUICE_KERNELS_MATH_MATH_KERNELS_INTERNAL_H_
