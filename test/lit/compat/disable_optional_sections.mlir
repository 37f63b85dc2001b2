// A file compiled with --disable-optional-sections still decompiles: the
// tool warns that the sections it would need are missing and prints the
// program in generic form, with the types it can recover (the functions'
// signatures; kernel results that are not returned are `none`). The file
// still runs.
// RUN: sluice_translate --mlir-to-sbf --disable-optional-sections %s -o %t.sbf
// RUN: sluice_translate --sbf-to-mlir %t.sbf 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.stderr
// RUN: %sluice_run %t.sbf | FileCheck %s --check-prefix=EXEC

// WARN: warning: Missing AttributeTypes, AttributeNames or RegisterTypes sections.

// CHECK: "builtin.module"() ({
// CHECK-NEXT: "func.func"() <{function_type = (i32) -> i32, sym_name = "double"}> ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32):
// CHECK-NEXT: %[[Y:.*]] = "tfrt.add.i32"(%[[X]], %[[X]]) : (i32, i32) -> i32
// CHECK-NEXT: "tfrt.return"(%[[Y]]) : (i32) -> ()
func.func @double(%x: i32) -> i32 {
  %y = tfrt.add.i32 %x, %x
  tfrt.return %y : i32
}

// CHECK: "func.func"() <{function_type = () -> i32, sym_name = "main"}> ({
// CHECK-NEXT: %[[A:.*]] = "tfrt.constant.i32"() {value = 20 : i32} : () -> none
// CHECK-NEXT: %[[B:.*]] = "tfrt.add.i32"(%[[A]], %[[A]]) : (none, none) -> none
// CHECK-NEXT: %[[C:.*]] = "tfrt.call"(%[[A]]) {callee = @double} : (none) -> i32
// CHECK-NEXT: "tfrt.return"(%[[C]]) : (i32) -> ()
// EXEC-LABEL: --- Running 'main':
// EXEC-NEXT: 'main' returned 40
func.func @main() -> i32 {
  %a = tfrt.constant.i32 20
  %b = tfrt.add.i32 %a, %a
  %c = tfrt.call @double(%a) : (i32) -> i32
  tfrt.return %c : i32
}
