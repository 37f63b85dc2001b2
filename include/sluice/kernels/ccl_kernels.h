// The kernels of the `tfrt_ccl` dialect (docs/collectives.md). A
// `!tfrt_ccl.group` value holds a GroupValue.
#ifndef SLUICE_KERNELS_CCL_KERNELS_H_
#define SLUICE_KERNELS_CCL_KERNELS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sluice/collective/collective_group.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/ref_count.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice {

// The payload of a `!tfrt_ccl.group` value: kernels of other dialects that
// make groups (a manager's quorum) produce one of these.
using GroupValue = RCReference<ccl::CollectiveGroup>;

absl::Status RegisterCclKernels(KernelRegistry* registry);

// The tensor a receive op names with its `dtype` and `shape` attributes
// (`shape = [2, 3]` arrives as an aggregate of i64 attributes).
absl::StatusOr<std::pair<DType, TensorShape>> ReceivedTensorType(
    StringAttribute dtype, const AggregateAttribute& shape);

}  // namespace sluice

#endif  // SLUICE_KERNELS_CCL_KERNELS_H_
