// -timeout=SECONDS cancels each function still running after that long:
// its request's deadline passes, kernels not started yet see the error
// `deadline exceeded` (DEADLINE_EXCEEDED), and loops stop at their next
// iteration. Every function gets its own deadline.
// What each function still waited for goes to stderr (docs/tracing.md).
// RUN: not %sluice_run %s -timeout=0.1 -print_error_code 2> %t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// ERR: sluice_run: 'long_loop' passed its --timeout of 0.1 s; what is still unresolved:
// ERR-NEXT: hang explanation:
// ERR: sluice_run: 'wait_past_deadline' passed its --timeout of 0.1 s; what is still unresolved:
// ERR: 1. async kernel 'tfrt_test.blocking.usleep' at {{.*}}timeout.mlir:[[# @LINE + 34]]:12 in 'wait_past_deadline', started {{[0-9.]+}} s ago, has not resolved its results
// ERR-NOT: error:
// RUN: %sluice_run %s -timeout=30 -functions=quick | FileCheck %s --check-prefix=QUICK

// An endless loop (two billion iterations) stops at the deadline.
// CHECK-LABEL: --- Running 'long_loop':
// CHECK-NEXT: 'long_loop' returned <<error: deadline exceeded, code: DEADLINE_EXCEEDED>>
func.func @long_loop() -> i32 {
  %n = tfrt.constant.i32 2000000000
  %zero = tfrt.constant.i32 0
  %r = tfrt.repeat.i32 %n, %zero : i32 {
    %one = tfrt.constant.i32 1
    %next = tfrt.add.i32 %zero, %one
    tfrt.return %next : i32
  }
  tfrt.return %r : i32
}

// The next function has a fresh deadline and is not cancelled.
// CHECK-LABEL: --- Running 'quick':
// CHECK-NEXT: 'quick' returned 1
// QUICK: 'quick' returned 1
func.func @quick() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

// A sleep already running finishes; what waits for it is cancelled.
// CHECK-LABEL: --- Running 'wait_past_deadline':
// CHECK-NEXT: Slept for 500000 microseconds
// CHECK-NEXT: 'wait_past_deadline' returned <<error: deadline exceeded, code: DEADLINE_EXCEEDED>>
// CHECK-NOT: hello host executor!
func.func @wait_past_deadline() -> !tfrt.chain {
  %n = tfrt.constant.i32 500000
  %slept = "tfrt_test.blocking.usleep"(%n) : (i32) -> !tfrt.chain
  %ch = "tfrt_test.print_hello"(%slept) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch : !tfrt.chain
}

// A while loop whose body waits on asynchronous work each iteration.
// CHECK-LABEL: --- Running 'long_async_while':
// CHECK-NEXT: 'long_async_while' returned <<error: deadline exceeded, code: DEADLINE_EXCEEDED>>
func.func @count_forever(%i: i32) -> (i32, i1) {
  %one = tfrt.constant.i32 1
  %next = "tfrt_test.async_add.i32"(%i, %one) : (i32, i32) -> i32
  %true = tfrt.constant.i1 1
  tfrt.return %next, %true : i32, i1
}

func.func @long_async_while() -> i32 {
  %true = tfrt.constant.i1 1
  %zero = tfrt.constant.i32 0
  %r = tfrt.while %true @count_forever(%zero) parallel_iterations(1) : (i32) -> (i32)
  tfrt.return %r : i32
}
// CHECK-NOT: error:
