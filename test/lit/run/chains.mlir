// Chains order side effects: tfrt.new.chain, tfrt.merge.chains (strict: it
// waits for every operand, and an error operand makes it that error), and
// the one extra trailing chain any kernel may take.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// The print waits for the merge, which waits for the late value.
// CHECK-LABEL: --- Running 'merge_waits':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: int32 = 12
// CHECK-NEXT: 'merge_waits' returned !tfrt.chain value
func.func @merge_waits() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %ch1 = "tfrt_test.print_hello"(%ch0) : (!tfrt.chain) -> !tfrt.chain
  %late = "tfrt_test.async_constant.i32"() {value = 12 : i32} : () -> i32
  %delayed = "tfrt_test.async_copy.with_delay.i32"(%late) : (i32) -> i32
  %all = tfrt.merge.chains %ch1, %delayed, %ch0 : !tfrt.chain, i32, !tfrt.chain
  %ch2 = "tfrt.print.i32"(%delayed, %all) : (i32, !tfrt.chain) -> !tfrt.chain
  tfrt.return %ch2 : !tfrt.chain
}

// CHECK-LABEL: --- Running 'generic_merge':
// CHECK-NEXT: 'generic_merge' returned !tfrt.chain value,!tfrt.chain value
func.func @generic_merge() -> (!tfrt.chain, !tfrt.chain) {
  %ch0 = "tfrt.new.chain"() : () -> !tfrt.chain
  %f = tfrt.constant.f64 1.0
  %m = "tfrt.merge.chains"(%ch0, %f) : (!tfrt.chain, f64) -> !tfrt.chain
  %single = tfrt.merge.chains %ch0 : !tfrt.chain
  tfrt.return %m, %single : !tfrt.chain, !tfrt.chain
}

// CHECK-LABEL: --- Running 'merge_error':
// CHECK-NEXT: 'merge_error' returned <<error: something bad happened>>
func.func @merge_error() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  // DIAG: chains.mlir:[[# @LINE + 1]]:10: error: runtime error: something bad happened
  %bad = "tfrt_test.fail"() : () -> i32
  %m = tfrt.merge.chains %ch0, %bad : !tfrt.chain, i32
  %ch1 = "tfrt_test.print_hello"(%m) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch1 : !tfrt.chain
}

// The trailing chain orders a kernel that otherwise takes none: the
// subtraction runs after the print. (Ops with a fixed ODS signature, like
// tfrt.add.i32, are still verified: the extra operand is for the others.)
// CHECK-LABEL: --- Running 'trailing_chain':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: int32 = 1
// CHECK-NEXT: 'trailing_chain' returned 1,1,!tfrt.chain value
func.func @trailing_chain() -> (i32, i1, !tfrt.chain) {
  %ch0 = tfrt.new.chain
  %ch1 = "tfrt_test.print_hello"(%ch0) : (!tfrt.chain) -> !tfrt.chain
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %diff = "tfrt.minus.i32"(%two, %one, %ch1) : (i32, i32, !tfrt.chain) -> i32
  %ch2 = tfrt.print.i32 %diff, %ch0
  %le = "tfrt.lessequal.i32"(%one, %two, %ch2) : (i32, i32, !tfrt.chain) -> i1
  tfrt.return %diff, %le, %ch2 : i32, i1, !tfrt.chain
}

// An error on the trailing chain skips the kernel like any other operand.
// CHECK-LABEL: --- Running 'trailing_error_chain':
// CHECK-NEXT: 'trailing_error_chain' returned <<error: something bad happened>>
func.func @trailing_error_chain() -> i32 {
  // DIAG: chains.mlir:[[# @LINE + 1]]:10: error: runtime error: something bad happened
  %bad = "tfrt_test.fail"() : () -> !tfrt.chain
  %one = tfrt.constant.i32 1
  %diff = "tfrt.minus.i32"(%one, %one, %bad) : (i32, i32, !tfrt.chain) -> i32
  tfrt.return %diff : i32
}
// DIAG-NOT: error
