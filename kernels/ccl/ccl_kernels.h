// The kernels of the `tfrt_ccl` dialect (docs/collectives.md). A
// `!tfrt_ccl.group` value holds a GroupValue.
#ifndef SLUICE_KERNELS_CCL_CCL_KERNELS_H_
#define SLUICE_KERNELS_CCL_CCL_KERNELS_H_

#include "absl/status/status.h"
#include "sluice/collective/collective_group.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/ref_count.h"

namespace sluice {

// The payload of a `!tfrt_ccl.group` value: kernels of other dialects that
// make groups (a manager's quorum) produce one of these.
using GroupValue = RCReference<ccl::CollectiveGroup>;

absl::Status RegisterCclKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_CCL_CCL_KERNELS_H_
