// on_failure on tfrt_dist.schedule (docs/tfrt_dist.md, "Failure policies"):
// a closure that fails by itself is scheduled again or falls back on a
// local function, and join reports only the failures the policy gave up
// on. Each RUN line has workers of its own, so that a fault's hit count
// starts with its first call.
//
// The worker fails its first call (fatally): the second attempt answers,
// and join has nothing to report.
// RUN: env SLUICE_FAULTS='worker.call.begin=error:INTERNAL@nth=1' %with_workers 1 -- %sluice_run -work_queue_type=mstd -print_error_code -functions=retried %s 2>&1 | FileCheck %s --check-prefix=RETRIED
//
// The worker fails every call: the policy gives up after max attempts and
// join reports that; a fallback gives its value, and join reports
// nothing.
// RUN: env SLUICE_FAULTS='worker.call.begin=error:INTERNAL' %with_workers 1 --expect-exit=1 -- %sluice_run -work_queue_type=mstd -print_error_code -functions=gave_up,falls_back %s 2> %t.stderr | FileCheck %s --check-prefix=REFUSED
// RUN: FileCheck %s --check-prefix=REFUSED-DIAG < %t.stderr

func.func @add(%x: i32, %y: i32) -> i32 {
  %sum = tfrt.add.i32 %x, %y
  tfrt.return %sum : i32
}

// What the fallback returns: not the sum, to tell it from the worker.
func.func @add_locally(%x: i32, %y: i32) -> i32 {
  %sum = tfrt.add.i32 %x, %y
  %hundred = tfrt.constant.i32 100
  %marked = tfrt.add.i32 %sum, %hundred
  tfrt.return %marked : i32
}

// RETRIED-LABEL: --- Running 'retried':
// RETRIED-NEXT: 'retried' returned 3,!tfrt.chain value
func.func @retried() -> (i32, !tfrt.chain) {
  %c0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.schedule @add(%one, %two) {on_failure = #tfrt_dist.retry<max = 3, classes = [fatal], backoff_ms = 20>} : (i32, i32) -> i32
  %joined = tfrt_dist.join %c0 after(%sum : i32)
  tfrt.return %sum, %joined : i32, !tfrt.chain
}

// REFUSED-LABEL: --- Running 'gave_up':
// REFUSED-NEXT: 'gave_up' returned <<error: gave up after 3 attempts: {{.*}}fault injected at worker.call.begin, code: INTERNAL>>,<<error: {{.*}}fault injected at worker.call.begin (root cause: {{.*}}it explains 1 closure failure{{.*}}), code: INTERNAL>>
func.func @gave_up() -> (i32, !tfrt.chain) {
  %c0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.schedule @add(%one, %two) {on_failure = #tfrt_dist.retry<max = 3, classes = [fatal], backoff_ms = 10>} : (i32, i32) -> i32
  // REFUSED-DIAG: schedule_failure_policy.mlir:[[# @LINE + 1]]:13: error: runtime error: {{.*}}fault injected at worker.call.begin
  %joined = tfrt_dist.join %c0 after(%sum : i32)
  tfrt.return %sum, %joined : i32, !tfrt.chain
}

// REFUSED-LABEL: --- Running 'falls_back':
// REFUSED-NEXT: 'falls_back' returned 103,!tfrt.chain value
func.func @falls_back() -> (i32, !tfrt.chain) {
  %c0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.schedule @add(%one, %two) {on_failure = #tfrt_dist.fallback<@add_locally>} : (i32, i32) -> i32
  %joined = tfrt_dist.join %c0 after(%sum : i32)
  tfrt.return %sum, %joined : i32, !tfrt.chain
}
