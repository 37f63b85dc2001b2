// The hang explanation groups the unanswered calls to one task into one
// root cause, the task, with the kernels that wait on it: here three calls
// to a worker that sleeps 7 s, cut by sluice_run -timeout after 5 s (time
// enough for the calls to be sent, even under a sanitizer). The sleeps do
// not stop when cancelled; they end within the worker's 5 s grace after
// the harness stops it.
// RUN: %with_workers 1 --expect-exit=1 -- %sluice_run -timeout=5 %s 2>&1 >/dev/null | FileCheck %s

func.func @sleep(%us: i32) -> !tfrt.chain {
  %done = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  tfrt.return %done : !tfrt.chain
}

// CHECK: sluice_run: 'three_calls' passed its --timeout of 5 s; what is still unresolved:
// CHECK-NEXT: hang explanation: 1 live call(s) in 1 request(s), 3 remote call(s) not answered
// CHECK-NEXT: root causes (what nothing else explains):
// CHECK-NEXT:   1. 3 remote calls on task /job:worker/task:0, sent {{[0-9.]+}} s to {{[0-9.]+}} s ago, no answer yet: 'sleep' (3); 2 waiting kernel(s) wait on it
// CHECK-NEXT: waiting kernels:
// CHECK: remote calls in flight:
// CHECK-NEXT:   3 remote calls on task /job:worker/task:0, sent {{[0-9.]+}} s to {{[0-9.]+}} s ago, no answer yet: 'sleep' (3)
// CHECK-NOT: remote call of
func.func @three_calls() -> !tfrt.chain {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %sleep = tfrt_dist.register_function %t0 @sleep
  %us = tfrt.constant.i32 7000000
  %a = tfrt_dist.call %sleep(%us) : (i32) -> !tfrt.chain
  %b = tfrt_dist.call %sleep(%us) : (i32) -> !tfrt.chain
  %c = tfrt_dist.call %sleep(%us) : (i32) -> !tfrt.chain
  %ab = tfrt.merge.chains %a, %b : !tfrt.chain, !tfrt.chain
  %abc = tfrt.merge.chains %ab, %c : !tfrt.chain, !tfrt.chain
  tfrt.return %abc : !tfrt.chain
}
