// Kernels that look at the program itself: tfrt_test.flat walks a nested
// array attribute, tfrt_test.unique_loc checks that ops have location
// records of their own.
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/bef/format.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"

namespace sluice {
namespace test_kernels {
namespace {

using bef::AttributeType;

// Emplaces the leaves of `array`, depth first, into the results from `next`.
absl::Status Flatten(const AggregateAttribute& array, KernelFrame* frame,
                     size_t& next) {
  for (size_t i = 0; i < array.size(); ++i) {
    const auto type = static_cast<AttributeType>(array.type(i));
    if (type == AttributeType::kArray) {
      absl::Status status = Flatten(array.aggregate(i), frame, next);
      if (!status.ok()) return status;
      continue;
    }
    const void* data = array.data(i);
    switch (type) {
      case AttributeType::kString:
        frame->EmplaceResultAt<std::string>(
            next, std::string(StringAttribute(data).get()));
        break;
      case AttributeType::kBool:
        frame->EmplaceResultAt<bool>(next, *Attribute<uint8_t>(data) != 0);
        break;
      case AttributeType::kI32:
        frame->EmplaceResultAt<int32_t>(next, *Attribute<int32_t>(data));
        break;
      case AttributeType::kI64:
        frame->EmplaceResultAt<int64_t>(next, *Attribute<int64_t>(data));
        break;
      case AttributeType::kF32:
        frame->EmplaceResultAt<float>(next, *Attribute<float>(data));
        break;
      case AttributeType::kF64:
        frame->EmplaceResultAt<double>(next, *Attribute<double>(data));
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("tfrt_test.flat: cannot flatten a ",
                         bef::AttributeTypeName(type), " attribute"));
    }
    ++next;
  }
  return absl::OkStatus();
}

size_t CountLeaves(const AggregateAttribute& array) {
  size_t leaves = 0;
  for (size_t i = 0; i < array.size(); ++i) {
    leaves += static_cast<AttributeType>(array.type(i)) == AttributeType::kArray
                  ? CountLeaves(array.aggregate(i))
                  : 1;
  }
  return leaves;
}

// `value` is an array attribute: its leaves become the results, in order.
absl::Status Flat(AggregateAttribute value, KernelFrame* frame) {
  // Checked before any result is set, so a mismatch fails them all alike.
  if (const size_t leaves = CountLeaves(value);
      leaves != frame->GetNumResults()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tfrt_test.flat: the attribute has ", leaves, " leaves but the op has ",
        frame->GetNumResults(), " results"));
  }
  size_t next = 0;
  return Flatten(value, frame, next);
}

// The name each location record was first seen with, per host.
struct LocationNames {
  std::mutex mu;
  std::unordered_map<const void*, std::string> names;
};

// Fails if another tfrt_test.unique_loc op (another `name`) shares this
// op's location record: the compiler must give every op its own.
absl::StatusOr<Chain> UniqueLoc(StringAttribute name, KernelFrame* frame) {
  const void* record = frame->debug_info().location_record;
  if (record == nullptr) return Chain();
  auto& locations = frame->host()->GetOrCreateSharedContext<LocationNames>();
  std::lock_guard<std::mutex> lock(locations.mu);
  auto [it, inserted] = locations.names.emplace(record, std::string(name));
  if (!inserted && it->second != name.get()) {
    return absl::InvalidArgumentError("duplicate locations");
  }
  return Chain();
}

}  // namespace

absl::Status RegisterAttributeKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_test.flat", SLUICE_KERNEL(Flat).WithAttributeNames({"value"})},
      {"tfrt_test.unique_loc",
       SLUICE_KERNEL(UniqueLoc).WithAttributeNames({"name"})},
  });
}

}  // namespace test_kernels
}  // namespace sluice
