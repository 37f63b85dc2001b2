// Loads kernel plugins (sluice/tools/kernel_plugin.h) into a registry, for
// --kernel_plugin.
#ifndef SLUICE_TOOLS_COMMON_KERNEL_PLUGIN_LOADER_H_
#define SLUICE_TOOLS_COMMON_KERNEL_PLUGIN_LOADER_H_

#include <string>

#include "absl/status/status.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice::tools {

// Opens the shared library at `path` and calls its SluiceRegisterKernels on
// `registry`. The library stays loaded for the life of the process: its
// kernels are code the registry points into. Errors name the path: the
// library cannot be opened (missing, not a shared library, symbols the tool
// does not have), has no SluiceRegisterKernels, or its registration failed.
absl::Status LoadKernelPlugin(const std::string& path,
                              KernelRegistry* registry);

}  // namespace sluice::tools

#endif  // SLUICE_TOOLS_COMMON_KERNEL_PLUGIN_LOADER_H_
