// The decompiler gives back every op: ops no dialect of the tool knows in
// generic form, with their attributes (compiler hints such as `_tfrt_cost`
// included, though kernels never receive them) and regions, and the
// module's and functions' attributes (`tfrt.sync`, `tfrt.native`,
// `tfrt.cost_threshold`). A second round trip prints the same text.
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf
// RUN: sluice_translate --sbf-to-mlir %t.sbf > %t.first.mlir
// RUN: FileCheck %s < %t.first.mlir
// RUN: sluice_translate --mlir-to-sbf %t.first.mlir | sluice_translate --sbf-to-mlir > %t.second.mlir
// RUN: diff %t.first.mlir %t.second.mlir

// CHECK: module attributes {tfrt.cost_threshold = 100 : i64} {
module attributes {tfrt.cost_threshold = 100 : i64} {

// CHECK-NEXT: func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}
func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}

// CHECK-LABEL: func.func @custom_ops(%arg0: i32) -> i32 attributes {tfrt.cost_threshold = 7 : i64, tfrt.sync} {
// CHECK-NEXT: %0 = "my.op"(%arg0) {_tfrt_cost = 3 : i64, f = 1.500000e+00 : f32, flag, name = "n", shape = [1, 2]} : (i32) -> i32
// CHECK-NEXT: %1 = "my.loop"(%0) ({
// CHECK-NEXT: ^bb0(%arg1: i32):
// CHECK-NEXT:   %2 = "my.inner"(%arg1) {k = 2 : i64} : (i32) -> i32
// CHECK-NEXT:   tfrt.return %2 : i32
// CHECK-NEXT: }) {_hint = "kept"} : (i32) -> i32
// CHECK-NEXT: tfrt.return %1 : i32
func.func @custom_ops(%x: i32) -> i32 attributes {tfrt.sync, tfrt.cost_threshold = 7 : i64} {
  %a = "my.op"(%x) {_tfrt_cost = 3 : i64, flag, name = "n", shape = [1, 2], f = 1.5 : f32} : (i32) -> i32
  %b = "my.loop"(%a) ({
  ^bb0(%y: i32):
    %z = "my.inner"(%y) {k = 2 : i64} : (i32) -> i32
    tfrt.return %z : i32
  }) {_hint = "kept"} : (i32) -> i32
  tfrt.return %b : i32
}

// CHECK-LABEL: func.func @calls_native() -> i32 {
// CHECK: tfrt.call @native_add
func.func @calls_native() -> i32 {
  %one = tfrt.constant.i32 1
  %two = tfrt.call @native_add(%one, %one) : (i32, i32) -> i32
  tfrt.return %two : i32
}
}
