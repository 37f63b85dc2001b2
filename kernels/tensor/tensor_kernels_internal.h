// What the tensor kernel groups share: their registration functions, error
// messages that name the op, and reading attributes as elements.
#ifndef SLUICE_KERNELS_TENSOR_TENSOR_KERNELS_INTERNAL_H_
#define SLUICE_KERNELS_TENSOR_TENSOR_KERNELS_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "sluice/bef/format.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice {
namespace tensor_kernels {

// tfrt_dht tensors: create, fill, set, make, compare, print.
absl::Status RegisterDenseHostTensorKernels(KernelRegistry* registry);
// tfrt_dht buffers: allocate, slice, get, print.
absl::Status RegisterBufferKernels(KernelRegistry* registry);
// ts.* and the tfrt_dht ops on a tensor's shape.
absl::Status RegisterShapeKernels(KernelRegistry* registry);

// InvalidArgument "OP: the message", where OP names the op family
// ("tfrt_dht.make_tensor") and the message is the StrCat of `parts`.
template <typename... Parts>
absl::Status OpError(std::string_view op, const Parts&... parts) {
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(op), ": ", parts...));
}

// `status` with "OP: " before its message, its code kept.
absl::Status PrefixOp(std::string_view op, const absl::Status& status);

// Calls `f(T{}, spelling)` for every element type and each spelling of it
// in op names ("i1" and "bool" for bool), stopping at the first error.
template <typename F>
absl::Status ForEachDTypeSpelling(F&& f) {
  for (std::string_view spelling : {"i1", "bool", "i32", "i64", "f32", "f64"}) {
    absl::Status status =
        DispatchDType(*ParseDType(spelling),
                      [&](auto element) { return f(element, spelling); });
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// The executable's type code for attributes holding a T.
template <typename T>
constexpr bef::AttributeType AttributeTypeOf() {
  if constexpr (std::is_same_v<T, bool>) {
    return bef::AttributeType::kBool;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return bef::AttributeType::kI32;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return bef::AttributeType::kI64;
  } else if constexpr (std::is_same_v<T, float>) {
    return bef::AttributeType::kF32;
  } else {
    static_assert(std::is_same_v<T, double>);
    return bef::AttributeType::kF64;
  }
}

// How a kernel reads a scalar attribute holding a T: bool attributes are
// one byte, 0 or 1.
template <typename T>
using AttributeStorage =
    std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

template <typename T>
T FromAttribute(const void* data) {
  if constexpr (std::is_same_v<T, bool>) {
    return *Attribute<uint8_t>(data) != 0;
  } else {
    return *Attribute<T>(data);
  }
}

// The i64 dimensions in `dims` (TFRT's `[3 : i64, 2 : i64]`) as a shape;
// `op` names the op in errors.
absl::StatusOr<TensorShape> ShapeFromAttribute(std::string_view op,
                                               const AggregateAttribute& dims);

}  // namespace tensor_kernels
}  // namespace sluice

#endif  // SLUICE_KERNELS_TENSOR_TENSOR_KERNELS_INTERNAL_H_
