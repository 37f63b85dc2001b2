// on_failure on tfrt_dist.call (docs/tfrt_dist.md, "Failure policies"),
// against workers that refuse calls (SLUICE_FAULTS, inherited by the
// workers). Each RUN line has workers of its own, so that a fault's hit
// count starts with its first call.
//
// A worker that refuses its first call: the second attempt answers.
// RUN: env SLUICE_FAULTS='worker.call.begin=error:UNAVAILABLE@nth=1' %with_workers 1 -- %sluice_run -print_error_code -functions=retried %s 2>&1 | FileCheck %s --check-prefix=RETRIED
//
// A worker that refuses every call: the policy gives up after max
// attempts, keeping the code; a fallback gives its value instead.
// RUN: env SLUICE_FAULTS='worker.call.begin=error:UNAVAILABLE' %with_workers 1 --expect-exit=1 -- %sluice_run -print_error_code -functions=gave_up,gave_up_falls_back,falls_back,not_for_this_class %s 2>/dev/null | FileCheck %s --check-prefix=REFUSED
//
// A fatal failure is not retried: the worker fails its first call only, so
// a second attempt would have answered 3.
// RUN: env SLUICE_FAULTS='worker.call.begin=error:INTERNAL@nth=1' %with_workers 1 --expect-exit=1 -- %sluice_run -print_error_code -functions=fatal %s 2>/dev/null | FileCheck %s --check-prefix=FATAL
//
// A request cancelled (sluice_run -timeout) during a backoff of a minute
// ends the call at once with the cancellation; %with_workers gives up on
// a run that takes 30 seconds.
// RUN: env SLUICE_FAULTS='worker.call.begin=error:UNAVAILABLE' %with_workers 1 --timeout=30 --expect-exit=1 -- %sluice_run -print_error_code -timeout=0.5 -functions=cancelled %s 2>/dev/null | FileCheck %s --check-prefix=CANCELLED

func.func @add(%x: i32, %y: i32) -> i32 {
  %sum = tfrt.add.i32 %x, %y
  tfrt.return %sum : i32
}

// What the fallbacks return: not the sum, to tell them from the worker.
func.func @add_locally(%x: i32, %y: i32) -> i32 {
  %sum = tfrt.add.i32 %x, %y
  %hundred = tfrt.constant.i32 100
  %marked = tfrt.add.i32 %sum, %hundred
  tfrt.return %marked : i32
}

// RETRIED-LABEL: --- Running 'retried':
// RETRIED-NEXT: 'retried' returned 3
func.func @retried() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.call %add(%one, %two) {on_failure = #tfrt_dist.retry<max = 3, classes = [retryable], backoff_ms = 50>} : (i32, i32) -> i32
  tfrt.return %sum : i32
}

// REFUSED-LABEL: --- Running 'gave_up':
// REFUSED-NEXT: 'gave_up' returned <<error: gave up after 3 attempts: remote call of 'add' on task /job:worker/task:0 failed: fault injected at worker.call.begin, code: UNAVAILABLE>>
func.func @gave_up() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.call %add(%one, %two) {on_failure = #tfrt_dist.retry<max = 3, backoff_ms = 10>} : (i32, i32) -> i32
  tfrt.return %sum : i32
}

// REFUSED-LABEL: --- Running 'gave_up_falls_back':
// REFUSED-NEXT: 'gave_up_falls_back' returned 103
func.func @gave_up_falls_back() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.call %add(%one, %two) {on_failure = #tfrt_dist.retry<max = 2, fallback = @add_locally>} : (i32, i32) -> i32
  tfrt.return %sum : i32
}

// REFUSED-LABEL: --- Running 'falls_back':
// REFUSED-NEXT: 'falls_back' returned 103
func.func @falls_back() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.call %add(%one, %two) {on_failure = #tfrt_dist.fallback<@add_locally>} : (i32, i32) -> i32
  tfrt.return %sum : i32
}

// A fallback for fatal failures only leaves a retryable one as it is.
// REFUSED-LABEL: --- Running 'not_for_this_class':
// REFUSED-NEXT: 'not_for_this_class' returned <<error: remote call of 'add' on task /job:worker/task:0 failed: fault injected at worker.call.begin, code: UNAVAILABLE>>
func.func @not_for_this_class() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.call %add(%one, %two) {on_failure = #tfrt_dist.fallback<@add_locally, classes = [fatal]>} : (i32, i32) -> i32
  tfrt.return %sum : i32
}

// FATAL-LABEL: --- Running 'fatal':
// FATAL-NEXT: 'fatal' returned <<error: remote call of 'add' on task /job:worker/task:0 failed: fault injected at worker.call.begin, code: INTERNAL>>
func.func @fatal() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.call %add(%one, %two) {on_failure = #tfrt_dist.retry<max = 3>} : (i32, i32) -> i32
  tfrt.return %sum : i32
}

// CANCELLED-LABEL: --- Running 'cancelled':
// CANCELLED-NEXT: 'cancelled' returned <<error: {{.*}}, code: DEADLINE_EXCEEDED>>
func.func @cancelled() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.call %add(%one, %two) {on_failure = #tfrt_dist.retry<max = 3, backoff_ms = 60000, fallback = @add_locally>} : (i32, i32) -> i32
  tfrt.return %sum : i32
}
