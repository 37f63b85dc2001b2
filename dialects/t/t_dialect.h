// The `t` dialect: `!t.tensor`, the type of a dense host tensor
// (sluice::DenseHostTensor at run time).

#ifndef SLUICE_DIALECTS_T_T_DIALECT_H_
#define SLUICE_DIALECTS_T_T_DIALECT_H_

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

// The declarations mlir-tblgen generates from t_base.td.
#include "dialects/t/t_dialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/t/t_types.h.inc"

#endif  // SLUICE_DIALECTS_T_T_DIALECT_H_
