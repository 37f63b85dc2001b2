#include "sluice/host_context/resource_context.h"

namespace sluice {

ResourceContext::~ResourceContext() {
  for (auto it = resources_.rbegin(); it != resources_.rend(); ++it) {
    it->destroy(it->object);
  }
}

ResourceContext::Resource* ResourceContext::Find(std::string_view name) {
  for (Resource& resource : resources_) {
    if (resource.name == name) return &resource;
  }
  return nullptr;
}

}  // namespace sluice
