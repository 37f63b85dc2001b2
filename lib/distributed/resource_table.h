// The values a worker keeps for its callers (ExecuteRequest.keep_results_as)
// until they release them or the process ends: ids chosen by the callers,
// each mapped to a value and the MLIR type it had as a function's result,
// against which later calls that pass it are checked.
#ifndef SLUICE_LIB_DISTRIBUTED_RESOURCE_TABLE_H_
#define SLUICE_LIB_DISTRIBUTED_RESOURCE_TABLE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "absl/types/span.h"
#include "sluice/host_context/async_value.h"
#include "sluice/support/ref_count.h"

namespace sluice::dist {

struct Resource {
  // Kept alive as long as the value (declared first, so it goes last): the
  // program whose function made the value, which a value such as an
  // iterator may still refer to.
  std::shared_ptr<const void> owner;
  RCReference<AsyncValue> value;
  std::string type;  // "!t.tensor", "!tfrt_data.iterator"
};

// Thread-safe. Values are let go outside the lock: dropping the last
// reference to one may run arbitrary destructors.
class ResourceTable {
 public:
  ResourceTable() = default;
  ResourceTable(const ResourceTable&) = delete;
  ResourceTable& operator=(const ResourceTable&) = delete;

  // Keeps `resource` under `id`, replacing what was kept under it.
  void Keep(uint64_t id, Resource resource);
  // A copy of what is kept under `id` (its references shared), or none.
  std::optional<Resource> Find(uint64_t id) const;
  // Drops what is kept under each of `ids`; returns how many were kept.
  int64_t Release(absl::Span<const uint64_t> ids);
  int64_t size() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, Resource> resources_;  // guarded by mu_
};

}  // namespace sluice::dist

#endif  // SLUICE_LIB_DISTRIBUTED_RESOURCE_TABLE_H_
