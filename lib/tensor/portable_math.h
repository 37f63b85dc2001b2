// The transcendental functions random tensors need, computed from IEEE-754
// additions, multiplications, divisions and exact scalings alone, so every
// conforming machine rounds each step the same way and gets the same bits.
// The C library's log, sin and cos promise no such thing: implementations
// differ in the last bit, and glibc picks a different code path on CPUs with
// FMA. Accurate to within a few units in the last place.
#ifndef SLUICE_LIB_TENSOR_PORTABLE_MATH_H_
#define SLUICE_LIB_TENSOR_PORTABLE_MATH_H_

namespace sluice {
namespace tensor_internal {

// The natural logarithm of a finite x > 0.
double PortableLog(double x);

// sin(2 pi t) and cos(2 pi t) for t in [0, 1].
struct SinCos {
  double sin;
  double cos;
};
SinCos PortableSinCos2Pi(double t);

}  // namespace tensor_internal
}  // namespace sluice

#endif  // SLUICE_LIB_TENSOR_PORTABLE_MATH_H_
