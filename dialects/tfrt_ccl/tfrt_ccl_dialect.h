// The `tfrt_ccl` dialect: collectives among the ranks of a group.

#ifndef SLUICE_DIALECTS_TFRT_CCL_TFRT_CCL_DIALECT_H_
#define SLUICE_DIALECTS_TFRT_CCL_TFRT_CCL_DIALECT_H_

#include "dialects/t/t_dialect.h"
#include "dialects/tfrt/tfrt_dialect.h"
#include "dialects/tfrt_dist/tfrt_dist_dialect.h"
#include "dialects/tfrt_gpu/tfrt_gpu_dialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

// The declarations mlir-tblgen generates from tfrt_ccl_ops.td.
#include "dialects/tfrt_ccl/tfrt_ccl_dialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tfrt_ccl/tfrt_ccl_types.h.inc"

#define GET_OP_CLASSES
#include "dialects/tfrt_ccl/tfrt_ccl_ops.h.inc"

#endif  // SLUICE_DIALECTS_TFRT_CCL_TFRT_CCL_DIALECT_H_
