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

#define GET_OP_CLASSES
#include "dialects/tfrt_dist/tfrt_dist_ops.h.inc"

namespace sluice {
namespace tfrt_dist {

// Whether values of `type` can be sent to or returned by a remote function:
// the types the worker protocol carries (i1, i32, i64, f32, f64,
// !tfrt.string, !tfrt.chain, !t.tensor, !tfrt_dist.variable).
bool IsTransferable(mlir::Type type);

}  // namespace tfrt_dist
}  // namespace sluice

#endif  // SLUICE_DIALECTS_TFRT_DIST_TFRT_DIST_DIALECT_H_
