#include "sluice/kernel/kernel_signature.h"

#include "absl/strings/str_cat.h"

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

}  // namespace

std::string DescribeAttributeRequirement(
    const AttributeRequirement& attribute) {
  switch (attribute.shape) {
    case AttributeShape::kScalar:
      return ElementName(attribute.element);
    case AttributeShape::kString:
      return "string";
    case AttributeShape::kDense:
      return absl::StrCat("array of ", ElementName(attribute.element));
    case AttributeShape::kAggregate:
      return "array";
  }
  return "?";
}

}  // namespace sluice
