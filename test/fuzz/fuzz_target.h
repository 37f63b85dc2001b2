// What a fuzz target run by seeded_fuzz_driver.cc provides besides
// LLVMFuzzerTestOneInput. The driver stands in for libFuzzer under gcc; to
// fuzz for real, the same target file links with -fsanitize=fuzzer and
// starts from the corpus and dictionary the driver writes
// (build_libfuzzer_target.sh).
#ifndef SLUICE_TEST_FUZZ_FUZZ_TARGET_H_
#define SLUICE_TEST_FUZZ_FUZZ_TARGET_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {
namespace fuzz {

struct TargetSeeds {
  // Valid inputs, made where possible by the format's own encoders so that
  // they follow the format when it changes.
  std::vector<std::string> seeds;
  // Words of the format that random bytes would rarely spell: keywords,
  // field names, numbers on the edges of checks. Mutations insert them.
  std::vector<std::string> tokens;
};

// Defined by each target.
TargetSeeds FuzzTargetSeeds();

// A broken promise of the code under test: says which, then traps so that
// the fuzzer (or the test) reports the input.
inline void Require(bool condition, std::string_view promise) {
  if (condition) return;
  std::fprintf(stderr, "broken promise: %.*s\n",
               static_cast<int>(promise.size()), promise.data());
  __builtin_trap();
}

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace fuzz
}  // namespace sluice

#endif  // SLUICE_TEST_FUZZ_FUZZ_TARGET_H_
