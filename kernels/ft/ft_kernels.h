// The kernels of the `tfrt_ft` dialect: checkpoints of dense host tensors
// (docs/checkpoints.md) and step signals (docs/monitor.md).
#ifndef SLUICE_KERNELS_FT_FT_KERNELS_H_
#define SLUICE_KERNELS_FT_FT_KERNELS_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// Registers tfrt_ft.save_checkpoint, tfrt_ft.restore_checkpoint and the
// step signals tfrt_ft.step_begin, step_end, epoch_end and train_end.
absl::Status RegisterFtKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_KERNELS_FT_FT_KERNELS_H_
