// The `tfrt_gpu` dialect: CUDA devices, device tensors and copies.

#ifndef SLUICE_DIALECTS_TFRT_GPU_TFRT_GPU_DIALECT_H_
#define SLUICE_DIALECTS_TFRT_GPU_TFRT_GPU_DIALECT_H_

#include "dialects/t/t_dialect.h"
#include "dialects/tfrt/tfrt_dialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

// The declarations mlir-tblgen generates from tfrt_gpu_ops.td.
#include "dialects/tfrt_gpu/tfrt_gpu_dialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tfrt_gpu/tfrt_gpu_types.h.inc"

#define GET_OP_CLASSES
#include "dialects/tfrt_gpu/tfrt_gpu_ops.h.inc"

#endif  // SLUICE_DIALECTS_TFRT_GPU_TFRT_GPU_DIALECT_H_
