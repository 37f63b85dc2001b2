#include "sluice/bef/format.h"

#include <cstdint>

#include "lib/bef/format_internal.h"

namespace sluice {
namespace bef {
namespace {

constexpr uint32_t kDenseBase =
    static_cast<uint32_t>(AttributeType::kDenseArrayBase);

// The element size of the scalar types (codes 1..13), which are also the
// only element types a dense array may have.
uint32_t ScalarElementSize(uint32_t code) {
  switch (static_cast<AttributeType>(code)) {
    case AttributeType::kBool:
    case AttributeType::kI8:
    case AttributeType::kUI8:
      return 1;
    case AttributeType::kI16:
    case AttributeType::kUI16:
    case AttributeType::kF16:
    case AttributeType::kBF16:
      return 2;
    case AttributeType::kI32:
    case AttributeType::kUI32:
    case AttributeType::kF32:
      return 4;
    case AttributeType::kI64:
    case AttributeType::kUI64:
    case AttributeType::kF64:
      return 8;
    default:
      return 0;
  }
}

const char* ScalarName(uint32_t code) {
  switch (static_cast<AttributeType>(code)) {
    case AttributeType::kBool:
      return "i1";
    case AttributeType::kI8:
      return "i8";
    case AttributeType::kI16:
      return "i16";
    case AttributeType::kI32:
      return "i32";
    case AttributeType::kI64:
      return "i64";
    case AttributeType::kUI8:
      return "ui8";
    case AttributeType::kUI16:
      return "ui16";
    case AttributeType::kUI32:
      return "ui32";
    case AttributeType::kUI64:
      return "ui64";
    case AttributeType::kF16:
      return "f16";
    case AttributeType::kBF16:
      return "bf16";
    case AttributeType::kF32:
      return "f32";
    case AttributeType::kF64:
      return "f64";
    default:
      return nullptr;
  }
}

}  // namespace

uint32_t AttributeElementSize(AttributeType type) {
  const uint32_t code = static_cast<uint32_t>(type);
  if (code > kDenseBase) return ScalarElementSize(code - kDenseBase);
  if (uint32_t size = ScalarElementSize(code); size != 0) return size;
  switch (type) {
    case AttributeType::kString:
      return 1;
    case AttributeType::kType:
    case AttributeType::kSymbol:
    case AttributeType::kArray:
      return 4;
    // Complex values count their two parts as elements.
    case AttributeType::kComplex64:
      return 4;
    case AttributeType::kComplex128:
      return 8;
    case AttributeType::kUnit:
      return 1;
    case AttributeType::kDenseElements:
      return 1;
    default:
      return 0;
  }
}

uint32_t DenseElementSize(AttributeType element_type) {
  switch (element_type) {
    case AttributeType::kComplex64:
      return 8;
    case AttributeType::kComplex128:
      return 16;
    default:
      return ScalarElementSize(static_cast<uint32_t>(element_type));
  }
}

const char* AttributeTypeName(AttributeType type) {
  const uint32_t code = static_cast<uint32_t>(type);
  if (code > kDenseBase) {
    // Spelled out so the names can be returned without allocating.
    switch (static_cast<AttributeType>(code - kDenseBase)) {
      case AttributeType::kBool:
        return "dense<i1>";
      case AttributeType::kI8:
        return "dense<i8>";
      case AttributeType::kI16:
        return "dense<i16>";
      case AttributeType::kI32:
        return "dense<i32>";
      case AttributeType::kI64:
        return "dense<i64>";
      case AttributeType::kUI8:
        return "dense<ui8>";
      case AttributeType::kUI16:
        return "dense<ui16>";
      case AttributeType::kUI32:
        return "dense<ui32>";
      case AttributeType::kUI64:
        return "dense<ui64>";
      case AttributeType::kF16:
        return "dense<f16>";
      case AttributeType::kBF16:
        return "dense<bf16>";
      case AttributeType::kF32:
        return "dense<f32>";
      case AttributeType::kF64:
        return "dense<f64>";
      default:
        return "unknown";
    }
  }
  if (const char* name = ScalarName(code)) return name;
  switch (type) {
    case AttributeType::kString:
      return "string";
    case AttributeType::kType:
      return "type";
    case AttributeType::kSymbol:
      return "symbol";
    case AttributeType::kArray:
      return "array";
    case AttributeType::kComplex64:
      return "complex<f32>";
    case AttributeType::kComplex128:
      return "complex<f64>";
    case AttributeType::kUnit:
      return "unit";
    case AttributeType::kDenseElements:
      return "dense elements";
    default:
      return "unknown";
  }
}

namespace internal {

const char* SectionName(uint32_t id) {
  switch (static_cast<SectionId>(id)) {
    case SectionId::kStrings:
      return "Strings";
    case SectionId::kAttributes:
      return "Attributes";
    case SectionId::kTypes:
      return "Types";
    case SectionId::kKernelNames:
      return "KernelNames";
    case SectionId::kFunctions:
      return "Functions";
    case SectionId::kFunctionBodies:
      return "FunctionBodies";
    case SectionId::kLocations:
      return "Locations";
    case SectionId::kRegisterTypes:
      return "RegisterTypes";
    case SectionId::kCompiledModules:
      return "CompiledModules";
    case SectionId::kAnnotations:
      return "Annotations";
  }
  return "unknown section";
}

bool IsScalarAttributeType(uint32_t code) {
  return ScalarElementSize(code) != 0;
}

bool IsKnownAttributeType(uint32_t code) {
  return AttributeElementSize(static_cast<AttributeType>(code)) != 0;
}

bool FixedAttributeCount(uint32_t code, uint32_t* count) {
  if (IsScalarAttributeType(code)) {
    *count = 1;
    return true;
  }
  switch (static_cast<AttributeType>(code)) {
    case AttributeType::kType:
    case AttributeType::kSymbol:
      *count = 1;
      return true;
    case AttributeType::kComplex64:
    case AttributeType::kComplex128:
      *count = 2;
      return true;
    case AttributeType::kUnit:
      *count = 0;
      return true;
    default:
      return false;
  }
}

}  // namespace internal
}  // namespace bef
}  // namespace sluice
