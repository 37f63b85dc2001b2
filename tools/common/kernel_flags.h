// --kernel_plugin and --list_kernels, the flags sluice_run and
// sluice_worker share to say which kernels they have.
#ifndef SLUICE_TOOLS_COMMON_KERNEL_FLAGS_H_
#define SLUICE_TOOLS_COMMON_KERNEL_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/tools/standard_kernels.h"
#include "tools/common/flags.h"

namespace sluice::tools {

class KernelFlags {
 public:
  // Adds the flags to `set`; construct before parsing.
  explicit KernelFlags(FlagSet& set);

  // Registers `register_kernels`' kernels, then each plugin's in the order
  // given. A plugin's kernel that has a name taken already is an error.
  absl::Status RegisterKernels(const RegisterKernelsFn& register_kernels,
                               KernelRegistry* registry) const;

  // Whether --list_kernels asks to print the kernels and exit.
  bool list_kernels() const { return *list_kernels_; }

 private:
  Flag<std::vector<std::string>> plugins_;
  Flag<bool> list_kernels_;
};

// Every kernel of `registry` as --list_kernels prints it: one line each,
// sorted by name, with what it takes (DescribeKernel).
void PrintKernels(const KernelRegistry& registry);

}  // namespace sluice::tools

#endif  // SLUICE_TOOLS_COMMON_KERNEL_FLAGS_H_
