#include "lib/collective/store_keys.h"

#include <charconv>

#include "absl/strings/str_cat.h"

namespace sluice::ccl {
namespace {
constexpr std::string_view kPrefix = "gen/";
}  // namespace

std::string GenerationKey(int64_t generation, std::string_view name) {
  return absl::StrCat(std::string(kPrefix), generation, "/", std::string(name));
}

std::optional<int64_t> KeyGeneration(std::string_view key) {
  if (key.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  key.remove_prefix(kPrefix.size());
  size_t slash = key.find('/');
  if (slash == std::string_view::npos || slash == 0 ||
      slash + 1 == key.size()) {
    return std::nullopt;
  }
  int64_t generation = 0;
  auto [end, error] =
      std::from_chars(key.data(), key.data() + slash, generation);
  if (error != std::errc() || end != key.data() + slash || generation < 0) {
    return std::nullopt;
  }
  return generation;
}

}  // namespace sluice::ccl
