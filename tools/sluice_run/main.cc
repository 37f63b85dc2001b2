// sluice_run: runs the functions of a program and prints their results. A
// thin main over //tools/sluice_run:run_main with the standard kernels; a
// runner with kernels of your own is the same file with another
// registration function (docs/kernels.md).
#include "sluice/tools/run_main.h"
#include "sluice/tools/standard_kernels.h"

int main(int argc, char** argv) {
  return sluice::SluiceRunMain(argc, argv, sluice::RegisterStandardKernels);
}
