// The `tfrt_test` dialect: the test kernels with custom syntax.

#ifndef SLUICE_DIALECTS_TFRT_TEST_TFRT_TEST_DIALECT_H_
#define SLUICE_DIALECTS_TFRT_TEST_TFRT_TEST_DIALECT_H_

#include "dialects/tfrt/tfrt_dialect.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// The declarations mlir-tblgen generates from tfrt_test_ops.td.
#include "dialects/tfrt_test/tfrt_test_dialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/tfrt_test/tfrt_test_ops.h.inc"

#endif  // SLUICE_DIALECTS_TFRT_TEST_TFRT_TEST_DIALECT_H_
