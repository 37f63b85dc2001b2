// tfrt_dht ops on tensors (as TFRT defines them): create, fill, set, make
// over a buffer, compare and print. Kernels that write a tensor's elements
// take and return a chain: the tensor's bytes are shared by every copy of
// it, so chains are what orders writes against reads.
//
// Ops with the element type in their name check it against the tensor's
// dtype: a mismatch is an error, never a reinterpretation of the bytes.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "kernels/tensor/tensor_kernels_internal.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/support/print.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/i1_bytes.h"

namespace sluice {
namespace tensor_kernels {
namespace {

constexpr std::string_view kCreateUninitialized =
    "tfrt_dht.create_uninitialized_tensor";
constexpr std::string_view kFill = "tfrt_dht.fill_tensor_with_constant";
constexpr std::string_view kSetConstants =
    "tfrt_dht.set_tensor_with_constant_values";
constexpr std::string_view kSetValues = "tfrt_dht.set_tensor_with_values";
constexpr std::string_view kMakeTensor = "tfrt_dht.make_tensor";
constexpr std::string_view kTensorEqual = "tfrt_dht.tensor_equal";

// The ranks create_uninitialized_tensor.<dtype>.<rank> is registered for,
// as TFRT registers them.
constexpr int kMaxRankInName = 4;

// An error unless `tensor` holds T elements.
template <typename T>
absl::Status CheckDType(std::string_view op, const DenseHostTensor& tensor) {
  if (tensor.dtype() == DTypeOf<T>()) return absl::OkStatus();
  return OpError(op, "the op takes ", DTypeName(DTypeOf<T>()),
                 " tensors, the tensor has dtype ", DTypeName(tensor.dtype()),
                 " (shape ", tensor.shape().ToString(), ")");
}

// TFRT leaves the elements unspecified; zeroing them means no program ever
// reads bytes another one freed.
template <typename T, int kRank>
absl::StatusOr<DenseHostTensor> CreateUninitializedTensor(
    AggregateAttribute shape, HostContext* host) {
  if (shape.size() != kRank) {
    return OpError(kCreateUninitialized, "the op creates a tensor of rank ",
                   kRank, " but 'shape' has ", shape.size(), " dimensions");
  }
  absl::StatusOr<TensorShape> dims =
      ShapeFromAttribute(kCreateUninitialized, shape);
  if (!dims.ok()) return dims.status();
  absl::StatusOr<DenseHostTensor> tensor = DenseHostTensor::Create(
      DTypeOf<T>(), *std::move(dims), host->allocator());
  if (!tensor.ok()) return PrefixOp(kCreateUninitialized, tensor.status());
  if (tensor->num_bytes() != 0) {
    std::memset(tensor->raw_data(), 0, tensor->num_bytes());
  }
  return tensor;
}

template <typename T>
absl::StatusOr<Chain> FillTensorWithConstant(
    DenseHostTensor& tensor, const Chain&,
    Attribute<AttributeStorage<T>> value) {
  if (absl::Status status = CheckDType<T>(kFill, tensor); !status.ok()) {
    return status;
  }
  const T element = static_cast<T>(*value);
  for (T& slot : tensor.mutable_values<T>()) slot = element;
  return Chain();
}

template <typename T>
absl::StatusOr<Chain> SetTensorWithConstantValues(DenseHostTensor& tensor,
                                                  const Chain&,
                                                  AggregateAttribute values) {
  if (absl::Status status = CheckDType<T>(kSetConstants, tensor);
      !status.ok()) {
    return status;
  }
  if (static_cast<int64_t>(values.size()) != tensor.num_elements()) {
    return OpError(kSetConstants, "a tensor of shape ",
                   tensor.shape().ToString(), " holds ", tensor.num_elements(),
                   " values, the op gives ", values.size());
  }
  // Every value is checked before any is written, so a bad one leaves the
  // tensor as it was.
  for (size_t i = 0; i < values.size(); ++i) {
    const auto type = static_cast<bef::AttributeType>(values.type(i));
    if (type != AttributeTypeOf<T>()) {
      return OpError(kSetConstants, "value ", i, " is an attribute of type ",
                     bef::AttributeTypeName(type), ", the tensor holds ",
                     DTypeName(DTypeOf<T>()));
    }
  }
  absl::Span<T> elements = tensor.mutable_values<T>();
  for (size_t i = 0; i < values.size(); ++i) {
    elements[i] = FromAttribute<T>(values.data(i));
  }
  return Chain();
}

template <typename T>
absl::StatusOr<Chain> SetTensorWithValues(DenseHostTensor& tensor, const Chain&,
                                          RemainingArguments values) {
  if (absl::Status status = CheckDType<T>(kSetValues, tensor); !status.ok()) {
    return status;
  }
  if (static_cast<int64_t>(values.size()) != tensor.num_elements()) {
    return OpError(kSetValues, "a tensor of shape ", tensor.shape().ToString(),
                   " holds ", tensor.num_elements(), " values, the op gives ",
                   values.size());
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i]->IsType<T>()) {
      return OpError(kSetValues, "value ", i, " is not of type ",
                     DTypeName(DTypeOf<T>()));
    }
  }
  absl::Span<T> elements = tensor.mutable_values<T>();
  for (size_t i = 0; i < values.size(); ++i) {
    elements[i] = values[i]->get<T>();
  }
  return Chain();
}

// TFRT's rule: the buffer holds exactly the tensor's bytes, so a tensor
// never silently ignores the end of the buffer it was given.
template <typename T>
absl::StatusOr<std::tuple<DenseHostTensor, Chain>> MakeTensor(
    const RCReference<HostBuffer>& buffer, const TensorShape& shape,
    const Chain&) {
  // TensorShape bounds the element count by int64's range, which bytes of
  // 8-byte elements can still overflow.
  const bool fits =
      static_cast<uint64_t>(shape.num_elements()) <= SIZE_MAX / sizeof(T);
  const size_t needed =
      fits ? static_cast<size_t>(shape.num_elements()) * sizeof(T) : 0;
  if (!fits || needed != buffer->size()) {
    return OpError(kMakeTensor, "a tensor of dtype ", DTypeName(DTypeOf<T>()),
                   " and shape ", shape.ToString(), " takes ",
                   fits ? absl::StrCat(needed, " bytes")
                        : std::string("more bytes than memory holds"),
                   ", the buffer has ", buffer->size());
  }
  // The buffer's bytes are whatever another view wrote: i1 elements are
  // checked by the rule the wire applies, so that a byte a peer would refuse
  // never reads as true here.
  if constexpr (std::is_same_v<T, bool>) {
    if (absl::Status bytes = CheckI1Bytes(absl::MakeConstSpan(
            static_cast<const uint8_t*>(buffer->data()), needed));
        !bytes.ok()) {
      return PrefixOp(kMakeTensor, bytes);
    }
  }
  absl::StatusOr<DenseHostTensor> tensor =
      DenseHostTensor::Create(DTypeOf<T>(), shape, buffer.CopyRef());
  if (!tensor.ok()) return PrefixOp(kMakeTensor, tensor.status());
  return std::make_tuple(*std::move(tensor), Chain());
}

// Tensors of different shapes are unequal, as in TFRT; a tensor of another
// dtype than the op's is an error.
template <typename T>
absl::StatusOr<std::tuple<bool, Chain>> TensorEqual(const DenseHostTensor& a,
                                                    const DenseHostTensor& b,
                                                    const Chain&) {
  for (const DenseHostTensor* tensor : {&a, &b}) {
    if (absl::Status status = CheckDType<T>(kTensorEqual, *tensor);
        !status.ok()) {
      return status;
    }
  }
  return std::make_tuple(TensorsEqual(a, b), Chain());
}

Chain PrintTensor(const DenseHostTensor& tensor, const Chain&) {
  PrintLine(tensor.ToString());
  return Chain();
}

template <typename T, int... kRanks>
absl::Status RegisterCreateUninitialized(
    KernelRegistry* registry, std::string_view spelling,
    std::integer_sequence<int, kRanks...>) {
  KernelDefinition kernels[] = {
      SLUICE_KERNEL((CreateUninitializedTensor<T, kRanks>))...};
  for (int rank : {kRanks...}) {
    absl::Status status = registry->AddKernel(
        absl::StrCat(std::string(kCreateUninitialized), ".",
                     std::string(spelling), ".", rank),
        std::move(kernels[rank]).WithAttributeNames({"shape"}));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status RegisterForDType(KernelRegistry* registry,
                              std::string_view spelling) {
  auto name = [&](std::string_view op) {
    return absl::StrCat(std::string(op), ".", std::string(spelling));
  };
  absl::Status status = RegisterCreateUninitialized<T>(
      registry, spelling,
      std::make_integer_sequence<int, kMaxRankInName + 1>());
  if (!status.ok()) return status;
  return registry->AddKernels({
      {name(kFill),
       SLUICE_KERNEL(FillTensorWithConstant<T>).WithAttributeNames({"value"})},
      {name(kSetConstants), SLUICE_KERNEL(SetTensorWithConstantValues<T>)
                                .WithAttributeNames({"values"})},
      {name(kSetValues), SLUICE_KERNEL(SetTensorWithValues<T>)},
      {name(kMakeTensor), SLUICE_KERNEL(MakeTensor<T>)},
      {name(kTensorEqual), SLUICE_KERNEL(TensorEqual<T>)},
  });
}

}  // namespace

absl::Status RegisterDenseHostTensorKernels(KernelRegistry* registry) {
  absl::Status status =
      ForEachDTypeSpelling([&](auto element, std::string_view spelling) {
        return RegisterForDType<decltype(element)>(registry, spelling);
      });
  if (!status.ok()) return status;
  return registry->AddKernel("tfrt_dht.print_tensor",
                             SLUICE_KERNEL(PrintTensor));
}

}  // namespace tensor_kernels
}  // namespace sluice
