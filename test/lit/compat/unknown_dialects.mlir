// Ops of dialects no tool knows compile in generic form with no flag, as
// TFRT's translator accepts them: a custom kernel needs a C++ registration,
// not an MLIR dialect. The kernel registry checks the name at load time.
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf
// RUN: sluice_translate --sbf-to-mlir %t.sbf | FileCheck %s
// RUN: not %sluice_run %t.sbf 2>&1 | FileCheck %s --check-prefix=LOAD
// RUN: not %sluice_run %s 2>&1 | FileCheck %s --check-prefix=LOAD

// CHECK-LABEL: func.func @custom() -> i32
// CHECK-NEXT: %[[C:.*]] = tfrt.constant.i32 1
// CHECK-NEXT: %[[R:.*]] = "my_dialect.scale"(%[[C]]) {factor = 3 : i32} : (i32) -> i32
// CHECK-NEXT: %[[T:.*]] = "vendor.typed"(%[[R]]) : (i32) -> !vendor.opaque<"x">
// CHECK-NEXT: "vendor.sink"(%[[T]]) : (!vendor.opaque<"x">) -> ()
// CHECK-NEXT: tfrt.return %[[R]] : i32
// LOAD: unknown_dialects.mlir:[[# @LINE + 3]]:8: error: unknown kernel name 'my_dialect.scale'
func.func @custom() -> i32 {
  %one = tfrt.constant.i32 1
  %r = "my_dialect.scale"(%one) {factor = 3 : i32} : (i32) -> i32
  %t = "vendor.typed"(%r) : (i32) -> !vendor.opaque<"x">
  "vendor.sink"(%t) : (!vendor.opaque<"x">) -> ()
  tfrt.return %r : i32
}
