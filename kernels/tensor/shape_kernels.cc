// Shapes (as TFRT defines the ops): ts.build_shape and ts.print_shape, and
// the tfrt_dht ops that read a tensor's shape.
#include "absl/status/statusor.h"
#include "kernels/tensor/tensor_kernels_internal.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/support/print.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice {
namespace tensor_kernels {
namespace {

absl::StatusOr<TensorShape> BuildShape(AggregateAttribute value) {
  return ShapeFromAttribute("ts.build_shape", value);
}

// TFRT's op takes a chain and returns none.
void PrintShape(const TensorShape& shape, const Chain&) {
  PrintLine("shape = " + shape.ToString());
}

TensorShape GetTensorShape(const DenseHostTensor& tensor) {
  return tensor.shape();
}

// Just the dimensions, as TFRT prints them: `[3, 2]`.
Chain PrintTensorShape(const DenseHostTensor& tensor, const Chain&) {
  PrintLine(tensor.shape().ToString());
  return Chain();
}

}  // namespace

absl::Status RegisterShapeKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"ts.build_shape",
       SLUICE_KERNEL(BuildShape).WithAttributeNames({"value"})},
      {"ts.print_shape", SLUICE_KERNEL(PrintShape)},
      {"tfrt_dht.get_tensor_shape", SLUICE_KERNEL(GetTensorShape)},
      {"tfrt_dht.print_tensor_shape", SLUICE_KERNEL(PrintTensorShape)},
  });
}

}  // namespace tensor_kernels
}  // namespace sluice
