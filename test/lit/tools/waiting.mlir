// A dead task is not seconds of silence: while an RPC waits for a task that
// does not answer, sluice_run says which task, at what address, for which
// RPC and why, about once a second after the first, and once more when the
// RPC gets through or gives up.
//
// The status RPC that starts a session waits under the default policy.
// RUN: %with_workers 1 --dead=0 --expect-exit=1 -- %sluice_run -rpc_deadline_ms=2500 -functions=session %s 2> %t.dead | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=DEAD < %t.dead
// OUT: 'session' returned 1
// DEAD: {{^}}sluice_run: waiting for task /job:worker/task:0 at 127.0.0.1:{{[0-9]+}} for status request: connection refused ({{[12]}}s of 2.5s){{$}}
// DEAD-DAG: {{^}}sluice_run: gave up waiting for task /job:worker/task:0 at 127.0.0.1:{{[0-9]+}} for status request after {{[0-9.]+}}s: no answer within 2.5s (deadline exceeded){{$}}
// DEAD-DAG: status request on task /job:worker/task:0 failed: no answer within 2.5s (deadline exceeded)
// DEAD-NOT: sluice_run: waiting for task
//
// Under SLUICE_RPC_FAIL_FAST=false remote calls wait too: the harness kills
// the task once the first call's result is printed, and the second call
// waits for it until its deadline.
// RUN: env SLUICE_RPC_FAIL_FAST=false %with_workers 1 --kill-on-output=0:4242 --expect-exit=1 -- %sluice_run -rpc_deadline_ms=2500 -functions=killed %s 2> %t.killed | FileCheck %s --check-prefix=KILLED-OUT
// RUN: FileCheck %s --check-prefix=KILLED < %t.killed
// KILLED-OUT: 'killed' returned 4242,<<error: remote call of 'add_after' on task /job:worker/task:0 failed: no answer within 2.5s (deadline exceeded)>>
// KILLED: {{^}}sluice_run: waiting for task /job:worker/task:0 at 127.0.0.1:{{[0-9]+}} for remote call of 'add_after': connection refused ({{[12]}}s of 2.5s){{$}}
// KILLED-DAG: {{^}}sluice_run: gave up waiting for task /job:worker/task:0 at 127.0.0.1:{{[0-9]+}} for remote call of 'add_after' after {{[0-9.]+}}s: no answer within 2.5s (deadline exceeded){{$}}
// KILLED-DAG: error: runtime error: remote call of 'add_after' on task /job:worker/task:0 failed: no answer within 2.5s (deadline exceeded)
// KILLED-NOT: sluice_run: waiting for task
//
// (A task that is up but slower than a second to answer is reported as
// "connected, no answer yet", and a call that gets through as "task ...
// answered remote call of 'f' after 3.2s"; wait_reporter_test and
// waiting_report_test cover those, this test no timing.)
func.func @session() -> i32 {
  %task = tfrt_dist.get_task_handle "/job:worker/task:0"
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

func.func @add_after(%ch: !tfrt.chain, %a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @killed() -> (i32, i32) {
  %task = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %task @add_after
  %ch0 = tfrt.new.chain
  %a = tfrt.constant.i32 4200
  %b = tfrt.constant.i32 42
  %sum = tfrt_dist.call %add(%ch0, %a, %b) : (!tfrt.chain, i32, i32) -> i32
  %ch1 = tfrt.print.i32 %sum, %ch0
  // Time for the harness to see 4242 and kill the task.
  %half_second = tfrt.constant.i32 500000
  %ch2 = "tfrt_test.blocking.usleep"(%half_second, %ch1)
      : (i32, !tfrt.chain) -> !tfrt.chain
  %waits = tfrt_dist.call %add(%ch2, %sum, %sum)
      : (!tfrt.chain, i32, i32) -> i32
  tfrt.return %sum, %waits : i32, i32
}
