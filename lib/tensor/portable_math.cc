#include "lib/tensor/portable_math.h"

#include <array>
#include <cmath>

namespace sluice {
namespace tensor_internal {
namespace {

// ln 2 split so that e * kLn2High is exact for every binary exponent e of a
// double (its low 32 bits are zero), and the rest is added in a small term.
constexpr double kLn2High = 6.93147180369123816490e-01;
constexpr double kLn2Low = 1.90821492927058770002e-10;
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kHalfPi = 1.57079632679489661923;

// (-1)^(n/2) / n!, the Taylor coefficients of sin (odd n) and cos (even
// n). n! is exact in a double up to 22!, so each is rounded once, by the
// compiler.
constexpr int kMaxTaylorTerm = 20;
constexpr std::array<double, kMaxTaylorTerm + 1> kTaylor = [] {
  std::array<double, kMaxTaylorTerm + 1> coefficients{};
  double factorial = 1;
  for (int n = 0; n <= kMaxTaylorTerm; ++n) {
    if (n > 0) factorial *= n;
    coefficients[n] = ((n / 2) % 2 == 0 ? 1 : -1) / factorial;
  }
  return coefficients;
}();

// 1 / (2k + 1), the coefficients of atanh's series.
constexpr int kAtanhTerms = 12;
constexpr std::array<double, kAtanhTerms> kInverseOdd = [] {
  std::array<double, kAtanhTerms> coefficients{};
  for (int k = 0; k < kAtanhTerms; ++k) coefficients[k] = 1.0 / (2 * k + 1);
  return coefficients;
}();

}  // namespace

double PortableLog(double x) {
  int exponent = 0;
  // frexp only rescales by a power of two: exact. mantissa is in [0.5, 1).
  double mantissa = std::frexp(x, &exponent);
  if (mantissa < kSqrtHalf) {
    mantissa *= 2;
    --exponent;
  }
  // mantissa is in [sqrt(1/2), sqrt(2)), so |s| <= 0.1716 and
  // ln(mantissa) = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...) converges to
  // double precision by s^23.
  const double s = (mantissa - 1) / (mantissa + 1);
  const double s2 = s * s;
  double series = kInverseOdd[kAtanhTerms - 1];
  for (int k = kAtanhTerms - 2; k >= 1; --k) {
    series = kInverseOdd[k] + s2 * series;
  }
  const double log_mantissa = 2 * s + 2 * s * (s2 * series);
  return exponent * kLn2High + (log_mantissa + exponent * kLn2Low);
}

SinCos PortableSinCos2Pi(double t) {
  // 2 pi t = quadrant * pi/2 + angle with angle in [-pi/4, pi/4], where the
  // Taylor series converge fast. 4t and its fraction are exact.
  const double quarters = 4 * t;
  double quadrant = std::floor(quarters);
  double fraction = quarters - quadrant;
  if (fraction > 0.5) {
    fraction -= 1;
    quadrant += 1;
  }
  const double angle = fraction * kHalfPi;
  const double a2 = angle * angle;
  // sin to angle^19 and cos to angle^20: the next terms are below 1e-19.
  double sin_series = kTaylor[kMaxTaylorTerm - 1];
  for (int n = kMaxTaylorTerm - 3; n >= 1; n -= 2) {
    sin_series = kTaylor[n] + a2 * sin_series;
  }
  double cos_series = kTaylor[kMaxTaylorTerm];
  for (int n = kMaxTaylorTerm - 2; n >= 0; n -= 2) {
    cos_series = kTaylor[n] + a2 * cos_series;
  }
  const double s = angle * sin_series;
  const double c = cos_series;
  switch (static_cast<int>(quadrant) % 4) {
    case 0:
      return {s, c};
    case 1:
      return {c, -s};
    case 2:
      return {-s, -c};
    default:
      return {-c, s};
  }
}

}  // namespace tensor_internal
}  // namespace sluice
