// The `tfrt_dist` dialect: remote execution on the tasks of a cluster.

#ifndef SLUICE_DIALECTS_TFRT_DIST_TFRT_DIST_DIALECT_H_
#define SLUICE_DIALECTS_TFRT_DIST_TFRT_DIST_DIALECT_H_

#include "dialects/t/t_dialect.h"
#include "dialects/tfrt/tfrt_dialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

// The declarations mlir-tblgen generates from tfrt_dist_ops.td.
#include "dialects/tfrt_dist/tfrt_dist_dialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tfrt_dist/tfrt_dist_types.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tfrt_dist/tfrt_dist_attrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/tfrt_dist/tfrt_dist_ops.h.inc"

namespace sluice {
namespace tfrt_dist {

// Whether values of `type` can be sent to or returned by a remote function:
// the types the worker protocol carries (i1, i32, i64, f32, f64,
// !tfrt.string, !tfrt.chain, !t.tensor, !tfrt_dist.variable).
bool IsTransferable(mlir::Type type);

// Checks `op`'s `on_failure` policy (a RetryAttr or FallbackAttr; null
// passes): the ranges, the classes, and, where `may_retry` is false (a
// broken collective group cannot be made again), that it only falls back;
// `why_no_retry` says why. The fallback function is checked by
// VerifyFailurePolicyFallback, which needs the symbol table.
mlir::LogicalResult VerifyFailurePolicy(mlir::Operation* op,
                                        mlir::Attribute policy,
                                        bool may_retry = true,
                                        llvm::StringRef why_no_retry = "");

// Checks that the fallback `policy` names is a function of the module that
// takes `arguments` and returns `results`, the op's own.
mlir::LogicalResult VerifyFailurePolicyFallback(
    mlir::Operation* op, mlir::Attribute policy, mlir::TypeRange arguments,
    mlir::TypeRange results, mlir::SymbolTableCollection& symbol_table);

}  // namespace tfrt_dist
}  // namespace sluice

#endif  // SLUICE_DIALECTS_TFRT_DIST_TFRT_DIST_DIALECT_H_
