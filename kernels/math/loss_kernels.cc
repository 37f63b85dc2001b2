// tfrt_math.softmax_cross_entropy and accuracy. The dtype in their names is
// that of the logits (predictions); labels are i32 or i64 either way.
#include <tuple>
#include <utility>

#include "kernels/math/math_kernels_internal.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/tensor/losses.h"
#include "sluice/tensor/metrics.h"

namespace sluice {
namespace math_kernels {
namespace {

constexpr char kSoftmaxCrossEntropy[] = "softmax_cross_entropy";
constexpr char kAccuracy[] = "accuracy";

// Results: the mean loss (a scalar) and its gradient wrt the logits.
template <typename T>
absl::StatusOr<std::tuple<DenseHostTensor, DenseHostTensor>>
SoftmaxCrossEntropyKernel(const DenseHostTensor& logits,
                          const DenseHostTensor& labels, HostContext* host) {
  if (absl::Status s =
          CheckOperandDTypes(kSoftmaxCrossEntropy, DTypeOf<T>(), {&logits});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<LossAndGradient> result =
      SoftmaxCrossEntropyWithLogits(logits, labels, host->allocator());
  if (!result.ok()) return result.status();
  return std::make_tuple(std::move(result->loss), std::move(result->gradient));
}

template <typename T>
absl::StatusOr<DenseHostTensor> AccuracyKernel(
    const DenseHostTensor& predictions, const DenseHostTensor& labels,
    HostContext* host) {
  if (absl::Status s =
          CheckOperandDTypes(kAccuracy, DTypeOf<T>(), {&predictions});
      !s.ok()) {
    return s;
  }
  return Accuracy(predictions, labels, host->allocator());
}

template <typename T>
absl::Status RegisterFloat(KernelRegistry* registry) {
  return registry->AddKernels({
      {KernelName<T>(kSoftmaxCrossEntropy),
       SLUICE_KERNEL(SoftmaxCrossEntropyKernel<T>)},
      {KernelName<T>(kAccuracy), SLUICE_KERNEL(AccuracyKernel<T>)},
  });
}

}  // namespace

absl::Status RegisterLossKernels(KernelRegistry* registry) {
  for (auto* group : {&RegisterFloat<float>, &RegisterFloat<double>}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace math_kernels
}  // namespace sluice
