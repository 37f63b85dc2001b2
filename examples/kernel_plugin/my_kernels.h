// A kernel library of a Sluice user: the kernels docs/kernels.md runs from
// the standard tools through a plugin and from a runner of its own.
#ifndef SLUICE_EXAMPLES_KERNEL_PLUGIN_MY_KERNELS_H_
#define SLUICE_EXAMPLES_KERNEL_PLUGIN_MY_KERNELS_H_

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace my {

// my.fib.i64 and my.clamp.i32.
absl::Status RegisterMyKernels(sluice::KernelRegistry* registry);

}  // namespace my

#endif  // SLUICE_EXAMPLES_KERNEL_PLUGIN_MY_KERNELS_H_
