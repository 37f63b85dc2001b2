// When -timeout expires, sluice_run prints what the function still waits
// for (docs/tracing.md): the root cause first (here an asynchronous kernel
// that has not finished), then each waiting kernel with its location and
// what produces the inputs it waits for.
// RUN: not %sluice_run %s -timeout=0.3 -functions=stuck 2>&1 >/dev/null | FileCheck %s
// A function that finishes in time prints nothing of the kind.
// RUN: %sluice_run %s -timeout=30 -functions=quick 2>&1 | FileCheck %s --check-prefix=QUICK

// CHECK: sluice_run: 'stuck' passed its --timeout of 0.3 s; what is still unresolved:
// CHECK-NEXT: hang explanation: 2 live call(s) in 1 request(s), 0 remote call(s) not answered
// CHECK-NEXT: root causes (what nothing else explains):
// CHECK-NEXT:   1. async kernel 'tfrt_test.blocking.usleep' at {{.*}}timeout_explain.mlir:[[# @LINE + 19]]:12 in 'stuck', started {{[0-9.]+}} s ago, has not resolved its results; 2 waiting kernel(s) wait on it
// CHECK-NEXT: waiting kernels:
// CHECK-NEXT:   in 'stuck' (called {{[0-9.]+}} s ago):
// CHECK-NEXT:     'tfrt.print.i32' at {{.*}}timeout_explain.mlir:[[# @LINE + 17]]:9 waits for:
// CHECK-NEXT:       operand 1: from async kernel 'tfrt_test.blocking.usleep' at {{.*}}timeout_explain.mlir:[[# @LINE + 15]]:12, still running (started {{[0-9.]+}} s ago)
// CHECK-NEXT:     and 1 kernel(s) that wait only for kernels not run yet
// CHECK-NEXT:   in 'print_after' (called {{[0-9.]+}} s ago):
// CHECK-NEXT:     'tfrt.print.i32' at {{.*}}timeout_explain.mlir:[[# @LINE + 6]]:11 waits for:
// CHECK-NEXT:       operand 1: from argument 0 of 'print_after', not available yet
// CHECK-NEXT: remote calls in flight:
// CHECK-NEXT:   none
func.func @print_after(%ch: !tfrt.chain) -> !tfrt.chain {
  %n = tfrt.constant.i32 2
  %done = tfrt.print.i32 %n, %ch
  tfrt.return %done : !tfrt.chain
}

func.func @stuck() -> (!tfrt.chain, !tfrt.chain) {
  %n = tfrt.constant.i32 1500000
  %slept = "tfrt_test.blocking.usleep"(%n) : (i32) -> !tfrt.chain
  %ch = tfrt.print.i32 %n, %slept
  %ch2 = tfrt.print.i32 %n, %ch
  %r = tfrt.call @print_after(%slept) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch2, %r : !tfrt.chain, !tfrt.chain
}

// QUICK-NOT: unresolved
// QUICK: 'quick' returned 1
// QUICK-NOT: unresolved
func.func @quick() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}
