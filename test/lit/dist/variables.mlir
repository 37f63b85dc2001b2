// Variables on two parameter servers, driven from a program: create, read,
// assign, assign-add, SGD and Adam, ordered by chains; errors the tasks
// send back reach the program as values that name the task, the variable
// and the op.
// RUN: %with_workers 1 --ps=2 --expect-exit=1 -- %sluice_run -print_error_code %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK-LABEL: --- Running 'updates':
func.func @updates() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %init = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %c1 = tfrt_dht.set_tensor_with_constant_values.f32 %init, %c0 [1.0 : f32, 2.0 : f32, 3.0 : f32]
  %w = tfrt_dist.create_variable %init, %c1 {name = "w"}

  %one = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.f32 %one, %c1 1.0 : f32
  %c3 = tfrt_dist.assign_add_variable %w, %one, %c2
  %r1 = tfrt_dist.read_variable %w, %c3
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3], values = [2.000000e+00, 3.000000e+00, 4.000000e+00]
  %c4 = tfrt_dht.print_tensor %r1, %c3

  // var -= 0.5 * 1
  %c5 = tfrt_dist.apply_sgd %w, %one, %c4 {learning_rate = 0.5 : f64}
  %r2 = tfrt_dist.read_variable %w, %c5
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3], values = [1.500000e+00, 2.500000e+00, 3.500000e+00]
  %c6 = tfrt_dht.print_tensor %r2, %c5

  tfrt.return %c6 : !tfrt.chain
}

// CHECK-LABEL: --- Running 'adam':
func.func @adam() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %zeros = tfrt_dht.create_uninitialized_tensor.f64.1 [2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f64 %zeros, %c0 0.0 : f64
  %w = tfrt_dist.create_variable %zeros, %c1 {name = "adam_w"}
  %g = tfrt_dht.create_uninitialized_tensor.f64.1 [2 : i64]
  %c2 = tfrt_dht.set_tensor_with_constant_values.f64 %g, %c1 [1.0 : f64, -3.0 : f64]
  // Adam's first step moves each element by the learning rate, against the
  // gradient's sign.
  %c3 = tfrt_dist.apply_adam %w, %g, %c2 {learning_rate = 0.25 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, epsilon = 1.0e-12 : f64}
  %r = tfrt_dist.read_variable %w, %c3
  // CHECK-NEXT: DenseHostTensor dtype = f64, shape = [2], values = [-2.500000e-01, 2.500000e-01]
  %c4 = tfrt_dht.print_tensor %r, %c3
  tfrt.return %c4 : !tfrt.chain
}

// Round robin: 'w' went to ps task 0 and 'adam_w' to ps task 1, so
// 'counter' goes to ps task 0. Creating it again, from this process, goes
// to the same task and keeps its value.
// CHECK-LABEL: --- Running 'create_twice':
func.func @create_twice() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i64.1 [2 : i64]
  %c1 = tfrt_dht.set_tensor_with_constant_values.i64 %a, %c0 [7 : i64, 8 : i64]
  %v = tfrt_dist.create_variable %a, %c1 {name = "counter"}
  %first = tfrt_dist.read_variable %v, %c1
  // CHECK-NEXT: DenseHostTensor dtype = i64, shape = [2], values = [7, 8]
  %c2 = tfrt_dht.print_tensor %first, %c1
  %b = tfrt_dht.create_uninitialized_tensor.i64.1 [2 : i64]
  %c3 = tfrt_dht.fill_tensor_with_constant.i64 %b, %c2 0 : i64
  %again = tfrt_dist.create_variable %b, %c3 {name = "counter"}
  %r = tfrt_dist.read_variable %again, %c3
  // CHECK-NEXT: DenseHostTensor dtype = i64, shape = [2], values = [7, 8]
  %c4 = tfrt_dht.print_tensor %r, %c3
  tfrt.return %c4 : !tfrt.chain
}

// An update of the wrong shape is refused by the task: an error value, and
// the variable is left as it was.
// CHECK-LABEL: --- Running 'wrong_shape':
func.func @wrong_shape() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f64.1 [2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.f64 %a, %c0 1.0 : f64
  %v = tfrt_dist.create_variable %a, %c1 {name = "b"}
  %big = tfrt_dht.create_uninitialized_tensor.f64.1 [3 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.f64 %big, %c1 1.0 : f64
  // DIAG: variables.mlir:[[# @LINE + 1]]:9: error: runtime error: assign-adding to variable 'b' on task /job:ps/task:1 failed: assign-adding to variable 'b' (f64 [2]) on task /job:ps/task:1: the value is f64 [3], not f64 [2]
  %c3 = tfrt_dist.assign_add_variable %v, %big, %c2
  // CHECK-NEXT: 'wrong_shape' returned <<error: assign-adding to variable 'b' on task /job:ps/task:1 failed: assign-adding to variable 'b' (f64 [2]) on task /job:ps/task:1: the value is f64 [3], not f64 [2], code: INVALID_ARGUMENT>>
  tfrt.return %c3 : !tfrt.chain
}
