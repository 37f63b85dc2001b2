#include "lib/tensor/random_samples.h"

#include <cmath>

#include "lib/tensor/philox.h"
#include "lib/tensor/portable_math.h"

namespace sluice {
namespace tensor_internal {
namespace {

// 2^-24 and 2^-53: scale 24- and 53-bit integers into [0, 1) exactly.
constexpr double kTwoToMinus24 = 1.0 / (1 << 24);
constexpr double kTwoToMinus53 = kTwoToMinus24 / (1 << 29);

// The top 53 bits of two words, as an integer below 2^53.
uint64_t Top53Bits(uint32_t high, uint32_t low) {
  return ((uint64_t{high} << 32) | low) >> 11;
}

// low + (high - low) * fraction, in double, rounded to T; a sample that
// rounds up to high becomes the largest T below it, keeping [low, high).
template <typename T>
T Scale(T low, T high, double fraction) {
  const double lower = low;
  const T sample =
      static_cast<T>(lower + (static_cast<double>(high) - lower) * fraction);
  return sample < high ? sample : std::nextafter(high, low);
}

}  // namespace

std::array<float, 4> UniformF32Block(uint64_t seed, uint64_t block, float low,
                                     float high) {
  const PhiloxBlock bits = PhiloxBlockAt(seed, block);
  std::array<float, 4> samples;
  for (int i = 0; i < 4; ++i) {
    samples[i] = Scale(low, high, (bits[i] >> 8) * kTwoToMinus24);
  }
  return samples;
}

std::array<double, 2> UniformF64Block(uint64_t seed, uint64_t block, double low,
                                      double high) {
  const PhiloxBlock bits = PhiloxBlockAt(seed, block);
  return {Scale(low, high, Top53Bits(bits[0], bits[1]) * kTwoToMinus53),
          Scale(low, high, Top53Bits(bits[2], bits[3]) * kTwoToMinus53)};
}

std::array<double, 2> NormalBlock(uint64_t seed, uint64_t block, double mean,
                                  double stddev) {
  const PhiloxBlock bits = PhiloxBlockAt(seed, block);
  // u1 in (0, 1]: never 0, whose log is -inf.
  const double u1 = (Top53Bits(bits[0], bits[1]) + 1) * kTwoToMinus53;
  const double t = Top53Bits(bits[2], bits[3]) * kTwoToMinus53;
  // sqrt is correctly rounded by IEEE-754, so it may come from libm.
  const double radius = std::sqrt(-2 * PortableLog(u1));
  const SinCos angle = PortableSinCos2Pi(t);
  return {mean + stddev * (radius * angle.cos),
          mean + stddev * (radius * angle.sin)};
}

}  // namespace tensor_internal
}  // namespace sluice
