// A task that is down turns the values that depend on it into errors naming
// the task (and, for a call, the function), within the deadline; everything
// else still runs and is printed.
//
// Task 1 was never started. Under SLUICE_RPC_FAIL_FAST=true even the status
// RPC fails at once, well before the 20 s deadline and the harness's 15 s.
// RUN: env SLUICE_RPC_FAIL_FAST=true %with_workers 2 --dead=1 --timeout=15 --expect-exit=1 -- %sluice_run -print_error_code -rpc_deadline_ms=20000 -functions=never_started %s 2> %t.fast | FileCheck %s --check-prefix=FAST
// RUN: FileCheck %s --check-prefix=FAST-DIAG < %t.fast
//
// Under the default policy (use_caller) the status RPC waits for the task
// to come up, until the deadline.
// RUN: %with_workers 2 --dead=1 --expect-exit=1 -- %sluice_run -print_error_code -rpc_deadline_ms=1000 -functions=never_started %s 2> %t.wait | FileCheck %s --check-prefix=WAIT
// RUN: FileCheck %s --check-prefix=WAIT-DIAG < %t.wait
//
// Task 1 dies after the program registered its functions there: the
// harness kills it when the program prints 4242, half a second before the
// next call to it goes out. Execution RPCs fail fast under use_caller.
// RUN: %with_workers 2 --kill-on-output=1:4242 --expect-exit=1 -- %sluice_run -print_error_code -functions=killed_between_calls %s 2> %t.killed | FileCheck %s --check-prefix=KILLED
// RUN: FileCheck %s --check-prefix=KILLED-DIAG < %t.killed

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @add_after(%ch: !tfrt.chain, %a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

// FAST-LABEL: --- Running 'never_started':
// FAST-NEXT: 'never_started' returned 5,<<error: status request on task /job:worker/task:1 failed: {{.*}}127.0.0.1:{{[0-9]+}}{{.*}}, code: UNAVAILABLE>>,-1
// WAIT-LABEL: --- Running 'never_started':
// WAIT-NEXT: 'never_started' returned 5,<<error: status request on task /job:worker/task:1 failed: no answer within 1s (deadline exceeded), code: DEADLINE_EXCEEDED>>,-1
func.func @never_started() -> (i32, i32, i32) {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  // FAST-DIAG: dead_task.mlir:[[# @LINE + 2]]:9: error: runtime error: status request on task /job:worker/task:1 failed:
  // WAIT-DIAG: dead_task.mlir:[[# @LINE + 1]]:9: error: runtime error: status request on task /job:worker/task:1 failed: no answer within 1s (deadline exceeded)
  %t1 = tfrt_dist.get_task_handle "/job:worker/task:1"
  %add0 = tfrt_dist.register_function %t0 @add
  %add1 = tfrt_dist.register_function %t1 @add
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %minus_one = tfrt.constant.i32 -1
  %a = tfrt_dist.call %add0(%two, %three) : (i32, i32) -> i32
  %b = tfrt_dist.call %add1(%two, %three) : (i32, i32) -> i32
  tfrt.return %a, %b, %minus_one : i32, i32, i32
}
// The errors of the ops that depended on the dead task are not reported
// again.
// FAST-DIAG-NOT: runtime error
// WAIT-DIAG-NOT: runtime error

// KILLED-LABEL: --- Running 'killed_between_calls':
// KILLED-NEXT: int32 = 4242
// KILLED-NEXT: Slept for 500000 microseconds
// KILLED-NEXT: 'killed_between_calls' returned 4242,<<error: remote call of 'add_after' on task /job:worker/task:1 failed: {{.*}}, code: UNAVAILABLE>>,8484
func.func @killed_between_calls() -> (i32, i32, i32) {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %t1 = tfrt_dist.get_task_handle "/job:worker/task:1"
  %add0 = tfrt_dist.register_function %t0 @add_after
  %add1 = tfrt_dist.register_function %t1 @add_after
  %ch0 = tfrt.new.chain
  %a = tfrt.constant.i32 4200
  %b = tfrt.constant.i32 42
  %sum = tfrt_dist.call %add1(%ch0, %a, %b) : (!tfrt.chain, i32, i32) -> i32
  %ch1 = tfrt.print.i32 %sum, %ch0
  %half_second = tfrt.constant.i32 500000
  %ch2 = "tfrt_test.blocking.usleep"(%half_second, %ch1)
      : (i32, !tfrt.chain) -> !tfrt.chain
  // KILLED-DIAG: dead_task.mlir:[[# @LINE + 1]]:11: error: runtime error: remote call of 'add_after' on task /job:worker/task:1 failed:
  %dead = tfrt_dist.call %add1(%ch2, %sum, %sum)
      : (!tfrt.chain, i32, i32) -> i32
  %alive = tfrt_dist.call %add0(%ch2, %sum, %sum)
      : (!tfrt.chain, i32, i32) -> i32
  tfrt.return %sum, %dead, %alive : i32, i32, i32
}
// KILLED-DIAG-NOT: runtime error
