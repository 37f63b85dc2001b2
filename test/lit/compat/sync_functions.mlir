// Sync functions (`attributes {tfrt.sync}`): TFRT runs them with a cheaper
// executor; Sluice compiles, loads, runs and decompiles them like any
// function. Their results are new values, each returned once
// (sync_function_errors.mlir).
// RUN: %sluice_run %s | FileCheck %s
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf
// RUN: %sluice_run %t.sbf | FileCheck %s
// RUN: sluice_translate --sbf-to-mlir %t.sbf | FileCheck %s --check-prefix=DECOMPILED

// DECOMPILED-LABEL: func.func @sync_add(%arg0: i32, %arg1: i32) -> (i32, i32) attributes {tfrt.sync} {
// DECOMPILED-NEXT: %0 = tfrt.add.i32 %arg0, %arg1
// DECOMPILED-NEXT: %1 = tfrt.mul.i32 %0, %arg1
// DECOMPILED-NEXT: tfrt.return %0, %1 : i32, i32
// CHECK: --- Not running 'sync_add' because it has arguments.
func.func @sync_add(%a: i32, %b: i32) -> (i32, i32) attributes {tfrt.sync} {
  %sum = tfrt.add.i32 %a, %b
  %product = tfrt.mul.i32 %sum, %b
  tfrt.return %sum, %product : i32, i32
}

// DECOMPILED-LABEL: func.func @sync_main() -> i32 attributes {tfrt.sync} {
// CHECK-LABEL: --- Running 'sync_main':
// CHECK-NEXT: int32 = 5
// CHECK-NEXT: 'sync_main' returned 15
func.func @sync_main() -> i32 attributes {tfrt.sync} {
  %ch = tfrt.new.chain
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %sum, %product = tfrt.call @sync_add(%two, %three) : (i32, i32) -> (i32, i32)
  %printed = tfrt.print.i32 %sum, %ch
  tfrt.return %product : i32
}

// A function that is not sync calls a sync one.
// CHECK-LABEL: --- Running 'caller':
// CHECK-NEXT: 'caller' returned 11,66
func.func @caller() -> (i32, i32) {
  %five = tfrt.constant.i32 5
  %six = tfrt.constant.i32 6
  %sum, %product = tfrt.call @sync_add(%five, %six) : (i32, i32) -> (i32, i32)
  tfrt.return %sum, %product : i32, i32
}
