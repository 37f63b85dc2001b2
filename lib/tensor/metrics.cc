#include "sluice/tensor/metrics.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "lib/tensor/math_operands.h"
#include "sluice/tensor/reductions.h"

namespace sluice {

absl::StatusOr<DenseHostTensor> Accuracy(const DenseHostTensor& predictions,
                                         const DenseHostTensor& labels,
                                         HostAllocator* allocator) {
  constexpr char kOp[] = "accuracy";
  if (absl::Status s =
          tensor_internal::CheckHaveBuffers(kOp, {&predictions, &labels});
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          tensor_internal::CheckRank(kOp, "predictions", predictions, 2);
      !s.ok()) {
    return s;
  }
  const int64_t batch = predictions.shape().dim(0);
  const int64_t classes = predictions.shape().dim(1);
  if (batch == 0 || classes == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        kOp, ": predictions of shape ", predictions.shape().ToString(),
        " have no ", batch == 0 ? "rows" : "classes"));
  }
  if (absl::Status s =
          tensor_internal::CheckLabels(kOp, labels, batch, classes);
      !s.ok()) {
    return s;
  }
  return tensor_internal::DispatchFloat(
      kOp, predictions.dtype(),
      [&](auto element) -> absl::StatusOr<DenseHostTensor> {
        using T = decltype(element);
        absl::StatusOr<DenseHostTensor> predicted =
            ArgMax(predictions, 1, allocator);
        if (!predicted.ok()) return predicted;
        absl::StatusOr<DenseHostTensor> result =
            tensor_internal::AllocateResult(kOp, DTypeOf<T>(), TensorShape{},
                                            allocator);
        if (!result.ok()) return result;
        int64_t correct = 0;
        absl::Span<const int64_t> classes_predicted =
            predicted->values<int64_t>();
        for (int64_t row = 0; row < batch; ++row) {
          if (classes_predicted[row] == tensor_internal::LabelAt(labels, row)) {
            ++correct;
          }
        }
        result->mutable_values<T>()[0] =
            static_cast<T>(static_cast<double>(correct) / batch);
        return result;
      });
}

}  // namespace sluice
