// Clients may start before the tasks they use: under the default fail-fast
// policy (use_caller), tfrt_dist.get_task_handle waits for the task to come
// up, within its deadline. Here task 0 starts a second after the runner.
// RUN: %with_workers 1 --start-late=0:1 -- %sluice_run %s | FileCheck %s
//
// With SLUICE_RPC_FAIL_FAST=true nothing waits: the task is not up yet.
// RUN: env SLUICE_RPC_FAIL_FAST=true %with_workers 1 --start-late=0:5 --expect-exit=1 -- %sluice_run -print_error_code %s 2>/dev/null | FileCheck %s --check-prefix=FAST
//
// Waiting for a task stops when the request is cancelled (here by
// sluice_run -timeout), half a second in rather than at the deadline.
// RUN: %with_workers 1 --start-late=0:20 --expect-exit=1 -- %sluice_run -print_error_code -timeout=0.5 %s 2>&1 | FileCheck %s --check-prefix=CANCEL

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

// CHECK-LABEL: --- Running 'waits_for_task':
// CHECK-NEXT: 'waits_for_task' returned 42
// FAST-LABEL: --- Running 'waits_for_task':
// FAST-NEXT: 'waits_for_task' returned <<error: status request on task /job:worker/task:0 failed: {{.*}}, code: UNAVAILABLE>>
// CANCEL-NOT: exiting without it
// CANCEL: 'waits_for_task' returned <<error: {{.*}}, code: DEADLINE_EXCEEDED>>
func.func @waits_for_task() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %forty = tfrt.constant.i32 40
  %two = tfrt.constant.i32 2
  %r = tfrt_dist.call %add(%forty, %two) : (i32, i32) -> i32
  tfrt.return %r : i32
}
