// `_tfrt_cost`, TFRT's cost-model hint, may be on any op and must be a
// positive i64. Kernels never receive it; the decompiler gives it back.
// RUN: %sluice_run %s | FileCheck %s
// RUN: sluice_translate --mlir-to-sbf %s | sluice_translate --sbf-to-mlir | FileCheck %s --check-prefix=DECOMPILED
// RUN: sluice_translate --mlir-to-sbf -split-input-file -verify-diagnostics %S/Inputs/cost_errors.mlir -o /dev/null

// CHECK-LABEL: --- Running 'costs':
// CHECK-NEXT: id: 7
// CHECK-NEXT: 'costs' returned 3,0
// DECOMPILED: tfrt.add.i32 %{{.*}}, %{{.*}} {_tfrt_cost = 1 : i64}
// DECOMPILED: tfrt_test.test_cost %{{.*}} {_tfrt_cost = 100 : i64, id = 7 : i64} : i32
func.func @costs() -> (i32, i32) {
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt.add.i32 %one, %two {_tfrt_cost = 1 : i64}
  %r = tfrt_test.test_cost %sum {id = 7 : i64, _tfrt_cost = 100 : i64} : i32
  tfrt.return %sum, %r : i32, i32
}
