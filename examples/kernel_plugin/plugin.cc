// The kernel library as a plugin for sluice_run and sluice_worker
// (--kernel_plugin=my_kernels_plugin.so).
// [START plugin]
#include "my_kernels.h"
#include "sluice/tools/kernel_plugin.h"

SLUICE_KERNEL_PLUGIN(my::RegisterMyKernels);
// [END plugin]
