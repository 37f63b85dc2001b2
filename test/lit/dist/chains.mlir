// Chains order side effects across tasks: a remote call starts only once its
// chain argument is ready, and the chain it returns is ready only once the
// task's side effects are done. The workers write to the same output as the
// runner, in the order the lines are written.
// RUN: %with_workers 2 --merge-output -- %sluice_run %s | FileCheck %s

func.func @print_on_task(%x: i32, %ch: !tfrt.chain) -> !tfrt.chain {
  %ch1 = tfrt.print.i32 %x, %ch
  tfrt.return %ch1 : !tfrt.chain
}

// Prints twice, the second time only after `b` arrived from the caller.
func.func @print_twice(%a: i32, %b: i32, %ch: !tfrt.chain) -> !tfrt.chain {
  %ch1 = tfrt.print.i32 %a, %ch
  %ch2 = tfrt.print.i32 %b, %ch1
  tfrt.return %ch2 : !tfrt.chain
}

// CHECK-LABEL: --- Running 'chain_across_tasks':
// CHECK-NEXT: int32 = 1
// CHECK-NEXT: int32 = 2
// CHECK-NEXT: int32 = 3
// CHECK-NEXT: int32 = 4
// CHECK-NEXT: int32 = 5
// CHECK-NEXT: int32 = 6
// CHECK-NEXT: int32 = 7
// CHECK-NEXT: 'chain_across_tasks' returned !tfrt.chain value
func.func @chain_across_tasks() -> !tfrt.chain {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %t1 = tfrt_dist.get_task_handle "/job:worker/task:1"
  %p0 = tfrt_dist.register_function %t0 @print_on_task
  %p1 = tfrt_dist.register_function %t1 @print_on_task
  %twice1 = tfrt_dist.register_function %t1 @print_twice
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %four = tfrt.constant.i32 4
  %five = tfrt.constant.i32 5
  %six = tfrt.constant.i32 6
  %seven = tfrt.constant.i32 7
  %ch0 = tfrt.new.chain
  // Here, task 0, task 1, here again, then task 1 twice, then task 0.
  %ch1 = tfrt.print.i32 %one, %ch0
  %ch2 = tfrt_dist.call %p0(%two, %ch1) : (i32, !tfrt.chain) -> !tfrt.chain
  %ch3 = tfrt_dist.call %p1(%three, %ch2) : (i32, !tfrt.chain) -> !tfrt.chain
  %ch4 = tfrt.print.i32 %four, %ch3
  %ch5 = tfrt_dist.call %twice1(%five, %six, %ch4)
      : (i32, i32, !tfrt.chain) -> !tfrt.chain
  %ch6 = tfrt_dist.call %p0(%seven, %ch5) : (i32, !tfrt.chain) -> !tfrt.chain
  tfrt.return %ch6 : !tfrt.chain
}

// A call whose chain nobody returns still finishes before the next
// function starts: the runner waits for all of a function's work.
// CHECK-LABEL: --- Running 'unused_chain':
// CHECK-NEXT: int32 = 8
// CHECK-NEXT: --- Running 'after_unused_chain':
func.func @unused_chain() {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %p0 = tfrt_dist.register_function %t0 @print_on_task
  %eight = tfrt.constant.i32 8
  %ch0 = tfrt.new.chain
  %ch1 = tfrt_dist.call %p0(%eight, %ch0) : (i32, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// CHECK-NEXT: int32 = 9
// CHECK-NEXT: 'after_unused_chain' returned !tfrt.chain value
func.func @after_unused_chain() -> !tfrt.chain {
  %nine = tfrt.constant.i32 9
  %ch0 = tfrt.new.chain
  %ch1 = tfrt.print.i32 %nine, %ch0
  tfrt.return %ch1 : !tfrt.chain
}
