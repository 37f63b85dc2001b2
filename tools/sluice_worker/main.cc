// sluice_worker: one task of a Sluice cluster (see docs/distributed.md). A
// thin main over //tools/sluice_worker:worker_main with the standard
// kernels; a worker with kernels of your own is the same file with another
// registration function (docs/kernels.md).
#include "sluice/tools/standard_kernels.h"
#include "sluice/tools/worker_main.h"

int main(int argc, char** argv) {
  return sluice::SluiceWorkerMain(argc, argv, sluice::RegisterStandardKernels);
}
