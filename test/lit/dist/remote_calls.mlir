// Functions of the program run on two workers: integer arithmetic, strings,
// several results of several types, and many calls in flight at once.
// RUN: %with_workers 2 -- %sluice_run %s | FileCheck %s
// A compiled program sends the same bytes it was loaded from.
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf
// RUN: %with_workers 2 -- %sluice_run %t.sbf | FileCheck %s

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @append(%a: !tfrt.string, %b: !tfrt.string) -> !tfrt.string {
  %c = "tfrt_test.append_string"(%a, %b)
      : (!tfrt.string, !tfrt.string) -> !tfrt.string
  tfrt.return %c : !tfrt.string
}

// Quotient and remainder, a number too wide for i32, and the other
// arguments echoed.
func.func @divmod(%x: i32, %y: i32, %flag: i1, %f: f32, %d: f64)
    -> (i32, i32, i64, i1, f32, f64) {
  %q, %r = tfrt.div.i32 %x, %y
  %wide = tfrt.constant.i64 10000000000
  tfrt.return %q, %r, %wide, %flag, %f, %d : i32, i32, i64, i1, f32, f64
}

// CHECK: --- Not running 'add' because it has arguments.
// CHECK: --- Not running 'append' because it has arguments.
// CHECK: --- Not running 'divmod' because it has arguments.

// CHECK-LABEL: --- Running 'add_on_two_tasks':
// CHECK-NEXT: 'add_on_two_tasks' returned 3,7,10
func.func @add_on_two_tasks() -> (i32, i32, i32) {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %t1 = tfrt_dist.get_task_handle "/job:worker/task:1"
  %add0 = tfrt_dist.register_function %t0 @add
  %add1 = tfrt_dist.register_function %t1 @add
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %four = tfrt.constant.i32 4
  %a = tfrt_dist.call %add0(%one, %two) : (i32, i32) -> i32
  %b = tfrt_dist.call %add1(%three, %four) : (i32, i32) -> i32
  // Remote results feed the next remote call.
  %c = tfrt_dist.call %add0(%a, %b) : (i32, i32) -> i32
  tfrt.return %a, %b, %c : i32, i32, i32
}

// CHECK-LABEL: --- Running 'append_strings':
// CHECK-NEXT: string = hello world
// CHECK-NEXT: 'append_strings' returned !tfrt.string value
func.func @append_strings() -> !tfrt.string {
  %t1 = tfrt_dist.get_task_handle "/job:worker/task:1"
  %append = tfrt_dist.register_function %t1 @append
  %hello = "tfrt_test.get_string"() {value = "hello "} : () -> !tfrt.string
  %world = "tfrt_test.get_string"() {value = "world"} : () -> !tfrt.string
  %s = tfrt_dist.call %append(%hello, %world)
      : (!tfrt.string, !tfrt.string) -> !tfrt.string
  %ch = tfrt.new.chain
  %ch1 = "tfrt_test.print_string"(%s, %ch)
      : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return %s : !tfrt.string
}

// CHECK-LABEL: --- Running 'multiple_results':
// CHECK-NEXT: 'multiple_results' returned 3,2,10000000000,1,2.500000e+00,-1.250000e-01
func.func @multiple_results() -> (i32, i32, i64, i1, f32, f64) {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %divmod = tfrt_dist.register_function %t0 @divmod
  %x = tfrt.constant.i32 17
  %y = tfrt.constant.i32 5
  %flag = tfrt.constant.i1 true
  %f = tfrt.constant.f32 2.5
  %d = tfrt.constant.f64 -0.125
  %r:6 = tfrt_dist.call %divmod(%x, %y, %flag, %f, %d)
      : (i32, i32, i1, f32, f64) -> (i32, i32, i64, i1, f32, f64)
  tfrt.return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5
      : i32, i32, i64, i1, f32, f64
}

// Sixteen calls in flight at once, spread over both tasks, summed locally.
// CHECK-LABEL: --- Running 'many_calls':
// CHECK-NEXT: 'many_calls' returned 136
func.func @many_calls() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %t1 = tfrt_dist.get_task_handle "/job:worker/task:1"
  %f0 = tfrt_dist.register_function %t0 @add
  %f1 = tfrt_dist.register_function %t1 @add
  %zero = tfrt.constant.i32 0
  %c1 = tfrt.constant.i32 1
  %c2 = tfrt.constant.i32 2
  %c3 = tfrt.constant.i32 3
  %c4 = tfrt.constant.i32 4
  %c5 = tfrt.constant.i32 5
  %c6 = tfrt.constant.i32 6
  %c7 = tfrt.constant.i32 7
  %c8 = tfrt.constant.i32 8
  %c9 = tfrt.constant.i32 9
  %c10 = tfrt.constant.i32 10
  %c11 = tfrt.constant.i32 11
  %c12 = tfrt.constant.i32 12
  %c13 = tfrt.constant.i32 13
  %c14 = tfrt.constant.i32 14
  %c15 = tfrt.constant.i32 15
  %c16 = tfrt.constant.i32 16
  %r1 = tfrt_dist.call %f0(%c1, %zero) : (i32, i32) -> i32
  %r2 = tfrt_dist.call %f1(%c2, %zero) : (i32, i32) -> i32
  %r3 = tfrt_dist.call %f0(%c3, %zero) : (i32, i32) -> i32
  %r4 = tfrt_dist.call %f1(%c4, %zero) : (i32, i32) -> i32
  %r5 = tfrt_dist.call %f0(%c5, %zero) : (i32, i32) -> i32
  %r6 = tfrt_dist.call %f1(%c6, %zero) : (i32, i32) -> i32
  %r7 = tfrt_dist.call %f0(%c7, %zero) : (i32, i32) -> i32
  %r8 = tfrt_dist.call %f1(%c8, %zero) : (i32, i32) -> i32
  %r9 = tfrt_dist.call %f0(%c9, %zero) : (i32, i32) -> i32
  %r10 = tfrt_dist.call %f1(%c10, %zero) : (i32, i32) -> i32
  %r11 = tfrt_dist.call %f0(%c11, %zero) : (i32, i32) -> i32
  %r12 = tfrt_dist.call %f1(%c12, %zero) : (i32, i32) -> i32
  %r13 = tfrt_dist.call %f0(%c13, %zero) : (i32, i32) -> i32
  %r14 = tfrt_dist.call %f1(%c14, %zero) : (i32, i32) -> i32
  %r15 = tfrt_dist.call %f0(%c15, %zero) : (i32, i32) -> i32
  %r16 = tfrt_dist.call %f1(%c16, %zero) : (i32, i32) -> i32
  %s1 = tfrt.add.i32 %r1, %r2
  %s2 = tfrt.add.i32 %r3, %r4
  %s3 = tfrt.add.i32 %r5, %r6
  %s4 = tfrt.add.i32 %r7, %r8
  %s5 = tfrt.add.i32 %r9, %r10
  %s6 = tfrt.add.i32 %r11, %r12
  %s7 = tfrt.add.i32 %r13, %r14
  %s8 = tfrt.add.i32 %r15, %r16
  %t1a = tfrt.add.i32 %s1, %s2
  %t2a = tfrt.add.i32 %s3, %s4
  %t3a = tfrt.add.i32 %s5, %s6
  %t4a = tfrt.add.i32 %s7, %s8
  %u1 = tfrt.add.i32 %t1a, %t2a
  %u2 = tfrt.add.i32 %t3a, %t4a
  %total = tfrt.add.i32 %u1, %u2
  tfrt.return %total : i32
}

// A task named with its replica is the same task.
// CHECK-LABEL: --- Running 'replica_name':
// CHECK-NEXT: 'replica_name' returned 5
func.func @replica_name() -> i32 {
  %t = tfrt_dist.get_task_handle "/job:worker/replica:0/task:1"
  %add = tfrt_dist.register_function %t @add
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %r = tfrt_dist.call %add(%two, %three) : (i32, i32) -> i32
  tfrt.return %r : i32
}
