// Activation functions and their gradients, element by element.
//
// Each gradient takes the upstream gradient `dy` (the loss's gradient with
// respect to the activation's output) and one tensor of the forward pass,
// of the same shape and dtype, and returns the loss's gradient with respect
// to the activation's input:
//   ReluGrad(dy, x)     takes the forward INPUT x:  dy where x > 0, else 0
//   SigmoidGrad(dy, y)  takes the forward OUTPUT y: dy * y * (1 - y)
//   TanhGrad(dy, y)     takes the forward OUTPUT y: dy * (1 - y * y)
// (the conventions of TensorFlow's ReluGrad, SigmoidGrad and TanhGrad). The
// output is what the backward pass has at hand for sigmoid and tanh, and it
// saves evaluating the function again.
//
// Relu takes i32, i64, f32 and f64; sigmoid and tanh, f32 and f64. Results
// are new tensors from `allocator`. A NaN input gives NaN.
#ifndef SLUICE_TENSOR_ACTIVATIONS_H_
#define SLUICE_TENSOR_ACTIVATIONS_H_

#include "absl/status/statusor.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {

// max(x, 0).
absl::StatusOr<DenseHostTensor> Relu(const DenseHostTensor& x,
                                     HostAllocator* allocator);
// 1 / (1 + exp(-x)).
absl::StatusOr<DenseHostTensor> Sigmoid(const DenseHostTensor& x,
                                        HostAllocator* allocator);
absl::StatusOr<DenseHostTensor> Tanh(const DenseHostTensor& x,
                                     HostAllocator* allocator);

// InvalidArgument when dy and the forward tensor differ in shape or dtype.
absl::StatusOr<DenseHostTensor> ReluGrad(const DenseHostTensor& dy,
                                         const DenseHostTensor& x,
                                         HostAllocator* allocator);
absl::StatusOr<DenseHostTensor> SigmoidGrad(const DenseHostTensor& dy,
                                            const DenseHostTensor& y,
                                            HostAllocator* allocator);
absl::StatusOr<DenseHostTensor> TanhGrad(const DenseHostTensor& dy,
                                         const DenseHostTensor& y,
                                         HostAllocator* allocator);

}  // namespace sluice

#endif  // SLUICE_TENSOR_ACTIVATIONS_H_
