// With -explain_hangs, SIGUSR1 prints what the running function still
// waits for, and the run goes on (docs/tracing.md).
// RUN: sh %S/Inputs/signal_while_running.sh USR1 "Running 'stuck'" %sluice_run %s -explain_hangs | FileCheck %s

// CHECK: sluice_run: SIGUSR1: what is still unresolved:
// CHECK-NEXT: hang explanation: 1 live call(s) in 1 request(s), 0 remote call(s) not answered
// CHECK-NEXT: root causes (what nothing else explains):
// CHECK-NEXT:   1. async kernel 'tfrt_test.blocking.usleep' at {{.*}}explain_on_signal.mlir:[[# @LINE + 10]]:12 in 'stuck', started {{[0-9.]+}} s ago, has not resolved its results
// CHECK-NEXT: waiting kernels:
// CHECK-NEXT:   in 'stuck' (called {{[0-9.]+}} s ago):
// CHECK-NEXT:     'tfrt_test.print_hello' at {{.*}}explain_on_signal.mlir:[[# @LINE + 8]]:9 waits for:
// CHECK-NEXT:       operand 0: from async kernel 'tfrt_test.blocking.usleep' at {{.*}}explain_on_signal.mlir:[[# @LINE + 6]]:12, still running (started {{[0-9.]+}} s ago)
// CHECK-NEXT: remote calls in flight:
// CHECK-NEXT:   none
// CHECK-NOT: unresolved
func.func @stuck() -> !tfrt.chain {
  %n = tfrt.constant.i32 1000000
  %slept = "tfrt_test.blocking.usleep"(%n) : (i32) -> !tfrt.chain
  %ch = "tfrt_test.print_hello"(%slept) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch : !tfrt.chain
}
