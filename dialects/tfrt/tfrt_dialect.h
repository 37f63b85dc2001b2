// The `tfrt` dialect: its types, its ops and the helpers region ops of other
// Sluice dialects share with it.

#ifndef SLUICE_DIALECTS_TFRT_TFRT_DIALECT_H_
#define SLUICE_DIALECTS_TFRT_TFRT_DIALECT_H_

#include "llvm/ADT/StringRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// The declarations mlir-tblgen generates from tfrt_ops.td, which need the
// MLIR headers above.
#include "dialects/tfrt/tfrt_dialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tfrt/tfrt_types.h.inc"

#define GET_OP_CLASSES
#include "dialects/tfrt/tfrt_ops.h.inc"

namespace sluice {
namespace tfrt {

// Parses the body of a region op whose entry block arguments take the names
// of the operands they bind (`tfrt.if %c, %a : ... { uses %a }`).
mlir::ParseResult ParseRegionWithOperandNames(
    mlir::OpAsmParser& parser, mlir::Region& region,
    llvm::ArrayRef<mlir::OpAsmParser::UnresolvedOperand> names,
    mlir::TypeRange types);

// Prints a region parsed by ParseRegionWithOperandNames, naming its entry
// block arguments after `names`.
void PrintRegionWithOperandNames(mlir::OpAsmPrinter& printer,
                                 mlir::Region& region, mlir::ValueRange names);

// Checks that `region`'s entry block takes `arg_types` and ends in a
// tfrt.return of `result_types`; `region_name` names it in diagnostics.
mlir::LogicalResult VerifyRegionSignature(mlir::Operation* op,
                                          mlir::Region& region,
                                          llvm::StringRef region_name,
                                          mlir::TypeRange arg_types,
                                          mlir::TypeRange result_types);

// Checks one function-typed symbol an op calls: it must name a function whose
// signature is `arg_types` -> `result_types`.
mlir::LogicalResult VerifyCallee(mlir::Operation* op,
                                 mlir::SymbolTableCollection& symbol_table,
                                 mlir::FlatSymbolRefAttr callee,
                                 mlir::TypeRange arg_types,
                                 mlir::TypeRange result_types);

}  // namespace tfrt
}  // namespace sluice

#endif  // SLUICE_DIALECTS_TFRT_TFRT_DIALECT_H_
