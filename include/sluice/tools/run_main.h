// sluice_run as a library: a runner with your own kernels is a main that
// calls SluiceRunMain with a function registering them (see
// docs/kernels.md):
//
//   int main(int argc, char** argv) {
//     return sluice::SluiceRunMain(argc, argv, RegisterKernels);
//   }
//
// Link //tools/sluice_run:run_main. The runner then takes every option of
// sluice_run (--help lists them) and runs programs that use your kernels.
#ifndef SLUICE_TOOLS_RUN_MAIN_H_
#define SLUICE_TOOLS_RUN_MAIN_H_

#include "sluice/tools/standard_kernels.h"

namespace sluice {

// Parses the command line as sluice_run does, registers kernels with
// `register_kernels` and then from each --kernel_plugin, runs the program
// and returns the exit status. `tool_name` is what --help, --version and
// error messages call the tool.
int SluiceRunMain(int argc, char** argv,
                  const RegisterKernelsFn& register_kernels,
                  const char* tool_name = "sluice_run");

}  // namespace sluice

#endif  // SLUICE_TOOLS_RUN_MAIN_H_
