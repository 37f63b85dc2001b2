#include "lib/tensor/portable_math.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace sluice {
namespace tensor_internal {
namespace {

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

TEST(PortableMathTest, LogMatchesTheCLibrary) {
  // Everything Box-Muller feeds it, (0, 1], and well beyond.
  for (double x : {1.0, 0.5, 2.0, 1e-300, 4.9e-324, 0.999999999, 1.000000001,
                   0.7071067811865476, 1.4142135623730951, 3.0, 1e300}) {
    EXPECT_NEAR(PortableLog(x), std::log(x),
                4 * kEpsilon * std::max(1.0, std::abs(std::log(x))))
        << "x = " << x;
  }
  for (int i = 1; i <= 10000; ++i) {
    const double x = i / 10000.0;
    ASSERT_NEAR(PortableLog(x), std::log(x),
                4 * kEpsilon * std::max(1.0, std::abs(std::log(x))))
        << "x = " << x;
  }
  EXPECT_EQ(PortableLog(1.0), 0.0);
}

TEST(PortableMathTest, SinCosMatchTheCLibrary) {
  const double two_pi = 2 * std::acos(-1.0);
  for (int i = 0; i <= 10000; ++i) {
    const double t = i / 10000.0;
    const SinCos sc = PortableSinCos2Pi(t);
    ASSERT_NEAR(sc.sin, std::sin(two_pi * t), 4 * kEpsilon) << "t = " << t;
    ASSERT_NEAR(sc.cos, std::cos(two_pi * t), 4 * kEpsilon) << "t = " << t;
  }
  // The quarter turns are exact.
  EXPECT_EQ(PortableSinCos2Pi(0).sin, 0);
  EXPECT_EQ(PortableSinCos2Pi(0).cos, 1);
  EXPECT_EQ(PortableSinCos2Pi(0.25).sin, 1);
  EXPECT_EQ(PortableSinCos2Pi(0.5).cos, -1);
  EXPECT_EQ(PortableSinCos2Pi(0.75).sin, -1);
}

}  // namespace
}  // namespace tensor_internal
}  // namespace sluice
