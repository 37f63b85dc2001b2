// Chains, constants, arithmetic, comparisons and casts of the `tfrt`
// dialect (as TFRT defines them).
//
// Payload types, one per MLIR type: i1 bool, i32 int32_t, i64 int64_t,
// ui32 uint32_t, ui64 uint64_t, f32 float, f64 double, complex64
// std::complex<float>, complex128 std::complex<double>, and f16 / bf16
// uint16_t holding the IEEE half / bfloat16 bit pattern exactly as the
// attribute stores it. C++17 has no standard half type; no kernel does
// arithmetic on them, so keeping the bits loses nothing and any later kernel
// can convert without a rounding step having happened here.
//
// Every kernel reads only the operands it declares, so the one trailing
// !tfrt.chain operand the spec allows on any op is ignored.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/basic/basic_kernels_internal.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {
namespace basic_kernels {
namespace {

// --- Chains ------------------------------------------------------------------

Chain NewChain() { return Chain(); }

// The kernel is strict, so by the time it runs every operand is available
// (an error operand never reaches it); their payloads do not matter.
Chain MergeChains(RemainingArguments) { return Chain(); }

// --- Constants ---------------------------------------------------------------

template <typename T>
T Constant(Attribute<T> value) {
  return *value;
}

// The executable stores bool attributes as one byte, 0 or 1.
bool ConstantI1(Attribute<uint8_t> value) { return *value != 0; }

// Two forms reach this kernel: the op's two scalar attributes `real` and
// `imaginary`, or a single complex attribute `value`. Accepting both keeps
// the kernel independent of which one the compiler emits.
template <typename T>
absl::StatusOr<std::complex<T>> ConstantComplex(
    OptionalAttribute<std::complex<T>> value, OptionalAttribute<T> real,
    OptionalAttribute<T> imaginary) {
  if (value && !real && !imaginary) return *value;
  if (!value && real && imaginary) return std::complex<T>(*real, *imaginary);
  return absl::InvalidArgumentError(
      "a complex constant needs either 'real' and 'imaginary' or a complex "
      "'value'");
}

// --- Arithmetic --------------------------------------------------------------

// Signed overflow is undefined in C++; programs get two's complement
// wrap-around instead, computed in the unsigned type where it is defined.
template <typename T>
using Unsigned = std::make_unsigned_t<T>;

template <typename T>
T Add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<Unsigned<T>>(a) +
                          static_cast<Unsigned<T>>(b));
  } else {
    return a + b;
  }
}

template <typename T>
T Subtract(T a, T b) {
  return static_cast<T>(static_cast<Unsigned<T>>(a) -
                        static_cast<Unsigned<T>>(b));
}

template <typename T>
T Multiply(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<Unsigned<T>>(a) *
                          static_cast<Unsigned<T>>(b));
  } else {
    return a * b;
  }
}

// TFRT makes this error from a plain message, so its code is INTERNAL.
absl::Status DivideByZero() { return absl::InternalError("Divide by zero"); }

// Quotient truncates toward zero, the remainder takes the dividend's sign.
template <typename T>
absl::StatusOr<std::tuple<T, T>> DivideInteger(T a, T b) {
  if (b == 0) return DivideByZero();
  // min / -1 overflows (undefined, and a hardware trap on x86); its wrapped
  // quotient is -a, which is min again, with nothing left over.
  if (b == -1) return std::make_tuple(Subtract<T>(0, a), T{0});
  return std::make_tuple(static_cast<T>(a / b), static_cast<T>(a % b));
}

template <typename T>
absl::StatusOr<T> DivideFloat(T a, T b) {
  // The spec makes x / 0 an error rather than IEEE's inf or nan.
  if (b == 0) return DivideByZero();
  return a / b;
}

template <typename T>
T Minimum(T a, T b) {
  return std::min(a, b);
}

// --- Comparisons and logic ---------------------------------------------------

template <typename T>
bool Equal(T a, T b) {
  return a == b;
}

template <typename T>
bool LessEqual(T a, T b) {
  return a <= b;
}

bool AndI1(bool a, bool b) { return a && b; }

// --- Casts -------------------------------------------------------------------

// Rounds to the nearest representable value; every int64 is in range.
int64_t I32ToI64(int32_t value) { return value; }
float I64ToF32(int64_t value) { return static_cast<float>(value); }
double I64ToF64(int64_t value) { return static_cast<double>(value); }

// static_cast truncates toward zero, but is undefined for NaN and for values
// outside int64's range. Those saturate instead (NaN to 0), so no program
// input reaches undefined behaviour.
template <typename F>
int64_t FloatToI64(F value) {
  // 2^63 is exact in both float and double.
  constexpr F kTwoTo63 = static_cast<F>(9223372036854775808.0);
  if (value != value) return 0;
  if (value >= kTwoTo63) return std::numeric_limits<int64_t>::max();
  if (value < -kTwoTo63) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

}  // namespace

absl::Status RegisterValueKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt.new.chain", SLUICE_KERNEL(NewChain)},
      {"tfrt.merge.chains", SLUICE_KERNEL(MergeChains)},
      {"tfrt.constant.i1",
       SLUICE_KERNEL(ConstantI1).WithAttributeNames({"value"})},
      {"tfrt.constant.i32",
       SLUICE_KERNEL(Constant<int32_t>).WithAttributeNames({"value"})},
      {"tfrt.constant.i64",
       SLUICE_KERNEL(Constant<int64_t>).WithAttributeNames({"value"})},
      {"tfrt.constant.ui32",
       SLUICE_KERNEL(Constant<uint32_t>).WithAttributeNames({"value"})},
      {"tfrt.constant.ui64",
       SLUICE_KERNEL(Constant<uint64_t>).WithAttributeNames({"value"})},
      {"tfrt.constant.f16",
       SLUICE_KERNEL(Constant<uint16_t>).WithAttributeNames({"value"})},
      {"tfrt.constant.bf16",
       SLUICE_KERNEL(Constant<uint16_t>).WithAttributeNames({"value"})},
      {"tfrt.constant.f32",
       SLUICE_KERNEL(Constant<float>).WithAttributeNames({"value"})},
      {"tfrt.constant.f64",
       SLUICE_KERNEL(Constant<double>).WithAttributeNames({"value"})},
      {"tfrt.constant.complex64",
       SLUICE_KERNEL(ConstantComplex<float>)
           .WithAttributeNames({"value", "real", "imaginary"})},
      {"tfrt.constant.complex128",
       SLUICE_KERNEL(ConstantComplex<double>)
           .WithAttributeNames({"value", "real", "imaginary"})},
      {"tfrt.add.i32", SLUICE_KERNEL(Add<int32_t>)},
      {"tfrt.add.i64", SLUICE_KERNEL(Add<int64_t>)},
      {"tfrt.add.f32", SLUICE_KERNEL(Add<float>)},
      {"tfrt.add.f64", SLUICE_KERNEL(Add<double>)},
      {"tfrt.mul.i32", SLUICE_KERNEL(Multiply<int32_t>)},
      {"tfrt.mul.i64", SLUICE_KERNEL(Multiply<int64_t>)},
      {"tfrt.multiply.f32", SLUICE_KERNEL(Multiply<float>)},
      {"tfrt.multiply.f64", SLUICE_KERNEL(Multiply<double>)},
      {"tfrt.minus.i32", SLUICE_KERNEL(Subtract<int32_t>)},
      {"tfrt.minus.i64", SLUICE_KERNEL(Subtract<int64_t>)},
      {"tfrt.div.i32", SLUICE_KERNEL(DivideInteger<int32_t>)},
      {"tfrt.div.i64", SLUICE_KERNEL(DivideInteger<int64_t>)},
      {"tfrt.div.f32", SLUICE_KERNEL(DivideFloat<float>)},
      {"tfrt.div.f64", SLUICE_KERNEL(DivideFloat<double>)},
      {"tfrt.minimum.f32", SLUICE_KERNEL(Minimum<float>)},
      {"tfrt.minimum.f64", SLUICE_KERNEL(Minimum<double>)},
      {"tfrt.equal.i32", SLUICE_KERNEL(Equal<int32_t>)},
      {"tfrt.equal.i64", SLUICE_KERNEL(Equal<int64_t>)},
      {"tfrt.lessequal.i32", SLUICE_KERNEL(LessEqual<int32_t>)},
      {"tfrt.lessequal.i64", SLUICE_KERNEL(LessEqual<int64_t>)},
      {"tfrt.and.i1", SLUICE_KERNEL(AndI1)},
      {"tfrt.cast.i32_to_i64", SLUICE_KERNEL(I32ToI64)},
      {"tfrt.cast.i64_to_f32", SLUICE_KERNEL(I64ToF32)},
      {"tfrt.cast.i64_to_f64", SLUICE_KERNEL(I64ToF64)},
      {"tfrt.cast.f32_to_i64", SLUICE_KERNEL(FloatToI64<float>)},
      {"tfrt.cast.f64_to_i64", SLUICE_KERNEL(FloatToI64<double>)},
  });
}

}  // namespace basic_kernels
}  // namespace sluice
