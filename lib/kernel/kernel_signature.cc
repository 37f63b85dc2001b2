#include "sluice/kernel/kernel_signature.h"

namespace sluice {
namespace {

const char* ElementName(AttributeElement element) {
  switch (element) {
    case AttributeElement::kNone:
      return "any";
    case AttributeElement::kBool:
      return "i1";
    case AttributeElement::kInt8:
      return "i8";
    case AttributeElement::kUInt8:
      return "ui8 or i1";
    case AttributeElement::kInt16:
      return "i16";
    case AttributeElement::kUInt16:
      return "ui16, f16 or bf16";
    case AttributeElement::kInt32:
      return "i32";
    case AttributeElement::kUInt32:
      return "ui32";
    case AttributeElement::kInt64:
      return "i64";
    case AttributeElement::kUInt64:
      return "ui64";
    case AttributeElement::kFloat:
      return "f32";
    case AttributeElement::kDouble:
      return "f64";
    case AttributeElement::kComplexFloat:
      return "complex<f32>";
    case AttributeElement::kComplexDouble:
      return "complex<f64>";
  }
  return "?";
}

const char* DenseName(AttributeElement element) {
  switch (element) {
    case AttributeElement::kBool:
      return "array of i1";
    case AttributeElement::kInt8:
      return "array of i8";
    case AttributeElement::kUInt8:
      return "array of ui8 or i1";
    case AttributeElement::kInt16:
      return "array of i16";
    case AttributeElement::kUInt16:
      return "array of ui16, f16 or bf16";
    case AttributeElement::kInt32:
      return "array of i32";
    case AttributeElement::kUInt32:
      return "array of ui32";
    case AttributeElement::kInt64:
      return "array of i64";
    case AttributeElement::kUInt64:
      return "array of ui64";
    case AttributeElement::kFloat:
      return "array of f32";
    case AttributeElement::kDouble:
      return "array of f64";
    default:
      return "array";
  }
}

}  // namespace

const char* DescribeAttributeRequirement(
    const AttributeRequirement& attribute) {
  switch (attribute.shape) {
    case AttributeShape::kScalar:
      return ElementName(attribute.element);
    case AttributeShape::kString:
      return "string";
    case AttributeShape::kDense:
      return DenseName(attribute.element);
    case AttributeShape::kAggregate:
      return "array";
  }
  return "?";
}

}  // namespace sluice
