// A dead task is not seconds of silence: while the status RPC that starts a
// session waits for a task that does not answer, sluice_run says which
// task, at what address and why, about once a second after the first.
// RUN: %with_workers 1 --dead=0 --expect-exit=1 -- %sluice_run -rpc_deadline_ms=2500 %s 2> %t.dead | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=DEAD < %t.dead
// OUT: 'session' returned 1
// DEAD: {{^}}sluice_run: waiting for task /job:worker/task:0 at 127.0.0.1:{{[0-9]+}}: connection refused ({{[12]}}s of 2.5s){{$}}
// DEAD: status request on task /job:worker/task:0 failed: no answer within 2.5s (deadline exceeded)
// DEAD-NOT: waiting for task
// (A task that is up but slower than a second to answer is reported as
// "connected, no answer yet"; wait_reporter_test covers the wording, this
// test no timing.)
func.func @session() -> i32 {
  %task = tfrt_dist.get_task_handle "/job:worker/task:0"
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}
