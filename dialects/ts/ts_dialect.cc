#include "dialects/ts/ts_dialect.h"

#include "dialects/tfrt/inline_anywhere.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

// Generated definitions of the dialect class and its type.
#include "dialects/ts/ts_dialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/ts/ts_types.cpp.inc"

namespace sluice {
namespace ts {

void TsDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/ts/ts_types.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/ts/ts_ops.cpp.inc"
      >();
  addInterfaces<InlineAnywhereInterface>();
}

mlir::LogicalResult VerifyDimensions(mlir::Operation* op, mlir::ArrayAttr dims,
                                     llvm::StringRef name) {
  for (auto [index, dim] :
       llvm::enumerate(dims.getAsRange<mlir::IntegerAttr>())) {
    if (dim.getInt() >= 0) continue;
    return op->emitOpError() << "dimension " << index << " of '" << name
                             << "' is negative (" << dim.getInt() << ")";
  }
  return mlir::success();
}

mlir::LogicalResult BuildShapeOp::verify() {
  return VerifyDimensions(*this, getValue(), getValueAttrName());
}

}  // namespace ts
}  // namespace sluice

#define GET_OP_CLASSES
#include "dialects/ts/ts_ops.cpp.inc"
