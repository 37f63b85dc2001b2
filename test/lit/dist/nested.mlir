// A function running on a task may itself call other tasks: workers run
// the tfrt_dist kernels too, and find the cluster in SLUICE_CLUSTER.
// RUN: %with_workers 2 --merge-output -- %sluice_run %s | FileCheck %s

func.func @add(%a: i32, %b: i32, %ch: !tfrt.chain) -> (i32, !tfrt.chain) {
  %c = tfrt.add.i32 %a, %b
  %ch1 = tfrt.print.i32 %c, %ch
  tfrt.return %c, %ch1 : i32, !tfrt.chain
}

// Runs on task 0 and has task 1 do the addition.
func.func @add_on_task1(%a: i32, %b: i32, %ch: !tfrt.chain)
    -> (i32, !tfrt.chain) {
  %t1 = tfrt_dist.get_task_handle "/job:worker/task:1"
  %add = tfrt_dist.register_function %t1 @add
  %r, %ch1 = tfrt_dist.call %add(%a, %b, %ch)
      : (i32, i32, !tfrt.chain) -> (i32, !tfrt.chain)
  tfrt.return %r, %ch1 : i32, !tfrt.chain
}

// CHECK-LABEL: --- Running 'through_two_tasks':
// CHECK-NEXT: int32 = 42
// CHECK-NEXT: 'through_two_tasks' returned 42
func.func @through_two_tasks() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %via = tfrt_dist.register_function %t0 @add_on_task1
  %forty = tfrt.constant.i32 40
  %two = tfrt.constant.i32 2
  %ch = tfrt.new.chain
  %r, %ch1 = tfrt_dist.call %via(%forty, %two, %ch)
      : (i32, i32, !tfrt.chain) -> (i32, !tfrt.chain)
  tfrt.return %r : i32
}
