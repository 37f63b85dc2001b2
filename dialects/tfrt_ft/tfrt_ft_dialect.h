// The `tfrt_ft` dialect: fault tolerance (checkpoints, step signals,
// quorums).

#ifndef SLUICE_DIALECTS_TFRT_FT_TFRT_FT_DIALECT_H_
#define SLUICE_DIALECTS_TFRT_FT_TFRT_FT_DIALECT_H_

#include "dialects/t/t_dialect.h"
#include "dialects/tfrt/tfrt_dialect.h"
#include "dialects/tfrt_ccl/tfrt_ccl_dialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

// The declarations mlir-tblgen generates from tfrt_ft_ops.td.
#include "dialects/tfrt_ft/tfrt_ft_dialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/tfrt_ft/tfrt_ft_ops.h.inc"

#endif  // SLUICE_DIALECTS_TFRT_FT_TFRT_FT_DIALECT_H_
