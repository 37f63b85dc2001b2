// Loss functions, each with its gradient.
#ifndef SLUICE_TENSOR_LOSSES_H_
#define SLUICE_TENSOR_LOSSES_H_

#include "absl/status/statusor.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {

struct LossAndGradient {
  DenseHostTensor loss;      // a scalar (shape [])
  DenseHostTensor gradient;  // the loss's gradient wrt the logits
};

// Softmax cross-entropy of `logits` [batch, classes] (f32 or f64) against
// integer class labels [batch] (i32 or i64, each in [0, classes)):
//   loss     = 1/batch * sum_b (log(sum_c exp(logits[b, c])) - logits[b,
//   label_b]) gradient = (softmax(logits) - one_hot(labels)) / batch
// the mean over the batch, so the gradient is that of the mean. Each row is
// shifted by its maximum first, so large logits neither overflow nor lose
// the loss to rounding. Both results have the logits' dtype; each row's
// sum of exponentials and the batch's losses are summed in f64, pairwise,
// as ReduceSum sums.
//
// InvalidArgument for logits that are not a non-empty [batch, classes]
// matrix of f32 or f64, labels of another shape or dtype, or a label out of
// range ("softmax_cross_entropy: label 12 of row 3 is outside [0, 10)").
absl::StatusOr<LossAndGradient> SoftmaxCrossEntropyWithLogits(
    const DenseHostTensor& logits, const DenseHostTensor& labels,
    HostAllocator* allocator);

}  // namespace sluice

#endif  // SLUICE_TENSOR_LOSSES_H_
