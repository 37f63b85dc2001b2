// Compiling to SBF and back gives the program back; the compiled program
// runs the same as the source.
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf
// RUN: sluice_translate --sbf-to-mlir %t.sbf | FileCheck %s
// RUN: %sluice_run %t.sbf | FileCheck %s --check-prefix=EXEC
// RUN: sluice_translate --mlir-to-sbf --disable-optional-sections %s | %sluice_run | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @add
// CHECK: tfrt.constant.i32 40
// CHECK: tfrt.add.i32
// EXEC-LABEL: --- Running 'add':
// EXEC-NEXT: 'add' returned 42
func.func @add() -> i32 {
  %a = tfrt.constant.i32 40
  %b = tfrt.constant.i32 2
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}
