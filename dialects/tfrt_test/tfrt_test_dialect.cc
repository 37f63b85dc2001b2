#include "dialects/tfrt_test/tfrt_test_dialect.h"

#include "dialects/tfrt/inline_anywhere.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "mlir/IR/BuiltinAttributes.h"

// Generated definition of the dialect class.
#include "dialects/tfrt_test/tfrt_test_dialect.cpp.inc"

namespace sluice {
namespace tfrt_test {
namespace {

// The benchmark settings, in the order they are printed.
constexpr llvm::StringLiteral kBenchmarkSettings[] = {
    "duration_secs", "max_count", "num_warmup_runs"};

}  // namespace

void TfrtTestDialect::initialize() {
  // Most test kernels are written in generic form only (spec: tfrt_test ops).
  allowUnknownOperations();
  allowUnknownTypes();
  addOperations<
#define GET_OP_LIST
#include "dialects/tfrt_test/tfrt_test_ops.cpp.inc"
      >();
  // Test kernels, known or not, behave the same wherever their function is
  // inlined; without this no function using them could be.
  addInterfaces<InlineAnywhereInterface>();
}

//===----------------------------------------------------------------------===//
// tfrt_test.do.async
//===----------------------------------------------------------------------===//

// `tfrt_test.do.async %args... [attributes {...}] : (types) -> (types)
//    { body }`
mlir::ParseResult DoAsyncOp::parse(mlir::OpAsmParser& parser,
                                   mlir::OperationState& result) {
  llvm::SmallVector<mlir::OpAsmParser::UnresolvedOperand, 4> operands;
  mlir::FunctionType type;
  llvm::SMLoc operands_loc = parser.getCurrentLocation();
  if (parser.parseOperandList(operands) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperands(operands, type.getInputs(), operands_loc,
                             result.operands)) {
    return mlir::failure();
  }
  result.addTypes(type.getResults());
  return tfrt::ParseRegionWithOperandNames(parser, *result.addRegion(),
                                           operands, type.getInputs());
}

void DoAsyncOp::print(mlir::OpAsmPrinter& printer) {
  if (!getArgs().empty()) printer << ' ' << getArgs();
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs());
  printer << " : (" << getArgs().getTypes() << ") -> (" << getResultTypes()
          << ")";
  tfrt::PrintRegionWithOperandNames(printer, getRegion(), getArgs());
}

mlir::LogicalResult DoAsyncOp::verify() {
  return tfrt::VerifyRegionSignature(*this, getRegion(), "body",
                                     getArgs().getTypes(), getResultTypes());
}

//===----------------------------------------------------------------------===//
// tfrt_test.benchmark
//===----------------------------------------------------------------------===//

// `tfrt_test.benchmark "name"(%a : type, ...) setting = N, ...
//    [attributes {...}] { body }`
mlir::ParseResult BenchmarkOp::parse(mlir::OpAsmParser& parser,
                                     mlir::OperationState& result) {
  mlir::StringAttr name;
  if (parser.parseAttribute(name, getNameAttrName(result.name),
                            result.attributes)) {
    return mlir::failure();
  }

  llvm::SmallVector<mlir::OpAsmParser::UnresolvedOperand, 4> operands;
  llvm::SmallVector<mlir::Type, 4> types;
  llvm::SMLoc operands_loc = parser.getCurrentLocation();
  auto parse_operand = [&]() -> mlir::ParseResult {
    return mlir::failure(parser.parseOperand(operands.emplace_back()) ||
                         parser.parseColonType(types.emplace_back()));
  };
  if (parser.parseCommaSeparatedList(mlir::AsmParser::Delimiter::Paren,
                                     parse_operand) ||
      parser.resolveOperands(operands, types, operands_loc, result.operands)) {
    return mlir::failure();
  }

  mlir::Type i32 = parser.getBuilder().getI32Type();
  auto parse_setting = [&]() -> mlir::ParseResult {
    llvm::SMLoc loc = parser.getCurrentLocation();
    llvm::StringRef key;
    if (parser.parseKeyword(&key)) return mlir::failure();
    if (!llvm::is_contained(kBenchmarkSettings, key)) {
      return parser.emitError(loc)
             << "unknown benchmark setting '" << key << "'";
    }
    if (result.attributes.get(key)) {
      return parser.emitError(loc) << "'" << key << "' is given twice";
    }
    mlir::IntegerAttr value;
    return mlir::failure(
        parser.parseEqual() ||
        parser.parseAttribute(value, i32, key, result.attributes));
  };
  if (parser.parseCommaSeparatedList(parse_setting) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes)) {
    return mlir::failure();
  }
  result.addTypes(tfrt::ChainType::get(parser.getContext()));
  return tfrt::ParseRegionWithOperandNames(parser, *result.addRegion(),
                                           operands, types);
}

void BenchmarkOp::print(mlir::OpAsmPrinter& printer) {
  printer << ' ';
  printer.printAttributeWithoutType(getNameAttr());
  printer << '(';
  llvm::interleaveComma(getArgs(), printer, [&](mlir::Value arg) {
    printer << arg << " : " << arg.getType();
  });
  printer << ')';

  llvm::SmallVector<llvm::StringRef, 4> printed = {
      getNameAttrName().getValue()};
  llvm::StringLiteral separator = " ";
  for (llvm::StringRef key : kBenchmarkSettings) {
    mlir::Attribute value = (*this)->getAttr(key);
    if (!value) continue;
    printer << separator << key << " = ";
    printer.printAttributeWithoutType(value);
    separator = ", ";
    printed.push_back(key);
  }
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs(), printed);
  tfrt::PrintRegionWithOperandNames(printer, getRegion(), getArgs());
}

mlir::LogicalResult BenchmarkOp::verify() {
  // The runner discards what the body returns, so any values are allowed.
  mlir::Block& block = getRegion().front();
  auto return_op = llvm::dyn_cast_or_null<tfrt::ReturnOp>(
      block.empty() ? nullptr : &block.back());
  mlir::TypeRange returned;
  if (return_op) returned = return_op.getArgs().getTypes();
  return tfrt::VerifyRegionSignature(*this, getRegion(), "body",
                                     getArgs().getTypes(), returned);
}

//===----------------------------------------------------------------------===//
// tfrt_test.test_cost
//===----------------------------------------------------------------------===//

// The compiler checks `_tfrt_cost` on every op; this op checks it in the
// verifier too, so that tools that never compile (sluice_opt) refuse a bad
// cost the way TFRT's do.
mlir::LogicalResult TestCostOp::verify() {
  mlir::Attribute value = (*this)->getAttr("_tfrt_cost");
  if (!value) return mlir::success();
  auto cost = llvm::dyn_cast<mlir::IntegerAttr>(value);
  if (!cost || !cost.getType().isInteger(64)) {
    return emitOpError("cost value must be an i64 integer");
  }
  if (cost.getInt() <= 0) {
    return emitOpError("cost value must be larger than 0");
  }
  return mlir::success();
}

}  // namespace tfrt_test
}  // namespace sluice

#define GET_OP_CLASSES
#include "dialects/tfrt_test/tfrt_test_ops.cpp.inc"
