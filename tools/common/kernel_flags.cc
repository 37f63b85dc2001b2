#include "tools/common/kernel_flags.h"

#include <cstdio>

#include "tools/common/kernel_plugin_loader.h"

namespace sluice::tools {

namespace cl = llvm::cl;

KernelFlags::KernelFlags(cl::OptionCategory& category)
    : plugins_("kernel_plugin",
               cl::desc("load the kernels of this shared library "
                        "(repeatable; see docs/kernels.md)"),
               cl::value_desc("path.so"), cl::cat(category)),
      list_kernels_("list_kernels",
                    cl::desc("print every registered kernel with what it "
                             "takes (operands, results, attributes), and "
                             "exit"),
                    cl::init(false), cl::cat(category)) {}

absl::Status KernelFlags::RegisterKernels(
    const RegisterKernelsFn& register_kernels, KernelRegistry* registry) const {
  if (absl::Status status = register_kernels(registry); !status.ok()) {
    return status;
  }
  for (const std::string& path : plugins_) {
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
