// Kernels that pass values through without looking at them:
// tfrt_test.identity, multi_arg_result, share_to_two, make_indirect and
// get_uniqueness. They work on any payload type, errors and pending values
// included.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK-LABEL: --- Running 'identity':
// CHECK-NEXT: 'identity' returned 1,2,2.500000e+00
func.func @identity() -> (i32, i64, f32) {
  %ch = tfrt.new.chain
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i64 2
  %f = tfrt.constant.f32 2.5
  %x, %y, %z = "tfrt_test.identity"(%ch, %a, %b, %f) : (!tfrt.chain, i32, i64, f32) -> (i32, i64, f32)
  tfrt.return %x, %y, %z : i32, i64, f32
}

// The chain orders the identity after the print.
// CHECK-LABEL: --- Running 'identity_orders':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: int32 = 5
func.func @identity_orders() {
  %ch0 = tfrt.new.chain
  %five = tfrt.constant.i32 5
  %ch1 = "tfrt_test.print_hello"(%ch0) : (!tfrt.chain) -> !tfrt.chain
  %x = "tfrt_test.identity"(%ch1, %five) : (!tfrt.chain, i32) -> i32
  %ch2 = tfrt.print.i32 %x, %ch0
  tfrt.return
}

// CHECK-LABEL: --- Running 'multi_arg_result':
// CHECK-NEXT: 'multi_arg_result' returned 3,4,!tfrt.string value
func.func @multi_arg_result() -> (i32, i32, !tfrt.string) {
  %a = tfrt.constant.i32 3
  %b = "tfrt_test.async_constant.i32"() {value = 4 : i32} : () -> i32
  %s = "tfrt_test.get_string"() {value = "s"} : () -> !tfrt.string
  %x, %y, %z = "tfrt_test.multi_arg_result"(%a, %b, %s) : (i32, i32, !tfrt.string) -> (i32, i32, !tfrt.string)
  tfrt.return %x, %y, %z : i32, i32, !tfrt.string
}

// Both results are the operand's own value: it is shared, so not unique.
// A value with one holder is unique.
// CHECK-LABEL: --- Running 'share_to_two':
// CHECK-NEXT: 'share_to_two' returned 8,8,0,1
func.func @share_to_two() -> (i32, i32, i1, i1) {
  %a = tfrt.constant.i32 8
  %b, %c = "tfrt_test.share_to_two"(%a) : (i32) -> (i32, i32)
  %shared = "tfrt_test.get_uniqueness"(%b) : (i32) -> i1
  %d = tfrt.constant.i32 9
  %alone = "tfrt_test.get_uniqueness"(%d) : (i32) -> i1
  tfrt.return %b, %c, %shared, %alone : i32, i32, i1, i1
}

// One result per operand. %a's value is shared with %b and %c, so neither
// %a nor %c is unique; the string has one holder.
// CHECK-LABEL: --- Running 'get_uniqueness':
// CHECK-NEXT: 'get_uniqueness' returned 0,1,0
func.func @get_uniqueness() -> (i1, i1, i1) {
  %a = tfrt.constant.i32 1
  %s = "tfrt_test.get_string"() {value = "x"} : () -> !tfrt.string
  %b, %c = "tfrt_test.share_to_two"(%a) : (i32) -> (i32, i32)
  %u:3 = "tfrt_test.get_uniqueness"(%a, %s, %c) : (i32, !tfrt.string, i32) -> (i1, i1, i1)
  tfrt.return %u#0, %u#1, %u#2 : i1, i1, i1
}

// Later kernels read through the indirection.
// CHECK-LABEL: --- Running 'make_indirect':
// CHECK-NEXT: int32 = 2
// CHECK-NEXT: 'make_indirect' returned 2,8,4
func.func @make_indirect() -> (i32, i64, i32) {
  %ch0 = tfrt.new.chain
  %a = tfrt.constant.i32 2
  %b = tfrt.constant.i64 8
  %x, %y = "tfrt_test.make_indirect"(%a, %b) : (i32, i64) -> (i32, i64)
  %ch1 = tfrt.print.i32 %x, %ch0
  %sum = tfrt.add.i32 %x, %x
  tfrt.return %x, %y, %sum : i32, i64, i32
}

// Pending operands: the forwarding kernels are strict, so they run once the
// operands are available.
// CHECK-LABEL: --- Running 'pending_operands':
// CHECK-NEXT: 'pending_operands' returned 10,10,10
func.func @pending_operands() -> (i32, i32, i32) {
  %ch = tfrt.new.chain
  %a = "tfrt_test.async_constant.i32"() {value = 10 : i32} : () -> i32
  %b = "tfrt_test.make_indirect"(%a) : (i32) -> i32
  %c, %d = "tfrt_test.share_to_two"(%b) : (i32) -> (i32, i32)
  %e = "tfrt_test.identity"(%ch, %d) : (!tfrt.chain, i32) -> i32
  tfrt.return %b, %c, %e : i32, i32, i32
}

// An error operand skips the kernel: every result is that error.
// CHECK-LABEL: --- Running 'error_operands':
// CHECK-NEXT: 'error_operands' returned <<error: something bad happened>>,<<error: something bad happened>>,<<error: something bad happened>>
func.func @error_operands() -> (i32, i32, i32) {
  %ch = tfrt.new.chain
  // DIAG: forwarding.mlir:[[# @LINE + 1]]:10: error: runtime error: something bad happened
  %bad = "tfrt_test.fail"() : () -> i32
  %one = tfrt.constant.i32 1
  %x, %y = "tfrt_test.identity"(%ch, %one, %bad) : (!tfrt.chain, i32, i32) -> (i32, i32)
  %z = "tfrt_test.make_indirect"(%bad) : (i32) -> i32
  tfrt.return %x, %y, %z : i32, i32, i32
}
// DIAG-NOT: error
