// The tutorial kernels of `tfrt_tutorial` (as TFRT defines them): the
// smallest example of a kernel library with a payload type of its own.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/print.h"

namespace sluice {
namespace test_kernels {
namespace {

// The payload of `!my.coordinate`.
struct Coordinate {
  int32_t x = 0;
  int32_t y = 0;
};

Coordinate CreateCoordinate(int32_t x, int32_t y) { return Coordinate{x, y}; }

// The input chain only orders the print.
Chain PrintCoordinate(const Coordinate& coordinate, const Chain&) {
  PrintLine(absl::StrCat("(", coordinate.x, ", ", coordinate.y, ")"));
  return Chain();
}

}  // namespace

absl::Status RegisterTutorialKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_tutorial.create_coordinate", SLUICE_KERNEL(CreateCoordinate)},
      {"tfrt_tutorial.print_coordinate", SLUICE_KERNEL(PrintCoordinate)},
  });
}

}  // namespace test_kernels
}  // namespace sluice
