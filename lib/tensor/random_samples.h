// The samples of one Philox block, as random.h describes them. Everything
// that does floating-point arithmetic on the generator's bits is here, in a
// library compiled so that the results are the same bits on every machine.
#ifndef SLUICE_LIB_TENSOR_RANDOM_SAMPLES_H_
#define SLUICE_LIB_TENSOR_RANDOM_SAMPLES_H_

#include <array>
#include <cstdint>

namespace sluice {
namespace tensor_internal {

// Elements 4b .. 4b + 3 of a uniform f32 tensor in [low, high) drawn with
// `seed`, for block b. low < high, both finite.
std::array<float, 4> UniformF32Block(uint64_t seed, uint64_t block, float low,
                                     float high);

// Elements 2b and 2b + 1 of a uniform f64 tensor in [low, high); high - low
// is finite.
std::array<double, 2> UniformF64Block(uint64_t seed, uint64_t block, double low,
                                      double high);

// Elements 2b and 2b + 1 of a normal tensor with `mean` and `stddev`, in
// double (an f32 tensor rounds them).
std::array<double, 2> NormalBlock(uint64_t seed, uint64_t block, double mean,
                                  double stddev);

}  // namespace tensor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_TENSOR_RANDOM_SAMPLES_H_
