// Which tfrt.if kernels run their regions in their caller's frame.
// Private to lib/executor.
#ifndef SLUICE_LIB_EXECUTOR_REGION_INLINING_H_
#define SLUICE_LIB_EXECUTOR_REGION_INLINING_H_

#include <cstdint>

#include "absl/types/span.h"

namespace sluice {
namespace executor_internal {

class ExecutableFunction;

// Regions with more kernels run in frames of their own: they run no look
// for an idle worker while inline, and their frame's cost is small beside
// theirs.
inline constexpr uint32_t kMaxInlineRegionKernels = 256;
// Nor may a region's frame, its own areas included, hold more registers:
// each caller's frame grows by that much, however deep regions nest.
inline constexpr uint32_t kMaxInlineRegionRegisters = 1024;

// Marks kInlineIf the kIf kernels of `functions` whose two functions are
// both loaded functions within the limits above that do not lead back to
// the kernel's own function by regions (tfrt.cond may name any function),
// and sizes every function's frame for its regions: the area holds the
// largest region's frame, areas included.
// Functions must have their bodies loaded.
void PlanInlineRegions(absl::Span<ExecutableFunction* const> functions);

}  // namespace executor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_EXECUTOR_REGION_INLINING_H_
