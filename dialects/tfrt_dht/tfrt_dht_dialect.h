// The `tfrt_dht` dialect: dense host tensors and host buffers.

#ifndef SLUICE_DIALECTS_TFRT_DHT_TFRT_DHT_DIALECT_H_
#define SLUICE_DIALECTS_TFRT_DHT_TFRT_DHT_DIALECT_H_

#include "dialects/ht/ht_dialect.h"
#include "dialects/t/t_dialect.h"
#include "dialects/tfrt/tfrt_dialect.h"
#include "dialects/ts/ts_dialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// The declarations mlir-tblgen generates from tfrt_dht_ops.td.
#include "dialects/tfrt_dht/tfrt_dht_dialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/tfrt_dht/tfrt_dht_ops.h.inc"

#endif  // SLUICE_DIALECTS_TFRT_DHT_TFRT_DHT_DIALECT_H_
