// Every remote call has a deadline: the runner's --rpc_deadline_ms, or the
// call's own deadline_ms. A task that does not answer in time makes the
// call's results errors naming the task and the function; the worker
// cancels the execution.
// RUN: %with_workers 1 --expect-exit=1 -- %sluice_run -print_error_code -rpc_deadline_ms=2000 -functions=runner_deadline,own_deadline,longer_own_deadline %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr
//
// Cancelling the request (here by sluice_run -timeout) cancels the call.
// RUN: %with_workers 1 --expect-exit=1 -- %sluice_run -print_error_code -timeout=0.5 -functions=cancelled %s 2>&1 | FileCheck %s --check-prefix=CANCEL

// Returns once it has slept `us` microseconds.
func.func @sleep(%us: i32) -> !tfrt.chain {
  %done = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  tfrt.return %done : !tfrt.chain
}

// CHECK-LABEL: --- Running 'runner_deadline':
// CHECK-NEXT: 'runner_deadline' returned <<error: remote call of 'sleep' on task /job:worker/task:0 failed: no answer within 2s (deadline exceeded), code: DEADLINE_EXCEEDED>>
func.func @runner_deadline() -> !tfrt.chain {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %sleep = tfrt_dist.register_function %t0 @sleep
  %four_seconds = tfrt.constant.i32 4000000
  // DIAG: deadlines.mlir:[[# @LINE + 1]]:8: error: runtime error: remote call of 'sleep' on task /job:worker/task:0 failed: no answer within 2s (deadline exceeded)
  %r = tfrt_dist.call %sleep(%four_seconds) : (i32) -> !tfrt.chain
  tfrt.return %r : !tfrt.chain
}

// CHECK-LABEL: --- Running 'own_deadline':
// CHECK-NEXT: 'own_deadline' returned <<error: remote call of 'sleep' on task /job:worker/task:0 failed: no answer within 200ms (deadline exceeded), code: DEADLINE_EXCEEDED>>
func.func @own_deadline() -> !tfrt.chain {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %sleep = tfrt_dist.register_function %t0 @sleep
  %two_seconds = tfrt.constant.i32 2000000
  // DIAG: deadlines.mlir:[[# @LINE + 1]]:8: error: runtime error: remote call of 'sleep' on task /job:worker/task:0 failed: no answer within 200ms (deadline exceeded)
  %r = tfrt_dist.call %sleep(%two_seconds) {deadline_ms = 200 : i64}
      : (i32) -> !tfrt.chain
  tfrt.return %r : !tfrt.chain
}

// A call's own deadline may also be longer than the runner's.
// CHECK-LABEL: --- Running 'longer_own_deadline':
// CHECK-NEXT: 'longer_own_deadline' returned !tfrt.chain value
func.func @longer_own_deadline() -> !tfrt.chain {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %sleep = tfrt_dist.register_function %t0 @sleep
  %three_seconds = tfrt.constant.i32 3000000
  %r = tfrt_dist.call %sleep(%three_seconds) {deadline_ms = 20000 : i64}
      : (i32) -> !tfrt.chain
  tfrt.return %r : !tfrt.chain
}
// DIAG-NOT: runtime error

// CANCEL-LABEL: --- Running 'cancelled':
// CANCEL: 'cancelled' returned <<error: {{.*}}, code: DEADLINE_EXCEEDED>>
func.func @cancelled() -> !tfrt.chain {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %sleep = tfrt_dist.register_function %t0 @sleep
  %two_seconds = tfrt.constant.i32 2000000
  %r = tfrt_dist.call %sleep(%two_seconds) : (i32) -> !tfrt.chain
  tfrt.return %r : !tfrt.chain
}
