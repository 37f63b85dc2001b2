#include "lib/compiler/attribute_codec.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/compiler/failure_policy_codec.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "sluice/bef/format.h"
#include "sluice/support/file_reading.h"

namespace sluice {
namespace compiler_internal {
namespace {

using bef::AttributeType;

constexpr llvm::StringLiteral kCompiledAttribute("tfrt.compiled");

uint32_t Code(AttributeType type) { return static_cast<uint32_t>(type); }

// The format's scalar code for an integer or float type. Signed and
// signless integers share a code (kernels read both the same way); index is
// stored as i64, the width the executor's index kernels use.
std::optional<AttributeType> ScalarCode(mlir::Type type) {
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(type)) {
    const bool is_unsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
      case 1:
        return AttributeType::kBool;
      case 8:
        return is_unsigned ? AttributeType::kUI8 : AttributeType::kI8;
      case 16:
        return is_unsigned ? AttributeType::kUI16 : AttributeType::kI16;
      case 32:
        return is_unsigned ? AttributeType::kUI32 : AttributeType::kI32;
      case 64:
        return is_unsigned ? AttributeType::kUI64 : AttributeType::kI64;
      default:
        return std::nullopt;
    }
  }
  if (type.isIndex()) return AttributeType::kI64;
  if (type.isF16()) return AttributeType::kF16;
  if (type.isBF16()) return AttributeType::kBF16;
  if (type.isF32()) return AttributeType::kF32;
  if (type.isF64()) return AttributeType::kF64;
  return std::nullopt;
}

// The code of a dense elements attribute's element type: a scalar's, or a
// complex number's. Not index, which would come back as i64 (TFRT refuses
// it too).
std::optional<AttributeType> DenseElementCode(mlir::Type type) {
  if (type.isIndex()) return std::nullopt;
  if (auto complex = llvm::dyn_cast<mlir::ComplexType>(type)) {
    mlir::Type part = complex.getElementType();
    if (part.isF32()) return AttributeType::kComplex64;
    if (part.isF64()) return AttributeType::kComplex128;
    return std::nullopt;
  }
  return ScalarCode(type);
}

// Whether a type attribute may hold `type`: the element types a tensor may
// have, as in TFRT's format (which also has a string type of its own
// `corert` dialect). Anything else is refused rather than carried as text,
// so a program compiles here only where it compiles for TFRT.
bool IsEncodableTypeAttribute(mlir::Type type) {
  if (DenseElementCode(type)) return true;
  auto opaque = llvm::dyn_cast<mlir::OpaqueType>(type);
  return opaque && opaque.getDialectNamespace() == "corert" &&
         opaque.getTypeData() == "string";
}

// The inverse of ScalarCode: what a decompiled scalar's type is.
mlir::Type ScalarType(uint32_t code, mlir::MLIRContext* context) {
  auto integer = [context](unsigned width, bool is_unsigned) -> mlir::Type {
    return mlir::IntegerType::get(context, width,
                                  is_unsigned ? mlir::IntegerType::Unsigned
                                              : mlir::IntegerType::Signless);
  };
  mlir::Builder builder(context);
  switch (static_cast<AttributeType>(code)) {
    case AttributeType::kBool:
      return integer(1, false);
    case AttributeType::kI8:
      return integer(8, false);
    case AttributeType::kI16:
      return integer(16, false);
    case AttributeType::kI32:
      return integer(32, false);
    case AttributeType::kI64:
      return integer(64, false);
    case AttributeType::kUI8:
      return integer(8, true);
    case AttributeType::kUI16:
      return integer(16, true);
    case AttributeType::kUI32:
      return integer(32, true);
    case AttributeType::kUI64:
      return integer(64, true);
    case AttributeType::kF16:
      return builder.getF16Type();
    case AttributeType::kBF16:
      return builder.getBF16Type();
    case AttributeType::kF32:
      return builder.getF32Type();
    case AttributeType::kF64:
      return builder.getF64Type();
    default:
      return nullptr;
  }
}

// The low `size` bytes of `value`, as the (little-endian) file holds them.
uint64_t LoadScalar(const void* data, uint32_t size) {
  uint64_t value = 0;
  std::memcpy(&value, data, size);
  return value;
}

}  // namespace

std::string TypeSpelling(mlir::Type type) {
  std::string spelling;
  llvm::raw_string_ostream os(spelling);
  type.print(os);
  return os.str();
}

uint32_t ArrayNesting(mlir::Attribute attribute) {
  // An explicit stack, since the point is to refuse nesting too deep to
  // recurse over. Uniqued arrays may be shared by many parents, so each is
  // walked again only when reached deeper than before.
  llvm::DenseMap<mlir::Attribute, uint32_t> deepest_seen;
  std::vector<std::pair<mlir::ArrayAttr, uint32_t>> pending;
  if (auto array = llvm::dyn_cast<mlir::ArrayAttr>(attribute)) {
    pending.emplace_back(array, 1);
  }
  uint32_t deepest = 0;
  while (!pending.empty()) {
    const auto [array, level] = pending.back();
    pending.pop_back();
    auto [it, inserted] = deepest_seen.try_emplace(array, level);
    if (!inserted) {
      if (it->second >= level) continue;
      it->second = level;
    }
    deepest = std::max(deepest, level);
    if (deepest > bef::kMaxArrayNesting) break;
    for (mlir::Attribute element : array) {
      if (auto inner = llvm::dyn_cast<mlir::ArrayAttr>(element)) {
        pending.emplace_back(inner, level + 1);
      }
    }
  }
  return deepest;
}

AttributeEncoder::AttributeEncoder(bef::SbfWriter* writer,
                                   const llvm::StringMap<uint32_t>* functions,
                                   mlir::ModuleOp module)
    : writer_(writer), functions_(functions), module_(module) {}

uint32_t AttributeEncoder::TypeIndex(mlir::Type type) {
  auto [it, inserted] = type_indices_.try_emplace(type, 0);
  if (inserted) it->second = writer_->AddType(TypeSpelling(type));
  return it->second;
}

mlir::LogicalResult AttributeEncoder::CheckSymbolDefined(
    mlir::SymbolRefAttr symbol, mlir::Operation* op) {
  if (symbol.getNestedReferences().empty()) {
    if (functions_->count(symbol.getRootReference().getValue()) != 0) {
      return mlir::success();
    }
  } else if (mlir::Operation* root = mlir::SymbolTable::lookupSymbolIn(
                 module_, symbol.getRootReference())) {
    if (root->hasAttr(kCompiledAttribute) &&
        mlir::SymbolTable::lookupSymbolIn(module_, symbol) != nullptr) {
      return mlir::success();
    }
  }
  return op->emitError() << "function " << symbol << " not defined";
}

mlir::FailureOr<uint32_t> AttributeEncoder::ResolveSymbol(
    mlir::Attribute symbol, mlir::Operation* op) {
  auto reference = llvm::dyn_cast<mlir::FlatSymbolRefAttr>(symbol);
  if (!reference) return mlir::failure();
  if (mlir::failed(CheckSymbolDefined(reference, op))) return mlir::failure();
  return functions_->find(reference.getValue())->second;
}

mlir::FailureOr<uint32_t> AttributeEncoder::Encode(mlir::Attribute attribute,
                                                   mlir::Operation* op,
                                                   llvm::StringRef name) {
  auto it = references_.find(attribute);
  if (it != references_.end()) return it->second;
  mlir::FailureOr<uint32_t> reference = EncodeUncached(attribute, op, name);
  if (mlir::succeeded(reference)) references_[attribute] = *reference;
  return reference;
}

mlir::FailureOr<uint32_t> AttributeEncoder::EncodeUncached(
    mlir::Attribute attribute, mlir::Operation* op, llvm::StringRef name) {
  // TFRT's words, with the value the format has no encoding for.
  auto unsupported = [&]() {
    return op->emitError() << "BEF files cannot encode the '" << name
                           << "' attribute (" << attribute << ")";
  };
  if (llvm::isa<mlir::UnitAttr>(attribute)) {
    return writer_->AddUnitAttribute();
  }
  if (mlir::ArrayAttr policy = LowerFailurePolicy(attribute)) {
    return Encode(policy, op, name);
  }
  if (auto integer = llvm::dyn_cast<mlir::IntegerAttr>(attribute)) {
    std::optional<AttributeType> code = ScalarCode(integer.getType());
    if (!code) return unsupported();
    if (*code == AttributeType::kBool) {
      const uint8_t value = integer.getValue().getBoolValue() ? 1 : 0;
      return writer_->AddScalar(*code, value);
    }
    const uint64_t bits = integer.getValue().getZExtValue();
    return writer_->AddScalarAttribute(*code, &bits,
                                       bef::AttributeElementSize(*code));
  }
  if (auto floating = llvm::dyn_cast<mlir::FloatAttr>(attribute)) {
    std::optional<AttributeType> code = ScalarCode(floating.getType());
    if (!code) return unsupported();
    // The bit pattern, not a converted value, so NaN payloads and negative
    // zero survive.
    const uint64_t bits = floating.getValue().bitcastToAPInt().getZExtValue();
    return writer_->AddScalarAttribute(*code, &bits,
                                       bef::AttributeElementSize(*code));
  }
  if (auto string = llvm::dyn_cast<mlir::StringAttr>(attribute)) {
    return writer_->AddStringAttribute(string.getValue());
  }
  if (auto type = llvm::dyn_cast<mlir::TypeAttr>(attribute)) {
    if (!IsEncodableTypeAttribute(type.getValue())) return unsupported();
    return writer_->AddTypeAttribute(TypeIndex(type.getValue()));
  }
  if (auto dense = llvm::dyn_cast<mlir::DenseIntOrFPElementsAttr>(attribute)) {
    return EncodeDenseElements(dense, op, name);
  }
  if (auto nested = llvm::dyn_cast<mlir::SymbolRefAttr>(attribute);
      nested && !nested.getNestedReferences().empty()) {
    // A function of a `tfrt.compiled` module is no function of the file:
    // kernels get the reference as text (`@kernel::@main`) and find the
    // module in the CompiledModules section.
    if (mlir::failed(CheckSymbolDefined(nested, op))) return mlir::failure();
    std::string text;
    llvm::raw_string_ostream os(text);
    nested.print(os);
    return writer_->AddStringAttribute(os.str());
  }
  if (llvm::isa<mlir::SymbolRefAttr>(attribute)) {
    mlir::FailureOr<uint32_t> function = ResolveSymbol(attribute, op);
    if (mlir::failed(function)) return mlir::failure();
    return writer_->AddSymbolAttribute(*function);
  }
  if (auto array = llvm::dyn_cast<mlir::ArrayAttr>(attribute)) {
    std::vector<uint32_t> elements;
    elements.reserve(array.size());
    for (mlir::Attribute element : array) {
      mlir::FailureOr<uint32_t> reference = Encode(element, op, name);
      if (mlir::failed(reference)) return mlir::failure();
      elements.push_back(*reference);
    }
    return writer_->AddArrayAttribute(elements);
  }
  if (auto dense = llvm::dyn_cast<mlir::DenseArrayAttr>(attribute)) {
    std::optional<AttributeType> code = ScalarCode(dense.getElementType());
    if (!code) return unsupported();
    return writer_->AddDenseArrayAttribute(*code, dense.getRawData().data(),
                                           static_cast<uint32_t>(dense.size()));
  }
  return unsupported();
}

mlir::FailureOr<uint32_t> AttributeEncoder::EncodeDenseElements(
    mlir::DenseIntOrFPElementsAttr dense, mlir::Operation* op,
    llvm::StringRef name) {
  auto unsupported = [&]() {
    return op->emitError() << "BEF files cannot encode the '" << name
                           << "' attribute (" << dense << ")";
  };
  // The decompiler gives back a tensor of the shape and element type alone,
  // so anything more (a vector, an encoding) would not survive.
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(dense.getType());
  if (!tensor || tensor.getEncoding()) return unsupported();
  std::optional<AttributeType> code = DenseElementCode(tensor.getElementType());
  if (!code) return unsupported();
  const uint64_t element_size = bef::DenseElementSize(*code);
  const uint64_t num_elements = tensor.getNumElements();
  const uint64_t size = bef::kDenseElementsHeaderSize +
                        8 * static_cast<uint64_t>(tensor.getRank()) +
                        num_elements * element_size;
  // A splat is written out in full (kernels read the elements in place), so
  // a small attribute can stand for a file no tool would read back.
  if (num_elements > kMaxInputFileBytes || size > kMaxInputFileBytes) {
    return op->emitError() << "the '" << name << "' attribute holds "
                           << num_elements << " elements, more than the "
                           << FormatByteSize(kMaxInputFileBytes)
                           << " a tool reads a program up to";
  }
  std::vector<uint8_t> elements(num_elements * element_size);
  if (*code == AttributeType::kBool) {
    // MLIR packs booleans into bits; the format has a byte each.
    size_t i = 0;
    for (bool value : dense.getValues<bool>()) elements[i++] = value ? 1 : 0;
  } else {
    llvm::ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat() && raw.size() == element_size) {
      for (uint64_t i = 0; i < num_elements; ++i) {
        std::memcpy(elements.data() + i * element_size, raw.data(),
                    element_size);
      }
    } else if (raw.size() == elements.size()) {
      // An empty tensor has no data, and memcpy no null pointers.
      if (!raw.empty()) std::memcpy(elements.data(), raw.data(), raw.size());
    } else {
      return unsupported();
    }
  }
  return writer_->AddDenseElementsAttribute(*code, tensor.getShape(),
                                            elements.data());
}

AttributeDecoder::AttributeDecoder(const bef::SbfProgram* program,
                                   mlir::MLIRContext* context,
                                   mlir::Location error_loc)
    : program_(program),
      context_(context),
      error_loc_(error_loc),
      types_(program->types.size()) {}

mlir::FailureOr<mlir::Type> AttributeDecoder::DecodeType(uint32_t index) {
  if (index >= types_.size()) {
    return mlir::emitError(error_loc_)
           << "type index " << index << " out of range";
  }
  if (!types_[index]) {
    const std::string_view spelling = program_->types[index];
    mlir::Type type = mlir::parseType(
        llvm::StringRef(spelling.data(), spelling.size()), context_);
    if (!type) {
      return mlir::emitError(error_loc_)
             << "cannot parse type '" << spelling << "'";
    }
    types_[index] = type;
  }
  return types_[index];
}

mlir::FailureOr<mlir::Attribute> AttributeDecoder::Decode(uint32_t reference) {
  // ReadSbf already refused arrays nested deeper than the format allows;
  // the check here keeps the recursion bounded on its own.
  struct Recursion {
    AttributeDecoder* decoder;
    mlir::FailureOr<mlir::Attribute> operator()(uint32_t reference,
                                                int depth) const {
      if (depth > static_cast<int>(bef::kMaxArrayNesting)) {
        return mlir::emitError(decoder->error_loc_)
               << "array attributes nested deeper than "
               << bef::kMaxArrayNesting;
      }
      mlir::MLIRContext* context = decoder->context_;
      const bef::SbfAttribute attribute =
          decoder->program_->GetAttribute(reference);
      const uint32_t code = Code(attribute.type);
      if (mlir::Type scalar = ScalarType(code, context)) {
        const uint32_t size = bef::AttributeElementSize(attribute.type);
        uint64_t bits = LoadScalar(attribute.data, size);
        if (attribute.type == AttributeType::kBool) bits = bits != 0;
        if (auto integer = llvm::dyn_cast<mlir::IntegerType>(scalar)) {
          return mlir::Attribute(mlir::IntegerAttr::get(
              integer, llvm::APInt(integer.getWidth(), bits)));
        }
        auto floating = llvm::cast<mlir::FloatType>(scalar);
        return mlir::Attribute(mlir::FloatAttr::get(
            floating, llvm::APFloat(floating.getFloatSemantics(),
                                    llvm::APInt(floating.getWidth(), bits))));
      }
      switch (attribute.type) {
        case AttributeType::kString:
          return mlir::Attribute(mlir::StringAttr::get(
              context, llvm::StringRef(static_cast<const char*>(attribute.data),
                                       attribute.count)));
        case AttributeType::kType: {
          mlir::FailureOr<mlir::Type> type = decoder->DecodeType(
              static_cast<uint32_t>(LoadScalar(attribute.data, 4)));
          if (mlir::failed(type)) return mlir::failure();
          return mlir::Attribute(mlir::TypeAttr::get(*type));
        }
        case AttributeType::kSymbol: {
          const uint32_t index =
              static_cast<uint32_t>(LoadScalar(attribute.data, 4));
          const bef::SbfFunction& function =
              decoder->program_->functions[index];
          if (function.kind == bef::FunctionKind::kRegion) {
            return mlir::emitError(decoder->error_loc_)
                   << "symbol attribute names region function " << index
                   << ", which has no name";
          }
          return mlir::Attribute(mlir::FlatSymbolRefAttr::get(
              context,
              llvm::StringRef(function.name.data(), function.name.size())));
        }
        case AttributeType::kArray: {
          std::vector<mlir::Attribute> elements;
          elements.reserve(attribute.count);
          const uint8_t* data = static_cast<const uint8_t*>(attribute.data);
          for (uint32_t i = 0; i < attribute.count; ++i) {
            mlir::FailureOr<mlir::Attribute> element = (*this)(
                static_cast<uint32_t>(LoadScalar(data + 4 * i, 4)), depth + 1);
            if (mlir::failed(element)) return mlir::failure();
            elements.push_back(*element);
          }
          return mlir::Attribute(mlir::ArrayAttr::get(context, elements));
        }
        case AttributeType::kUnit:
          return mlir::Attribute(mlir::UnitAttr::get(context));
        case AttributeType::kDenseElements:
          return decoder->DecodeDenseElements(attribute);
        default:
          break;
      }
      const uint32_t dense_base = Code(AttributeType::kDenseArrayBase);
      if (code > dense_base) {
        if (mlir::Type element = ScalarType(code - dense_base, context)) {
          const uint32_t size = bef::AttributeElementSize(attribute.type);
          return mlir::Attribute(mlir::DenseArrayAttr::get(
              context, element, attribute.count,
              llvm::ArrayRef<char>(static_cast<const char*>(attribute.data),
                                   size_t{attribute.count} * size)));
        }
      }
      return mlir::emitError(decoder->error_loc_)
             << "attribute of type " << bef::AttributeTypeName(attribute.type)
             << " has no MLIR form";
    }
  };
  mlir::FailureOr<mlir::Attribute> decoded = Recursion{this}(reference, 0);
  // Only an op's attribute itself may be a policy, never an element.
  if (mlir::succeeded(decoded)) {
    if (auto array = llvm::dyn_cast<mlir::ArrayAttr>(*decoded)) {
      if (mlir::Attribute policy = RaiseFailurePolicy(array)) return policy;
    }
  }
  return decoded;
}

mlir::FailureOr<mlir::Attribute> AttributeDecoder::DecodeDenseElements(
    const bef::SbfAttribute& attribute) {
  // ReadSbf checked the layout: a known element type and a shape the
  // elements fill exactly.
  const char* data = static_cast<const char*>(attribute.data);
  const auto code =
      static_cast<AttributeType>(LoadScalar(data, sizeof(uint32_t)));
  const uint32_t rank =
      static_cast<uint32_t>(LoadScalar(data + 4, sizeof(uint32_t)));
  llvm::SmallVector<int64_t, 4> shape;
  for (uint32_t i = 0; i < rank; ++i) {
    shape.push_back(static_cast<int64_t>(LoadScalar(
        data + bef::kDenseElementsHeaderSize + 8 * i, sizeof(int64_t))));
  }
  mlir::Type element;
  mlir::Builder builder(context_);
  if (code == AttributeType::kComplex64) {
    element = mlir::ComplexType::get(builder.getF32Type());
  } else if (code == AttributeType::kComplex128) {
    element = mlir::ComplexType::get(builder.getF64Type());
  } else {
    element = ScalarType(static_cast<uint32_t>(code), context_);
  }
  if (!element) {
    return mlir::emitError(error_loc_)
           << "dense elements of type " << bef::AttributeTypeName(code)
           << " have no MLIR form";
  }
  auto tensor = mlir::RankedTensorType::get(shape, element);
  const char* elements =
      data + bef::kDenseElementsHeaderSize + 8 * uint64_t{rank};
  const size_t size = attribute.count - (elements - data);
  if (code == AttributeType::kBool) {
    llvm::SmallVector<bool> values(elements, elements + size);
    return mlir::Attribute(mlir::DenseElementsAttr::get(tensor, values));
  }
  return mlir::Attribute(mlir::DenseElementsAttr::getFromRawBuffer(
      tensor, llvm::ArrayRef<char>(elements, size)));
}

}  // namespace compiler_internal
}  // namespace sluice
