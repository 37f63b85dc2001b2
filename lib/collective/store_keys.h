// The store's key layout: gen/<generation>/<name>.
#ifndef SLUICE_LIB_COLLECTIVE_STORE_KEYS_H_
#define SLUICE_LIB_COLLECTIVE_STORE_KEYS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::ccl {

std::string GenerationKey(int64_t generation, std::string_view name);

// The generation of a well-formed key (a non-negative number and a name
// that is not empty); none otherwise.
std::optional<int64_t> KeyGeneration(std::string_view key);

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_STORE_KEYS_H_
