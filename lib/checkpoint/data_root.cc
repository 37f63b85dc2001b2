#include "lib/checkpoint/data_root.h"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sluice::checkpoint {
namespace {

// `path`'s components, without empty ones and ".".
std::vector<std::string> Components(const std::string& path) {
  std::vector<std::string> components;
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part.empty() || part == ".") continue;
    components.emplace_back(part);
  }
  return components;
}

std::string JoinAbsolute(const std::vector<std::string>& components,
                         size_t count) {
  std::string joined;
  for (size_t i = 0; i < count; ++i) absl::StrAppend(&joined, "/", components[i]);
  return joined.empty() ? "/" : joined;
}

// Whether `path` is `root` or lies under it; both canonical.
bool IsUnder(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root ||
         (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
          path[root.size()] == '/');
}

absl::Status Escapes(const std::string& path, const std::string& root,
                     const std::string& why) {
  return absl::PermissionDeniedError(absl::StrCat(
      "path '", path, "' is outside the data root '", root, "': ", why));
}

// realpath(3) of `path`, or nullopt when it fails (the path does not exist).
std::optional<std::string> RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) return std::nullopt;
  return std::string(resolved);
}

}  // namespace

absl::StatusOr<std::string> ResolveUnderRoot(const std::string& root,
                                             const std::string& path) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("empty path under the data root '", root, "'"));
  }
  const std::vector<std::string> components = Components(path);
  for (const std::string& component : components) {
    if (component == "..") return Escapes(path, root, "it climbs with '..'");
  }
  std::vector<std::string> absolute =
      path[0] == '/' ? std::vector<std::string>() : Components(root);
  absolute.insert(absolute.end(), components.begin(), components.end());
  const std::string lexical = JoinAbsolute(absolute, absolute.size());
  if (!IsUnder(lexical, root)) {
    return Escapes(path, root, "it is an absolute path elsewhere");
  }
  // The longest prefix that exists, resolved through its links; what lies
  // past it does not exist, so it cannot be a link.
  for (size_t count = absolute.size();; --count) {
    const std::string prefix = JoinAbsolute(absolute, count);
    std::optional<std::string> real = RealPath(prefix);
    if (!real.has_value()) {
      if (count == 0) break;
      continue;
    }
    if (!IsUnder(*real, root)) {
      return Escapes(path, root,
                     absl::StrCat("'", prefix, "' resolves to '", *real,
                                  "' through a symbolic link"));
    }
    std::string resolved = *real;
    for (size_t i = count; i < absolute.size(); ++i) {
      absl::StrAppend(&resolved, resolved == "/" ? "" : "/", absolute[i]);
    }
    return resolved;
  }
  // Not even "/" resolves: only when the root itself went away.
  return absl::NotFoundError(
      absl::StrCat("data root '", root, "' no longer exists"));
}

absl::Status DataRoot::Confine(const std::string& directory) {
  std::optional<std::string> real = RealPath(directory);
  if (!real.has_value()) {
    return absl::NotFoundError(absl::StrCat("data root '", directory,
                                            "': ", std::strerror(errno)));
  }
  struct stat info;
  if (stat(real->c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("data root '", directory, "' is not a directory"));
  }
  std::lock_guard<std::mutex> lock(mu_);
  root_ = *std::move(real);
  return absl::OkStatus();
}

absl::StatusOr<std::string> DataRoot::Resolve(const std::string& path) const {
  std::optional<std::string> root = this->root();
  if (!root.has_value()) return path;
  return ResolveUnderRoot(*root, path);
}

std::optional<std::string> DataRoot::root() const {
  std::lock_guard<std::mutex> lock(mu_);
  return root_;
}

}  // namespace sluice::checkpoint
