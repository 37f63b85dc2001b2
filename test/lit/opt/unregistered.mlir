// Ops and types of dialects Sluice does not register (kernels own them) pass
// through with -allow-unregistered-dialect, next to tfrt ops using them.
// RUN: sluice_opt %s -allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func.func @value_lifetime
func.func @value_lifetime() -> !tfrt.chain {
  // CHECK-NEXT: %[[CH:.*]] = tfrt.new.chain
  %ch = tfrt.new.chain
  // CHECK-NEXT: %[[V:.*]] = "vt.constant"() {value = 1 : i32} : () -> !vt.value
  %v = "vt.constant"() {value = 1 : i32} : () -> !vt.value
  // CHECK-NEXT: %[[W:.*]] = "vt.add"(%[[V]], %[[V]]) : (!vt.value, !vt.value) -> !vt.value
  %w = "vt.add"(%v, %v) : (!vt.value, !vt.value) -> !vt.value
  // CHECK-NEXT: %[[B:.*]] = tfrt.constant.i1 true
  // CHECK-NEXT: %[[C:.*]] = tfrt.if %[[B]], %[[W]] : (!vt.value) -> (!vt.value) {
  %b = tfrt.constant.i1 1
  %c = tfrt.if %b, %w : (!vt.value) -> (!vt.value) {
    tfrt.return %w : !vt.value
  } else {
    tfrt.return %w : !vt.value
  }
  // CHECK: "vt.print"(%[[C]], %[[CH]]) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  %ch1 = "vt.print"(%c, %ch) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  // CHECK-NEXT: "tfrt_test.atomic.create.i32"() : () -> !test.atomic.i32
  %a = "tfrt_test.atomic.create.i32"() : () -> !test.atomic.i32
  // CHECK-NEXT: tfrt.constant.i32 2
  // CHECK-NEXT: "tfrt_tutorial.create_coordinate"{{.*}} -> !my.coordinate
  %x = tfrt.constant.i32 2
  %coord = "tfrt_tutorial.create_coordinate"(%x, %x) : (i32, i32) -> !my.coordinate
  tfrt.return %ch1 : !tfrt.chain
}
