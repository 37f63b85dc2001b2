// A remote function that reaches tfrt_dist.call through a function argument
// escapes the compiler's signature check; the call checks the counts before
// sending anything, and the task checks the argument types.
// RUN: %with_workers 1 --expect-exit=1 -- %sluice_run -print_error_code %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @call_with_one(%fn: !tfrt_dist.remote_function) -> i32 {
  %one = tfrt.constant.i32 1
  // DIAG: runtime_checks.mlir:[[# @LINE + 1]]:8: error: runtime error: 'add' on task /job:worker/task:0 takes 2 argument(s), tfrt_dist.call passes 1
  %r = tfrt_dist.call %fn(%one) : (i32) -> i32
  tfrt.return %r : i32
}

func.func @call_for_two(%fn: !tfrt_dist.remote_function) -> (i32, i32) {
  %one = tfrt.constant.i32 1
  // DIAG: runtime_checks.mlir:[[# @LINE + 1]]:10: error: runtime error: 'add' on task /job:worker/task:0 returns 1 result(s), tfrt_dist.call has 2
  %r:2 = tfrt_dist.call %fn(%one, %one) : (i32, i32) -> (i32, i32)
  tfrt.return %r#0, %r#1 : i32, i32
}

func.func @call_with_i64(%fn: !tfrt_dist.remote_function) -> i32 {
  %one = tfrt.constant.i64 1
  // DIAG: runtime_checks.mlir:[[# @LINE + 1]]:8: error: runtime error: remote call of 'add' on task /job:worker/task:0 failed: argument 0 of function 'add' on task /job:worker/task:0 must be i32, the call passed i64
  %r = tfrt_dist.call %fn(%one, %one) : (i64, i64) -> i32
  tfrt.return %r : i32
}

// CHECK-LABEL: --- Running 'wrong_argument_count':
// CHECK-NEXT: 'wrong_argument_count' returned <<error: 'add' on task /job:worker/task:0 takes 2 argument(s), tfrt_dist.call passes 1, code: INVALID_ARGUMENT>>
func.func @wrong_argument_count() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %r = tfrt.call @call_with_one(%add) : (!tfrt_dist.remote_function) -> i32
  tfrt.return %r : i32
}

// CHECK-LABEL: --- Running 'wrong_result_count':
// CHECK-NEXT: 'wrong_result_count' returned <<error: 'add' on task /job:worker/task:0 returns 1 result(s), tfrt_dist.call has 2, code: INVALID_ARGUMENT>>,<<error: 'add' on task /job:worker/task:0 returns 1 result(s), tfrt_dist.call has 2, code: INVALID_ARGUMENT>>
func.func @wrong_result_count() -> (i32, i32) {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %r:2 = tfrt.call @call_for_two(%add) : (!tfrt_dist.remote_function) -> (i32, i32)
  tfrt.return %r#0, %r#1 : i32, i32
}

// CHECK-LABEL: --- Running 'wrong_argument_type':
// CHECK-NEXT: 'wrong_argument_type' returned <<error: remote call of 'add' on task /job:worker/task:0 failed: argument 0 of function 'add' on task /job:worker/task:0 must be i32, the call passed i64, code: INVALID_ARGUMENT>>
func.func @wrong_argument_type() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %r = tfrt.call @call_with_i64(%add) : (!tfrt_dist.remote_function) -> i32
  tfrt.return %r : i32
}

// The same call with the right signature works.
// CHECK-LABEL: --- Running 'right_signature':
// CHECK-NEXT: 'right_signature' returned 2
func.func @right_signature() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  %r = tfrt_dist.call %add(%one, %one) : (i32, i32) -> i32
  tfrt.return %r : i32
}
// DIAG-NOT: runtime error
