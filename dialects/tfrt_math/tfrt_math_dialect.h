// The `tfrt_math` dialect: tensor math on dense host tensors.

#ifndef SLUICE_DIALECTS_TFRT_MATH_TFRT_MATH_DIALECT_H_
#define SLUICE_DIALECTS_TFRT_MATH_TFRT_MATH_DIALECT_H_

#include "dialects/t/t_dialect.h"
#include "dialects/tfrt/tfrt_dialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

// The declarations mlir-tblgen generates from tfrt_math_ops.td.
#include "dialects/tfrt_math/tfrt_math_dialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/tfrt_math/tfrt_math_ops.h.inc"

#endif  // SLUICE_DIALECTS_TFRT_MATH_TFRT_MATH_DIALECT_H_
