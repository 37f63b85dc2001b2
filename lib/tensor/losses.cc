#include "sluice/tensor/losses.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/tensor/accurate_sum.h"
#include "lib/tensor/eigen_maps.h"
#include "lib/tensor/math_operands.h"

namespace sluice {
namespace {

constexpr char kOp[] = "softmax_cross_entropy";

template <typename T>
absl::StatusOr<LossAndGradient> Compute(const DenseHostTensor& logits,
                                        const DenseHostTensor& labels,
                                        HostAllocator* allocator) {
  const int64_t batch = logits.shape().dim(0);
  const int64_t classes = logits.shape().dim(1);
  absl::StatusOr<DenseHostTensor> loss = tensor_internal::AllocateResult(
      kOp, DTypeOf<T>(), TensorShape{}, allocator);
  if (!loss.ok()) return loss.status();
  absl::StatusOr<DenseHostTensor> gradient = tensor_internal::AllocateResult(
      kOp, DTypeOf<T>(), logits.shape(), allocator);
  if (!gradient.ok()) return gradient.status();

  auto z = tensor_internal::ConstArrayOf<T>(logits, batch, classes);
  auto grad = tensor_internal::ArrayOf<T>(*gradient, batch, classes);
  const T inverse_batch = T{1} / static_cast<T>(batch);
  // Each row's loss, summed pairwise at the end: a running sum's error
  // would grow with the batch.
  std::vector<double> row_losses(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t label = tensor_internal::LabelAt(labels, b);
    const T shift = z.row(b).maxCoeff();
    // exp(z - max) is in (0, 1], and 1 for the largest logit, so the sum is
    // in [1, classes]: its log neither overflows nor underflows. Summed in
    // f64, pairwise, since an f32 running sum stops growing at 2^24.
    grad.row(b) = (z.row(b) - shift).exp();
    const double sum =
        tensor_internal::PairwiseSum(grad.data() + b * classes, classes);
    row_losses[b] = std::log(sum) + static_cast<double>(shift) -
                    static_cast<double>(z(b, label));
    grad.row(b) *= static_cast<T>(static_cast<double>(inverse_batch) / sum);
    grad(b, label) -= inverse_batch;
  }
  loss->mutable_values<T>()[0] =
      static_cast<T>(tensor_internal::PairwiseSum(row_losses.data(), batch) /
                     static_cast<double>(batch));
  return LossAndGradient{*std::move(loss), *std::move(gradient)};
}

}  // namespace

absl::StatusOr<LossAndGradient> SoftmaxCrossEntropyWithLogits(
    const DenseHostTensor& logits, const DenseHostTensor& labels,
    HostAllocator* allocator) {
  if (absl::Status s =
          tensor_internal::CheckHaveBuffers(kOp, {&logits, &labels});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = tensor_internal::CheckRank(kOp, "logits", logits, 2);
      !s.ok()) {
    return s;
  }
  const int64_t batch = logits.shape().dim(0);
  const int64_t classes = logits.shape().dim(1);
  if (batch == 0 || classes == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        kOp, ": logits of shape ", logits.shape().ToString(), " have no ",
        batch == 0 ? "rows: the mean of an empty batch is undefined"
                   : "classes"));
  }
  if (absl::Status s =
          tensor_internal::CheckLabels(kOp, labels, batch, classes);
      !s.ok()) {
    return s;
  }
  return tensor_internal::DispatchFloat(kOp, logits.dtype(), [&](auto element) {
    return Compute<decltype(element)>(logits, labels, allocator);
  });
}

}  // namespace sluice
