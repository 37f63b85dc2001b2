#include "lib/tensor/philox.h"

namespace sluice {
namespace tensor_internal {
namespace {

// The multipliers and key increments (Weyl sequence: the golden ratio and
// sqrt(3) - 1, scaled to 32 bits) the paper gives for Philox4x32.
constexpr uint32_t kMultiplier0 = 0xD2511F53;
constexpr uint32_t kMultiplier1 = 0xCD9E8D57;
constexpr uint32_t kKeyIncrement0 = 0x9E3779B9;
constexpr uint32_t kKeyIncrement1 = 0xBB67AE85;
constexpr int kRounds = 10;

void Round(PhiloxCounter& counter, const PhiloxKey& key) {
  const uint64_t product0 = uint64_t{kMultiplier0} * counter[0];
  const uint64_t product1 = uint64_t{kMultiplier1} * counter[2];
  const auto high = [](uint64_t x) { return static_cast<uint32_t>(x >> 32); };
  const auto low = [](uint64_t x) { return static_cast<uint32_t>(x); };
  counter = {high(product1) ^ counter[1] ^ key[0], low(product1),
             high(product0) ^ counter[3] ^ key[1], low(product0)};
}

}  // namespace

PhiloxBlock Philox4x32x10(PhiloxCounter counter, PhiloxKey key) {
  for (int round = 0; round < kRounds; ++round) {
    if (round > 0) {
      key[0] += kKeyIncrement0;
      key[1] += kKeyIncrement1;
    }
    Round(counter, key);
  }
  return counter;
}

PhiloxBlock PhiloxBlockAt(uint64_t seed, uint64_t index) {
  return Philox4x32x10(
      {static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0, 0},
      {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

}  // namespace tensor_internal
}  // namespace sluice
