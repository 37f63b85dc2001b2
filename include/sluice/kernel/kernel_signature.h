// KernelSignature: what a kernel's C++ function needs from the op it runs
// for: how many operands, results and functions, and which attributes of
// which types. SLUICE_KERNEL derives it from the function's parameters at
// compile time; Program::Load checks every op against it, so a program whose
// op does not fit its kernel fails to load instead of reaching the kernel.
#ifndef SLUICE_KERNEL_KERNEL_SIGNATURE_H_
#define SLUICE_KERNEL_KERNEL_SIGNATURE_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/types/span.h"

namespace sluice {

// The C++ element type an attribute parameter reads. Which program
// attribute types fit each is decided by the loader (uint8_t reads bool
// attributes too, uint16_t reads f16 and bf16 bit patterns).
enum class AttributeElement : uint8_t {
  kNone,  // strings and arrays of attributes have no element type
  kBool,
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kFloat,
  kDouble,
  kComplexFloat,
  kComplexDouble,
};

enum class AttributeShape : uint8_t {
  kScalar,     // Attribute<T>
  kString,     // StringAttribute
  kDense,      // ArrayAttribute<T>
  kAggregate,  // AggregateAttribute: an array of attributes of any type
};

struct AttributeRequirement {
  AttributeShape shape = AttributeShape::kScalar;
  AttributeElement element = AttributeElement::kNone;
  // OptionalAttribute<T>: the op may leave it out.
  bool optional = false;
};

struct KernelSignature {
  // Operands and results the parameters and the return value take one by
  // one; `variadic_*` when RemainingArguments / RemainingResults take any
  // number more.
  uint32_t num_operands = 0;
  bool variadic_operands = false;
  uint32_t num_results = 0;
  bool variadic_results = false;
  // RemainingFunctions: the kernel runs regions or named functions.
  bool takes_functions = false;
  // A KernelFrame* or AsyncKernelFrame* parameter: the kernel may read more
  // operands, results and attributes than its other parameters take, so
  // those counts are minimums and it checks the rest itself.
  bool reads_frame = false;
  // Attribute parameters in the order the function declares them.
  absl::Span<const AttributeRequirement> attributes;
};

// "i32", "string", "array of f32", ... for messages.
std::string DescribeAttributeRequirement(const AttributeRequirement& attribute);

namespace internal {

template <typename T>
struct AttributeElementOf;

#define SLUICE_ATTRIBUTE_ELEMENT(type, element) \
  template <>                                   \
  struct AttributeElementOf<type>               \
      : std::integral_constant<AttributeElement, AttributeElement::element> {}
SLUICE_ATTRIBUTE_ELEMENT(bool, kBool);
SLUICE_ATTRIBUTE_ELEMENT(int8_t, kInt8);
SLUICE_ATTRIBUTE_ELEMENT(uint8_t, kUInt8);
SLUICE_ATTRIBUTE_ELEMENT(int16_t, kInt16);
SLUICE_ATTRIBUTE_ELEMENT(uint16_t, kUInt16);
SLUICE_ATTRIBUTE_ELEMENT(int32_t, kInt32);
SLUICE_ATTRIBUTE_ELEMENT(uint32_t, kUInt32);
SLUICE_ATTRIBUTE_ELEMENT(int64_t, kInt64);
SLUICE_ATTRIBUTE_ELEMENT(uint64_t, kUInt64);
SLUICE_ATTRIBUTE_ELEMENT(float, kFloat);
SLUICE_ATTRIBUTE_ELEMENT(double, kDouble);
SLUICE_ATTRIBUTE_ELEMENT(std::complex<float>, kComplexFloat);
SLUICE_ATTRIBUTE_ELEMENT(std::complex<double>, kComplexDouble);
#undef SLUICE_ATTRIBUTE_ELEMENT

}  // namespace internal
}  // namespace sluice

#endif  // SLUICE_KERNEL_KERNEL_SIGNATURE_H_
