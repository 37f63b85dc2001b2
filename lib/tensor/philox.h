// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011), the counter-based generator behind Sluice's
// random tensors. Each 128-bit block is a fixed function of a 64-bit key and
// a 128-bit counter, so element i of a random tensor depends on the seed and
// i alone: no state carried from one element to the next, the same bits on
// every machine, and any part of a stream computable on its own.
#ifndef SLUICE_LIB_TENSOR_PHILOX_H_
#define SLUICE_LIB_TENSOR_PHILOX_H_

#include <array>
#include <cstdint>

namespace sluice {
namespace tensor_internal {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;
using PhiloxBlock = std::array<uint32_t, 4>;

PhiloxBlock Philox4x32x10(PhiloxCounter counter, PhiloxKey key);

// Block `index` of the stream of `seed`: the counter is {index's low word,
// its high word, 0, 0} and the key {seed's low word, its high word}.
PhiloxBlock PhiloxBlockAt(uint64_t seed, uint64_t index);

}  // namespace tensor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_TENSOR_PHILOX_H_
