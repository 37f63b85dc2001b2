// tfrt.print.*: writes one line per value to stdout, in the exact format
// programs written for TFRT expect (as TFRT defines them).
//
// Each kernel takes (value, chain) and returns a new chain. The input chain
// only orders the print after earlier side effects, which strictness already
// guarantees, so the kernels never read it.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/basic/basic_kernels_internal.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/print.h"

namespace sluice {
namespace basic_kernels {
namespace {

// i1 prints as a number (`int1 = 1`), not as true/false.
Chain PrintI1(bool value) {
  PrintLine(absl::StrCat("int1 = ", value ? 1 : 0));
  return Chain();
}

Chain PrintI32(int32_t value) {
  PrintLine(absl::StrCat("int32 = ", value));
  return Chain();
}

Chain PrintI64(int64_t value) {
  PrintLine(absl::StrCat("int64 = ", value));
  return Chain();
}

// printf's %f: six decimals, float promoted to double first, which is what
// makes 312.27136f print as 312.271362.
Chain PrintF32(float value) {
  PrintLine(absl::StrFormat("f32 = %f", value));
  return Chain();
}

Chain PrintF64(double value) {
  PrintLine(absl::StrFormat("f64 = %f", value));
  return Chain();
}

}  // namespace

absl::Status RegisterPrintKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt.print.i1", SLUICE_KERNEL(PrintI1)},
      {"tfrt.print.i32", SLUICE_KERNEL(PrintI32)},
      {"tfrt.print.i64", SLUICE_KERNEL(PrintI64)},
      {"tfrt.print.f32", SLUICE_KERNEL(PrintF32)},
      {"tfrt.print.f64", SLUICE_KERNEL(PrintF64)},
  });
}

}  // namespace basic_kernels
}  // namespace sluice
