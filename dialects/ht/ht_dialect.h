// The `ht` dialect: `!ht.host_buffer`, the type of a host buffer
// (sluice::RCReference<sluice::HostBuffer> at run time).

#ifndef SLUICE_DIALECTS_HT_HT_DIALECT_H_
#define SLUICE_DIALECTS_HT_HT_DIALECT_H_

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

// The declarations mlir-tblgen generates from ht_base.td.
#include "dialects/ht/ht_dialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/ht/ht_types.h.inc"

#endif  // SLUICE_DIALECTS_HT_HT_DIALECT_H_
