// The value-lifetime test kernels of the `vt` dialect
// (as TFRT defines them) on the payload VtValue (test_kernels_internal.h),
// which prints every construction, copy, move and destruction.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/print.h"

namespace sluice {
namespace test_kernels {
namespace {

// Results are built in place in their AsyncValues (Emplace), so the only
// lines a kernel causes are the construction of its result and what the
// runtime itself does with values.
void VtConstant(Attribute<int32_t> value, Result<VtValue> result) {
  result.Emplace(*value);
}

// Wraps around on overflow instead of being undefined.
void VtAdd(const VtValue& a, const VtValue& b, Result<VtValue> result) {
  result.Emplace(static_cast<int32_t>(static_cast<uint32_t>(a.value()) +
                                      static_cast<uint32_t>(b.value())));
}

// The input chain only orders the print.
Chain VtPrint(const VtValue& value, const Chain&) {
  PrintLine(absl::StrCat("print vt_value(", value.value(), ")"));
  return Chain();
}

}  // namespace

absl::Status RegisterVtKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"vt.constant", SLUICE_KERNEL(VtConstant).WithAttributeNames({"value"})},
      {"vt.add", SLUICE_KERNEL(VtAdd)},
      {"vt.print", SLUICE_KERNEL(VtPrint)},
  });
}

}  // namespace test_kernels
}  // namespace sluice
