// Metrics of a classifier's predictions.
#ifndef SLUICE_TENSOR_METRICS_H_
#define SLUICE_TENSOR_METRICS_H_

#include "absl/status/statusor.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {

// The fraction of rows of `predictions` [batch, classes] (f32 or f64: logits
// or probabilities) whose ArgMax over the classes is the row's label
// (`labels` [batch], i32 or i64, each in [0, classes)). A scalar of the
// predictions' dtype. InvalidArgument for an empty batch or no classes, and
// for the label errors of SoftmaxCrossEntropyWithLogits.
absl::StatusOr<DenseHostTensor> Accuracy(const DenseHostTensor& predictions,
                                         const DenseHostTensor& labels,
                                         HostAllocator* allocator);

}  // namespace sluice

#endif  // SLUICE_TENSOR_METRICS_H_
