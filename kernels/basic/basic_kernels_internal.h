// The kernel groups RegisterBasicKernels() registers, one per file.
#ifndef SLUICE_KERNELS_BASIC_BASIC_KERNELS_INTERNAL_H_
#define SLUICE_KERNELS_BASIC_BASIC_KERNELS_INTERNAL_H_

#include "sluice/kernel/kernel_registry.h"

namespace sluice {
namespace basic_kernels {

absl::Status RegisterValueKernels(
    KernelRegistry* registry);  // constants, arithmetic, chains, casts
absl::Status RegisterPrintKernels(KernelRegistry* registry);  // tfrt.print.*
absl::Status RegisterControlFlowKernels(
    KernelRegistry* registry);  // call, if, cond, case, while, once, repeat
absl::Status RegisterParallelKernels(
    KernelRegistry* registry);  // parallel_for, parallel_call

}  // namespace basic_kernels
}  // namespace sluice

#endif  // SLUICE_KERNELS_BASIC_BASIC_KERNELS_INTERNAL_H_
