#include "sluice/kernel/kernel_registry.h"

#include <algorithm>

#include "sluice/host_context/host_context.h"
#include "sluice/support/logging.h"

namespace sluice {

void KernelRegistry::AddKernel(std::string_view name,
                               KernelImplementation implementation,
                               Strictness strictness) {
  bool inserted = kernels_
                      .emplace(std::string(name),
                               RegisteredKernel{implementation, strictness})
                      .second;
  SLUICE_CHECK(inserted) << "kernel '" << name << "' is registered twice";
}

const RegisteredKernel* KernelRegistry::GetKernel(std::string_view name) const {
  auto it = kernels_.find(std::string(name));
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::KernelNames() const {
  std::vector<std::string> names;
  names.reserve(kernels_.size());
  for (const auto& entry : kernels_) names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  return names;
}

void KernelRegistry::AddNativeFunction(std::string_view name,
                                       NativeFunction function) {
  bool inserted = native_functions_.emplace(std::string(name), function).second;
  SLUICE_CHECK(inserted) << "native function '" << name
                         << "' is registered twice";
}

NativeFunction KernelRegistry::GetNativeFunction(std::string_view name) const {
  auto it = native_functions_.find(std::string(name));
  return it == native_functions_.end() ? nullptr : it->second;
}

KernelRegistry& GetKernelRegistry(HostContext* host) {
  return host->GetOrCreateSharedContext<KernelRegistry>();
}

}  // namespace sluice
