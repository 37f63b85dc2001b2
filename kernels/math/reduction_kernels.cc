// tfrt_math.sum, mean, max and argmax.
#include <cstdint>

#include "kernels/math/math_kernels_internal.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/tensor/reductions.h"

namespace sluice {
namespace math_kernels {
namespace {

constexpr char kSum[] = "sum";
constexpr char kMean[] = "mean";
constexpr char kMax[] = "max";
constexpr char kArgMax[] = "argmax";

using AxisFunction = absl::StatusOr<DenseHostTensor> (*)(const DenseHostTensor&,
                                                         int64_t,
                                                         HostAllocator*);

// Over `axis` when the op has one, else over every element.
template <typename T, const char* kFamily, AxisFunction kOverAxis,
          UnaryFunction kOverAll>
absl::StatusOr<DenseHostTensor> ReductionKernel(const DenseHostTensor& x,
                                                OptionalAttribute<int64_t> axis,
                                                HostContext* host) {
  if (absl::Status s = CheckOperandDTypes(kFamily, DTypeOf<T>(), {&x});
      !s.ok()) {
    return s;
  }
  if (axis) return kOverAxis(x, *axis, host->allocator());
  return kOverAll(x, host->allocator());
}

template <typename T>
absl::StatusOr<DenseHostTensor> ArgMaxKernel(const DenseHostTensor& x,
                                             Attribute<int64_t> axis,
                                             HostContext* host) {
  if (absl::Status s = CheckOperandDTypes(kArgMax, DTypeOf<T>(), {&x});
      !s.ok()) {
    return s;
  }
  return ArgMax(x, *axis, host->allocator());
}

template <typename T>
absl::Status RegisterNumeric(KernelRegistry* registry) {
  return registry->AddKernels({
      {KernelName<T>(kSum),
       SLUICE_KERNEL((ReductionKernel<T, kSum, &ReduceSum, &ReduceSumAll>))
           .WithAttributeNames({"axis"})},
      {KernelName<T>(kMax),
       SLUICE_KERNEL((ReductionKernel<T, kMax, &ReduceMax, &ReduceMaxAll>))
           .WithAttributeNames({"axis"})},
      {KernelName<T>(kArgMax),
       SLUICE_KERNEL(ArgMaxKernel<T>).WithAttributeNames({"axis"})},
  });
}

template <typename T>
absl::Status RegisterFloat(KernelRegistry* registry) {
  return registry->AddKernel(
      KernelName<T>(kMean),
      SLUICE_KERNEL((ReductionKernel<T, kMean, &ReduceMean, &ReduceMeanAll>))
          .WithAttributeNames({"axis"}));
}

}  // namespace

absl::Status RegisterReductionKernels(KernelRegistry* registry) {
  for (auto* group : {&RegisterNumeric<int32_t>, &RegisterNumeric<int64_t>,
                      &RegisterNumeric<float>, &RegisterNumeric<double>,
                      &RegisterFloat<float>, &RegisterFloat<double>}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace math_kernels
}  // namespace sluice
