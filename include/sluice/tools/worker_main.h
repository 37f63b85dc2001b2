// sluice_worker as a library: a worker with your own kernels is a main that
// calls SluiceWorkerMain with a function registering them (see
// docs/kernels.md). Link //tools/sluice_worker:worker_main.
#ifndef SLUICE_TOOLS_WORKER_MAIN_H_
#define SLUICE_TOOLS_WORKER_MAIN_H_

#include "sluice/tools/standard_kernels.h"

namespace sluice {

// Parses the command line as sluice_worker does, registers kernels with
// `register_kernels` and then from each --kernel_plugin, serves until
// SIGTERM or SIGINT and returns the exit status. `tool_name` is what
// --help, --version and messages call the tool.
int SluiceWorkerMain(int argc, char** argv,
                     const RegisterKernelsFn& register_kernels,
                     const char* tool_name = "sluice_worker");

}  // namespace sluice

#endif  // SLUICE_TOOLS_WORKER_MAIN_H_
