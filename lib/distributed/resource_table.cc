#include "lib/distributed/resource_table.h"

#include <utility>
#include <vector>

namespace sluice::dist {

void ResourceTable::Keep(uint64_t id, Resource resource) {
  std::lock_guard<std::mutex> lock(mu_);
  // The replaced value trades places with the new one and goes when
  // `resource` does, after the lock is let go.
  std::swap(resources_[id], resource);
}

std::optional<Resource> ResourceTable::Find(uint64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find(id);
  if (it == resources_.end()) return std::nullopt;
  return Resource{it->second.owner, it->second.value.CopyRef(),
                  it->second.type};
}

int64_t ResourceTable::Release(absl::Span<const uint64_t> ids) {
  std::vector<Resource> released;
  std::lock_guard<std::mutex> lock(mu_);
  for (uint64_t id : ids) {
    auto it = resources_.find(id);
    if (it == resources_.end()) continue;
    released.push_back(std::move(it->second));
    resources_.erase(it);
  }
  return static_cast<int64_t>(released.size());
}

int64_t ResourceTable::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(resources_.size());
}

}  // namespace sluice::dist
