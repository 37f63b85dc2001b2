#include "tools/common/kernel_plugin_loader.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "sluice/tools/kernel_plugin.h"

namespace sluice::tools {

absl::Status LoadKernelPlugin(const std::string& path,
                              KernelRegistry* registry) {
  // dlopen searches the library path for a bare name; a plugin named on the
  // command line is a file, so a name without a slash means one here.
  const std::string file =
      path.find('/') == std::string::npos ? "./" + path : path;
  // RTLD_NOW: a symbol the tool lacks is an error now, not a crash when a
  // kernel first runs. RTLD_LOCAL: two plugins' own symbols never mix.
  void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(
        absl::StrCat("couldn't load kernel plugin '", path,
                     "': ", why != nullptr ? why : "unknown error"));
  }
  dlerror();
  auto register_kernels = reinterpret_cast<SluiceRegisterKernelsFn>(
      dlsym(library, SLUICE_KERNEL_PLUGIN_SYMBOL));
  if (register_kernels == nullptr) {
    dlclose(library);
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel plugin '", path,
        "' has no function " SLUICE_KERNEL_PLUGIN_SYMBOL
        " (define it with SLUICE_KERNEL_PLUGIN, see docs/kernels.md)"));
  }
  absl::Status status;
  register_kernels(registry, &status);
  if (!status.ok()) {
    // Kernels it registered before failing stay in the registry and point
    // into it, so it stays loaded.
    return absl::Status(status.code(),
                        absl::StrCat("kernel plugin '", path,
                                     "' failed to register its kernels: ",
                                     std::string(status.message())));
  }
  return absl::OkStatus();
}

}  // namespace sluice::tools
