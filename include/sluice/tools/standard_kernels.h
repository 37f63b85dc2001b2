// The kernel groups the stock tools (sluice_run, sluice_worker) register.
// A tool of your own registers them, then its own kernels:
//
//   absl::Status RegisterKernels(sluice::KernelRegistry* registry) {
//     if (absl::Status s = sluice::RegisterStandardKernels(registry);
//         !s.ok()) {
//       return s;
//     }
//     return my::RegisterMyKernels(registry);
//   }
#ifndef SLUICE_TOOLS_STANDARD_KERNELS_H_
#define SLUICE_TOOLS_STANDARD_KERNELS_H_

#include <functional>

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {

// What SluiceRunMain and SluiceWorkerMain call to fill the tool's registry,
// before any --kernel_plugin is loaded.
using RegisterKernelsFn = std::function<absl::Status(KernelRegistry*)>;

// Every kernel of //kernels/...: basic, test, dist, tensor, math, ft, data,
// ccl, gpu. The first group that fails stops the registration; its error is
// returned.
absl::Status RegisterStandardKernels(KernelRegistry* registry);

}  // namespace sluice

#endif  // SLUICE_TOOLS_STANDARD_KERNELS_H_
