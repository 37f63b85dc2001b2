// SLUICE_FAULTS in sluice_run: a fault at client.call.send fails the call
// it picks, unsent, as an error value that names the task; the next call
// goes through. A spec that does not parse stops the runner before
// anything runs. (docs/faults.md)
// RUN: %with_workers 1 --expect-exit=1 -- env SLUICE_FAULTS='client.call.send=error@nth=1' %sluice_run -print_error_code %s 2>/dev/null | FileCheck %s
// RUN: env SLUICE_FAULTS='client.call.send=eror@nth=1' not %sluice_run %s 2>&1 | FileCheck %s --check-prefix=BAD-SPEC
// BAD-SPEC: sluice_run: SLUICE_FAULTS: fault spec entry 'client.call.send=eror@nth=1': unknown action 'eror' (error, delay, hang or kill)
// BAD-SPEC-NOT: Running

func.func @add(%x: i32, %y: i32) -> i32 {
  %sum = tfrt.add.i32 %x, %y
  tfrt.return %sum : i32
}

// CHECK-LABEL: --- Running 'first':
// CHECK-NEXT: 'first' returned <<error: remote call of 'add' on task /job:worker/task:0 failed: fault injected at client.call.send, code: UNAVAILABLE>>
func.func @first() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.call %add(%one, %two) : (i32, i32) -> i32
  tfrt.return %sum : i32
}

// CHECK-LABEL: --- Running 'second':
// CHECK-NEXT: 'second' returned 3
func.func @second() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %sum = tfrt_dist.call %add(%one, %two) : (i32, i32) -> i32
  tfrt.return %sum : i32
}
