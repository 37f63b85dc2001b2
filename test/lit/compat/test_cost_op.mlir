// tfrt_test.test_cost prints its id and returns 0; its verifier refuses a
// cost hint that is not positive, in TFRT's words, in every tool.
// RUN: %sluice_run %s | FileCheck %s
// RUN: sluice_translate --mlir-to-sbf %s | %sluice_run | FileCheck %s
// RUN: sluice_opt %s | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: sluice_opt -split-input-file -verify-diagnostics %S/Inputs/test_cost_errors.mlir
// RUN: sluice_translate --mlir-to-sbf -split-input-file -verify-diagnostics %S/Inputs/test_cost_errors.mlir -o /dev/null
// RUN: not sluice_opt -split-input-file %S/Inputs/test_cost_errors.mlir 2>&1 | FileCheck %s --check-prefix=ERRORS

// CHECK-LABEL: --- Running 'costs':
// CHECK-NEXT: id: 0
// CHECK-NEXT: id: 1
// CHECK-NEXT: 'costs' returned 0,0

// ROUNDTRIP: tfrt_test.test_cost %{{.*}} {_tfrt_cost = 1 : i64, id = 0 : i64} : i32
// ROUNDTRIP: tfrt_test.test_cost %{{.*}}, %{{.*}} {_tfrt_cost = 9223372036854775807 : i64, id = 1 : i64} : i32, i32

// ERRORS: test_cost_errors.mlir:{{.*}} error: 'tfrt_test.test_cost' op cost value must be larger than 0
// ERRORS: test_cost_errors.mlir:{{.*}} error: 'tfrt_test.test_cost' op cost value must be larger than 0
// ERRORS: test_cost_errors.mlir:{{.*}} error: 'tfrt_test.test_cost' op cost value must be larger than 0
// ERRORS: test_cost_errors.mlir:{{.*}} error: 'tfrt_test.test_cost' op cost value must be an i64 integer

func.func @costs() -> (i32, i32) {
  %one = tfrt.constant.i32 1
  %a = tfrt_test.test_cost %one {id = 0 : i64, _tfrt_cost = 1 : i64} : i32
  // The second waits for the first: its ids print in order on any queue.
  %b = tfrt_test.test_cost %a, %one {id = 1 : i64, _tfrt_cost = 9223372036854775807 : i64} : i32, i32
  tfrt.return %a, %b : i32, i32
}
