// The kernels of the `tfrt_ft` dialect: checkpoints of dense host tensors
// (docs/checkpoints.md), step signals (docs/monitor.md) and quorums under a
// lighthouse (docs/lighthouse.md).
#ifndef SLUICE_KERNELS_FT_KERNELS_H_
#define SLUICE_KERNELS_FT_KERNELS_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// Registers tfrt_ft.save_checkpoint, tfrt_ft.restore_checkpoint, the
// step signals tfrt_ft.step_begin, step_end, epoch_end and train_end, and
// the quorum ops tfrt_ft.start_quorum and should_commit.
absl::Status RegisterFtKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_FT_KERNELS_H_
