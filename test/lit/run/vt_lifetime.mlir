// Value lifetimes, watched through the `vt` kernels whose payload prints
// every construction, copy, move and destruction. Values are built in place
// and shared, never copied or moved; each is destroyed exactly once, when
// its last reference goes. The exact interleaving is checked on the
// single-threaded queue; on any queue, the same events happen.
// RUN: not sluice_run -work_queue_type=s %s 2> %t.stderr | FileCheck %s --implicit-check-not=copy --implicit-check-not=move
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr
// RUN: not %sluice_run %s 2> /dev/null | FileCheck %s --check-prefix=ANY --implicit-check-not=copy --implicit-check-not=move

// CHECK-LABEL: --- Running 'add_and_print':
// CHECK-NEXT: constructed vt.value(2)
// CHECK-NEXT: constructed vt.value(3)
// CHECK-NEXT: constructed vt.value(5)
// The operands may go before or after the print (vt_early_release.mlir).
// CHECK-DAG: print vt_value(5)
// CHECK-DAG: destroyed vt.value(2)
// CHECK-DAG: destroyed vt.value(3)
// CHECK-NEXT: destroyed vt.value(5)
// ANY-LABEL: --- Running 'add_and_print':
// ANY-DAG: constructed vt.value(2)
// ANY-DAG: constructed vt.value(3)
// ANY-DAG: print vt_value(5)
// ANY-DAG: destroyed vt.value(2)
// ANY-DAG: destroyed vt.value(3)
// ANY-DAG: destroyed vt.value(5)
func.func @add_and_print() {
  %ch0 = tfrt.new.chain
  %a = "vt.constant"() {value = 2 : i32} : () -> !vt.value
  %b = "vt.constant"() {value = 3 : i32} : () -> !vt.value
  %c = "vt.add"(%a, %b) : (!vt.value, !vt.value) -> !vt.value
  %ch1 = "vt.print"(%c, %ch0) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// An unused value is still destroyed.
// CHECK-LABEL: --- Running 'unused':
// CHECK-NEXT: constructed vt.value(9)
// CHECK-NEXT: destroyed vt.value(9)
// ANY-LABEL: --- Running 'unused':
// ANY-NEXT: constructed vt.value(9)
// ANY-NEXT: destroyed vt.value(9)
func.func @unused() {
  %a = "vt.constant"() {value = 9 : i32} : () -> !vt.value
  tfrt.return
}

// A returned value outlives the function: it goes after the runner has
// printed it.
// CHECK-LABEL: --- Running 'returned':
// CHECK-NEXT: constructed vt.value(7)
// CHECK-NEXT: 'returned' returned !vt.value value,!vt.value value
// CHECK-NEXT: destroyed vt.value(7)
// ANY-LABEL: --- Running 'returned':
// ANY-NEXT: constructed vt.value(7)
// ANY-NEXT: 'returned' returned !vt.value value,!vt.value value
// ANY-NEXT: destroyed vt.value(7)
func.func @returned() -> (!vt.value, !vt.value) {
  %a = "vt.constant"() {value = 7 : i32} : () -> !vt.value
  %b, %c = "tfrt_test.share_to_two"(%a) : (!vt.value) -> (!vt.value, !vt.value)
  tfrt.return %b, %c : !vt.value, !vt.value
}

// CHECK: --- Not running 'pass_through' because it has arguments.
func.func @pass_through(%v: !vt.value) -> !vt.value {
  tfrt.return %v : !vt.value
}

// Calls, indirection and forwarding kernels share the one value.
// CHECK-LABEL: --- Running 'shared_through_calls':
// CHECK-NEXT: constructed vt.value(1)
// CHECK-NEXT: print vt_value(1)
// CHECK-NEXT: print vt_value(1)
// CHECK-NEXT: destroyed vt.value(1)
// ANY-LABEL: --- Running 'shared_through_calls':
// ANY-NEXT: constructed vt.value(1)
// ANY-NEXT: print vt_value(1)
// ANY-NEXT: print vt_value(1)
// ANY-NEXT: destroyed vt.value(1)
func.func @shared_through_calls() {
  %ch0 = tfrt.new.chain
  %a = "vt.constant"() {value = 1 : i32} : () -> !vt.value
  %b = tfrt.call @pass_through(%a) : (!vt.value) -> !vt.value
  %c = "tfrt_test.make_indirect"(%b) : (!vt.value) -> !vt.value
  %d = "tfrt_test.identity"(%ch0, %c) : (!tfrt.chain, !vt.value) -> !vt.value
  %ch1 = "vt.print"(%d, %ch0) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  %e = "tfrt_test.multi_arg_result"(%a) : (!vt.value) -> !vt.value
  %ch2 = "vt.print"(%e, %ch1) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// A loop releases each iteration's value once the next one exists, not at
// the end of the loop.
// CHECK-LABEL: --- Running 'loop':
// CHECK-NEXT: constructed vt.value(1)
// CHECK-NEXT: constructed vt.value(2)
// CHECK-NEXT: constructed vt.value(4)
// CHECK-NEXT: destroyed vt.value(2)
// CHECK-NEXT: constructed vt.value(8)
// CHECK-NEXT: destroyed vt.value(4)
// CHECK-DAG: destroyed vt.value(1)
// CHECK-DAG: print vt_value(8)
// CHECK: destroyed vt.value(8)
// ANY-LABEL: --- Running 'loop':
// ANY-DAG: constructed vt.value(1)
// ANY-DAG: constructed vt.value(2)
// ANY-DAG: constructed vt.value(4)
// ANY-DAG: constructed vt.value(8)
// ANY-DAG: print vt_value(8)
// ANY-DAG: destroyed vt.value(1)
// ANY-DAG: destroyed vt.value(2)
// ANY-DAG: destroyed vt.value(4)
// ANY-DAG: destroyed vt.value(8)
func.func @loop() {
  %ch0 = tfrt.new.chain
  %one = "vt.constant"() {value = 1 : i32} : () -> !vt.value
  %n = tfrt.constant.i32 3
  %r = tfrt.repeat.i32 %n, %one : !vt.value {
    %twice = "vt.add"(%one, %one) : (!vt.value, !vt.value) -> !vt.value
    tfrt.return %twice : !vt.value
  }
  %ch1 = "vt.print"(%r, %ch0) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// The region of do.async keeps its operand alive until it ran.
// CHECK-LABEL: --- Running 'async_region':
// CHECK-NEXT: constructed vt.value(4)
// CHECK-NEXT: constructed vt.value(8)
// CHECK-DAG: print vt_value(8)
// CHECK-DAG: destroyed vt.value(8)
// CHECK-DAG: destroyed vt.value(4)
// CHECK: 'async_region' returned !tfrt.chain value
// ANY-LABEL: --- Running 'async_region':
// ANY-NEXT: constructed vt.value(4)
// ANY-NEXT: constructed vt.value(8)
// ANY-DAG: print vt_value(8)
// ANY-DAG: destroyed vt.value(8)
// ANY-DAG: destroyed vt.value(4)
// ANY: 'async_region' returned !tfrt.chain value
func.func @async_region() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %four = "vt.constant"() {value = 4 : i32} : () -> !vt.value
  %eight = tfrt_test.do.async %four : (!vt.value) -> (!vt.value) {
    %sum = "vt.add"(%four, %four) : (!vt.value, !vt.value) -> !vt.value
    tfrt.return %sum : !vt.value
  }
  %ch1 = "vt.print"(%eight, %ch0) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  tfrt.return %ch1 : !tfrt.chain
}

// A kernel skipped for an error operand constructs nothing; the values it
// would have used are still destroyed.
// CHECK-LABEL: --- Running 'error_operand':
// CHECK-NEXT: constructed vt.value(6)
// CHECK-NEXT: destroyed vt.value(6)
// CHECK-NEXT: 'error_operand' returned <<error: something bad happened>>
// ANY-LABEL: --- Running 'error_operand':
// ANY-NEXT: constructed vt.value(6)
// ANY-NEXT: destroyed vt.value(6)
// ANY-NEXT: 'error_operand' returned <<error: something bad happened>>
func.func @error_operand() -> !vt.value {
  // DIAG: vt_lifetime.mlir:[[# @LINE + 1]]:10: error: runtime error: something bad happened
  %bad = "tfrt_test.fail"() : () -> !vt.value
  %six = "vt.constant"() {value = 6 : i32} : () -> !vt.value
  %sum = "vt.add"(%six, %bad) : (!vt.value, !vt.value) -> !vt.value
  tfrt.return %sum : !vt.value
}
// DIAG-NOT: error
