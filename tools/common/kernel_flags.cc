#include "tools/common/kernel_flags.h"

#include <cstdio>

#include "tools/common/kernel_plugin_loader.h"

namespace sluice::tools {

KernelFlags::KernelFlags(FlagSet& set)
    : plugins_(set, "kernel_plugin",
               "load the kernels of this shared library "
               "(repeatable; see docs/kernels.md)",
               {}, ValueName("path.so")),
      list_kernels_(set, "list_kernels",
                    "print every registered kernel with what it takes "
                    "(operands, results, attributes), and exit") {}

absl::Status KernelFlags::RegisterKernels(
    const RegisterKernelsFn& register_kernels, KernelRegistry* registry) const {
  if (absl::Status status = register_kernels(registry); !status.ok()) {
    return status;
  }
  for (const std::string& path : *plugins_) {
    if (absl::Status status = LoadKernelPlugin(path, registry); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

void PrintKernels(const KernelRegistry& registry) {
  for (const std::string& name : registry.KernelNames()) {
    std::printf("%s\n",
                DescribeKernel(name, *registry.GetKernel(name)).c_str());
  }
}

}  // namespace sluice::tools
