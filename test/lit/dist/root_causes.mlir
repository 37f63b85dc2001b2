// One failure that fans out into many errors is reported once, first, as
// their root cause: task 1 dies (the harness kills it when the program
// prints 4242), and the three calls then made to it fail with errors that
// record the first as their root. The first is printed at once; the other
// two wait for the end of the function, after a note that names the root
// and counts them. An unrelated failure is its own root and is printed at
// once. The runner's own lines about a task slow to answer (a sanitizer's
// build) are left out of the order checked.
// RUN: %with_workers 2 --kill-on-output=1:4242 --expect-exit=1 -- %sluice_run -print_error_code %s 2> %t.diag | FileCheck %s
// RUN: grep -v '^sluice_run: ' %t.diag | FileCheck %s --check-prefix=DIAG

func.func @add_after(%ch: !tfrt.chain, %a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

// CHECK-LABEL: --- Running 'fan_out':
// CHECK: 'fan_out' returned <<error: remote call of 'add_after' on task /job:worker/task:1 failed: {{.*}}, code: UNAVAILABLE>>,<<error: remote call of 'add_after' on task /job:worker/task:1 failed: {{.*}}, code: UNAVAILABLE>>,<<error: remote call of 'add_after' on task /job:worker/task:1 failed: {{.*}}, code: UNAVAILABLE>>,<<error: something bad happened, code: INTERNAL>>
func.func @fan_out() -> (i32, i32, i32, i32) {
  %t1 = tfrt_dist.get_task_handle "/job:worker/task:1"
  %add = tfrt_dist.register_function %t1 @add_after
  %ch0 = tfrt.new.chain
  %a = tfrt.constant.i32 4200
  %b = tfrt.constant.i32 42
  %sum = tfrt_dist.call %add(%ch0, %a, %b) : (!tfrt.chain, i32, i32) -> i32
  %ch1 = tfrt.print.i32 %sum, %ch0
  %half_second = tfrt.constant.i32 500000
  %ch2 = "tfrt_test.blocking.usleep"(%half_second, %ch1)
      : (i32, !tfrt.chain) -> !tfrt.chain
  // DIAG: root_causes.mlir:[[# @LINE + 1]]:8: error: runtime error: something bad happened
  %q = "tfrt_test.fail"() : () -> i32
  // The first of the three calls to fail is the root; which one comes
  // first is up to the scheduler.
  // DIAG-NEXT: root_causes.mlir:{{[0-9]+}}:8: error: runtime error: remote call of 'add_after' on task /job:worker/task:1 failed:
  // DIAG-NEXT: root_causes.mlir:{{[0-9]+}}:8: note: root cause of 2 more runtime errors, below: remote call of 'add_after' on task /job:worker/task:1 failed:
  // DIAG-NEXT: root_causes.mlir:{{[0-9]+}}:8: error: runtime error: remote call of 'add_after' on task /job:worker/task:1 failed:
  // DIAG-NEXT: root_causes.mlir:{{[0-9]+}}:8: error: runtime error: remote call of 'add_after' on task /job:worker/task:1 failed:
  %x = tfrt_dist.call %add(%ch2, %sum, %sum) : (!tfrt.chain, i32, i32) -> i32
  %y = tfrt_dist.call %add(%ch2, %sum, %a) : (!tfrt.chain, i32, i32) -> i32
  %z = tfrt_dist.call %add(%ch2, %a, %b) : (!tfrt.chain, i32, i32) -> i32
  tfrt.return %x, %y, %z, %q : i32, i32, i32, i32
}
// DIAG-NOT: runtime error
