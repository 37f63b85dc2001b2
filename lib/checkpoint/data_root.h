// DataRoot: the directory the kernels that open files (the checkpoint
// kernels) may touch. A worker runs programs written by whoever reaches its
// port, so it confines their paths to its --data_root; sluice_run runs its
// own user's programs and sets no root, so their paths mean what they say.
#ifndef SLUICE_LIB_CHECKPOINT_DATA_ROOT_H_
#define SLUICE_LIB_CHECKPOINT_DATA_ROOT_H_

#include <mutex>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace sluice::checkpoint {

// One per HostContext, as a shared context
// (host->GetOrCreateSharedContext<DataRoot>()): unset until Confine().
class DataRoot {
 public:
  // From now on, every path the host's kernels open must lie under
  // `directory`, which must exist and be a directory (NOT_FOUND or
  // INVALID_ARGUMENT naming it otherwise). Call before serving programs.
  absl::Status Confine(const std::string& directory);

  // `path` as a kernel may open it: unchanged without a root; with one, the
  // resolved path under the root, or PERMISSION_DENIED (see
  // ResolveUnderRoot).
  absl::StatusOr<std::string> Resolve(const std::string& path) const;

  // The canonical root, if one is set.
  std::optional<std::string> root() const;

 private:
  mutable std::mutex mu_;
  std::optional<std::string> root_;  // guarded by mu_
};

// `path` resolved under `root`, an absolute canonical directory (what
// realpath gives): a relative path is taken from the root. Refused with
// PERMISSION_DENIED, naming the path, the root and why:
//  - a ".." component, wherever it is (no path needs one to stay inside);
//  - an absolute path outside the root;
//  - a path whose longest existing prefix resolves (realpath, following
//    symbolic links) to somewhere outside the root.
// The components past the longest existing prefix do not exist yet, so
// they cannot be links; the result is the resolved prefix joined with them.
// Empty paths are INVALID_ARGUMENT.
absl::StatusOr<std::string> ResolveUnderRoot(const std::string& root,
                                             const std::string& path);

}  // namespace sluice::checkpoint

#endif  // SLUICE_LIB_CHECKPOINT_DATA_ROOT_H_
