// The tfrt_data kernel groups, registered together by RegisterDataKernels.
#ifndef SLUICE_KERNELS_DATA_DATA_KERNELS_INTERNAL_H_
#define SLUICE_KERNELS_DATA_DATA_KERNELS_INTERNAL_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {
namespace data_kernels {

// range_dataset, gaussian_clusters_dataset, shard_dataset, batch_dataset,
// repeat_dataset.
absl::Status RegisterDatasetKernels(KernelRegistry* registry);
// make_iterator, iterator_get_next.
absl::Status RegisterIteratorKernels(KernelRegistry* registry);

}  // namespace data_kernels
}  // namespace sluice

#endif  // SLUICE_KERNELS_DATA_DATA_KERNELS_INTERNAL_H_
