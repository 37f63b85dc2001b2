// The `ts` dialect: `!ts.shape` (sluice::TensorShape at run time) and the
// ops that build and print shapes.

#ifndef SLUICE_DIALECTS_TS_TS_DIALECT_H_
#define SLUICE_DIALECTS_TS_TS_DIALECT_H_

#include "dialects/tfrt/tfrt_dialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// The declarations mlir-tblgen generates from ts_ops.td.
#include "dialects/ts/ts_dialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/ts/ts_types.h.inc"

#define GET_OP_CLASSES
#include "dialects/ts/ts_ops.h.inc"

namespace sluice {
namespace ts {

// Checks that `dims`, the array attribute `name` of `op`, holds no negative
// dimension; ops that take a shape as an attribute share it.
mlir::LogicalResult VerifyDimensions(mlir::Operation* op, mlir::ArrayAttr dims,
                                     llvm::StringRef name);

}  // namespace ts
}  // namespace sluice

#endif  // SLUICE_DIALECTS_TS_TS_DIALECT_H_
