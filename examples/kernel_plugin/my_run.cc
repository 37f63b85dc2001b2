// A runner with the standard kernels and the user's: every option of
// sluice_run, under another name.
// [START my_run]
#include "my_kernels.h"
#include "sluice/tools/run_main.h"

absl::Status RegisterKernels(sluice::KernelRegistry* registry) {
  if (absl::Status status = sluice::RegisterStandardKernels(registry);
      !status.ok()) {
    return status;
  }
  return my::RegisterMyKernels(registry);
}

int main(int argc, char** argv) {
  return sluice::SluiceRunMain(argc, argv, RegisterKernels, "my_run");
}
// [END my_run]
