// The groups of kernels RegisterFtKernels registers.
#ifndef SLUICE_KERNELS_FT_KERNEL_GROUPS_H_
#define SLUICE_KERNELS_FT_KERNEL_GROUPS_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// tfrt_ft.save_checkpoint, tfrt_ft.restore_checkpoint.
absl::Status RegisterCheckpointKernels(KernelRegistry* registry);
// tfrt_ft.step_begin, step_end, epoch_end, train_end.
absl::Status RegisterStepSignalKernels(KernelRegistry* registry);
// tfrt_ft.start_quorum, tfrt_ft.should_commit.
absl::Status RegisterQuorumKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_FT_KERNEL_GROUPS_H_
