// -inline replaces tfrt.call with the callee's body.
// RUN: sluice_opt %s -inline | FileCheck %s

func.func @add_one(%x: i32) -> i32 {
  %one = tfrt.constant.i32 1
  %y = tfrt.add.i32 %x, %one
  tfrt.return %y : i32
}

func.func @print_twice(%x: i32, %ch: !tfrt.chain) -> !tfrt.chain {
  %ch1 = tfrt.print.i32 %x, %ch
  %ch2 = "tfrt_test.print_hello"(%ch1) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch2 : !tfrt.chain
}

// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[X:.*]]: i32, %[[CH:.*]]: !tfrt.chain)
// CHECK-NOT: tfrt.call
// CHECK: %[[ONE:.*]] = tfrt.constant.i32 1
// CHECK-NEXT: %[[Y:.*]] = tfrt.add.i32 %[[X]], %[[ONE]]
// CHECK-NEXT: %[[CH1:.*]] = tfrt.print.i32 %[[Y]], %[[CH]]
// CHECK-NEXT: %[[CH2:.*]] = "tfrt_test.print_hello"(%[[CH1]])
// CHECK-NEXT: tfrt.return %[[CH2]] : !tfrt.chain
func.func @caller(%x: i32, %ch: !tfrt.chain) -> !tfrt.chain {
  %y = tfrt.call @add_one(%x) : (i32) -> i32
  %r = tfrt.call @print_twice(%y, %ch) : (i32, !tfrt.chain) -> !tfrt.chain
  tfrt.return %r : !tfrt.chain
}

// Calls inside region ops are inlined into the region.
// CHECK-LABEL: func.func @call_in_region
// CHECK: tfrt.repeat.i32 %{{.*}}, %[[V:.*]] : i32 {
// CHECK-NEXT: %[[ONE:.*]] = tfrt.constant.i32 1
// CHECK-NEXT: %[[W:.*]] = tfrt.add.i32 %[[V]], %[[ONE]]
// CHECK-NEXT: tfrt.return %[[W]] : i32
func.func @call_in_region(%n: i32, %v: i32) -> i32 {
  %r = tfrt.repeat.i32 %n, %v : i32 {
    %w = tfrt.call @add_one(%v) : (i32) -> i32
    tfrt.return %w : i32
  }
  tfrt.return %r : i32
}

// Native functions have no body to inline.
// CHECK-LABEL: func.func @native_call
// CHECK: tfrt.call @native_add
func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}
func.func @native_call(%x: i32) -> i32 {
  %y = tfrt.call @native_add(%x, %x) : (i32, i32) -> i32
  tfrt.return %y : i32
}
