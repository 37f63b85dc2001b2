#include "kernels/basic/basic_kernels.h"

#include "kernels/basic/basic_kernels_internal.h"

namespace sluice {

void RegisterBasicKernels(KernelRegistry* registry) {
  basic_kernels::RegisterValueKernels(registry);
  basic_kernels::RegisterPrintKernels(registry);
  basic_kernels::RegisterControlFlowKernels(registry);
  basic_kernels::RegisterParallelKernels(registry);
}

}  // namespace sluice
