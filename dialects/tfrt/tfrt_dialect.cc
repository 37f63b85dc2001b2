#include "dialects/tfrt/tfrt_dialect.h"

#include "dialects/tfrt/inline_anywhere.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"

// Generated definitions of the dialect class and its types.
#include "dialects/tfrt/tfrt_dialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tfrt/tfrt_types.cpp.inc"

namespace sluice {
namespace tfrt {
namespace {

// tfrt ops inline anywhere; calls also need the callee's tfrt.return
// turned into replacements for the call's results.
class TfrtInlinerInterface : public InlineAnywhereInterface {
 public:
  using InlineAnywhereInterface::InlineAnywhereInterface;

  // Functions are single-block, so the callee's tfrt.return is the only
  // terminator and its operands replace the call's results.
  void handleTerminator(mlir::Operation* op,
                        mlir::ValueRange values_to_replace) const final {
    auto return_op = llvm::cast<ReturnOp>(op);
    for (auto [old_value, new_value] :
         llvm::zip(values_to_replace, return_op.getArgs())) {
      old_value.replaceAllUsesWith(new_value);
    }
  }
};

}  // namespace

void TfrtDialect::initialize() {
  // Kernels define payload types (`!tfrt.test.resource`) and ops the dialect
  // has no ODS for; both must parse.
  allowUnknownTypes();
  allowUnknownOperations();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/tfrt/tfrt_types.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/tfrt/tfrt_ops.cpp.inc"
      >();
  addInterfaces<TfrtInlinerInterface>();
}

mlir::Type TfrtDialect::parseType(mlir::DialectAsmParser& parser) const {
  llvm::StringRef spec = parser.getFullSymbolSpec();
  llvm::StringRef mnemonic;
  mlir::Type type;
  mlir::OptionalParseResult known =
      generatedTypeParser(parser, &mnemonic, type);
  if (known.has_value()) return type;
  return mlir::OpaqueType::get(
      mlir::StringAttr::get(getContext(), getNamespace()), spec);
}

void TfrtDialect::printType(mlir::Type type,
                            mlir::DialectAsmPrinter& printer) const {
  // Opaque types are printed by MLIR itself; only ODS types arrive here.
  (void)generatedTypePrinter(type, printer);
}

}  // namespace tfrt
}  // namespace sluice
