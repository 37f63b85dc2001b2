// Errors made by kernels on a worker come back as error values with their
// message and code, and are not reported again here (the worker reported
// them); values that do not depend on them are still returned.
// RUN: %with_workers 1 --expect-exit=1 -- %sluice_run -print_error_code %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=LOCAL --allow-empty < %t.stderr
// LOCAL-NOT: error

// The worker reported each error once, at its own op.
// RUN: %with_workers 1 --worker-logs --expect-exit=1 -- %sluice_run %s 2>/dev/null | FileCheck %s --check-prefix=WORKER
// WORKER-LABEL: --- task 0 stderr:

func.func @divide(%x: i32, %y: i32) -> (i32, i32) {
  // WORKER-DAG: /job:worker/task:0: {{.*}}remote_errors.mlir:[[# @LINE + 1]]:12: error: runtime error: Divide by zero
  %q, %r = tfrt.div.i32 %x, %y
  tfrt.return %q, %r : i32, i32
}

func.func @fail_after(%x: i32) -> i32 {
  // WORKER-DAG: /job:worker/task:0: {{.*}}remote_errors.mlir:[[# @LINE + 1]]:10: error: runtime error: something bad happened
  %bad = "tfrt_test.fail"() : () -> i32
  %sum = tfrt.add.i32 %bad, %x
  tfrt.return %sum : i32
}

func.func @partial(%x: i32) -> (i32, i32, i32) {
  %a, %b = "tfrt_test.partial_fail"() : () -> (i32, i32)
  tfrt.return %a, %b, %x : i32, i32, i32
}

// CHECK-LABEL: --- Running 'divide_by_zero':
// CHECK-NEXT: 'divide_by_zero' returned <<error: Divide by zero, code: INTERNAL>>,<<error: Divide by zero, code: INTERNAL>>
func.func @divide_by_zero() -> (i32, i32) {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %divide = tfrt_dist.register_function %t0 @divide
  %x = tfrt.constant.i32 7
  %zero = tfrt.constant.i32 0
  %r:2 = tfrt_dist.call %divide(%x, %zero) : (i32, i32) -> (i32, i32)
  tfrt.return %r#0, %r#1 : i32, i32
}

// The remote error flows on through local kernels, which skip it silently;
// the call next to it is unaffected.
// CHECK-LABEL: --- Running 'error_flows_on':
// CHECK-NEXT: 'error_flows_on' returned <<error: something bad happened, code: INTERNAL>>,3,1
func.func @error_flows_on() -> (i32, i32, i32) {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %fail = tfrt_dist.register_function %t0 @fail_after
  %divide = tfrt_dist.register_function %t0 @divide
  %one = tfrt.constant.i32 1
  %seven = tfrt.constant.i32 7
  %two = tfrt.constant.i32 2
  %bad = tfrt_dist.call %fail(%one) : (i32) -> i32
  %worse = tfrt.add.i32 %bad, %one
  %q, %r = tfrt_dist.call %divide(%seven, %two) : (i32, i32) -> (i32, i32)
  tfrt.return %worse, %q, %r : i32, i32, i32
}

// A remote error given to another remote call is not sent: the call's
// results are that error, and the task never sees it.
// CHECK-LABEL: --- Running 'error_not_sent':
// CHECK-NEXT: 'error_not_sent' returned <<error: something bad happened, code: INTERNAL>>,<<error: something bad happened, code: INTERNAL>>
func.func @error_not_sent() -> (i32, i32) {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %fail = tfrt_dist.register_function %t0 @fail_after
  %divide = tfrt_dist.register_function %t0 @divide
  %one = tfrt.constant.i32 1
  %bad = tfrt_dist.call %fail(%one) : (i32) -> i32
  %r:2 = tfrt_dist.call %divide(%bad, %one) : (i32, i32) -> (i32, i32)
  tfrt.return %r#0, %r#1 : i32, i32
}

// Some results of a remote function fail, the others arrive.
// CHECK-LABEL: --- Running 'partial_failure':
// CHECK-NEXT: 'partial_failure' returned 1,<<error: something bad happened, code: INTERNAL>>,7
func.func @partial_failure() -> (i32, i32, i32) {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %partial = tfrt_dist.register_function %t0 @partial
  %seven = tfrt.constant.i32 7
  %r:3 = tfrt_dist.call %partial(%seven) : (i32) -> (i32, i32, i32)
  tfrt.return %r#0, %r#1, %r#2 : i32, i32, i32
}
