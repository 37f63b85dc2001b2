// tfrt_math.add, sub, mul, div and scale, with the broadcasts they allow.
// RUN: %sluice_run %s | FileCheck %s

// A bias [3] added to every row of [2, 3], a scalar subtracted, and the two
// multiplied and divided elementwise.
// CHECK-LABEL: --- Running 'float_arithmetic':
// CHECK-NEXT: 'float_arithmetic' returned DenseHostTensor dtype = f32, shape = [2, 3], values = [1.100000e+01, 2.200000e+01, 3.300000e+01, 1.400000e+01, 2.500000e+01, 3.600000e+01],DenseHostTensor dtype = f32, shape = [2, 3], values = [-5.000000e-01, 5.000000e-01, 1.500000e+00, 2.500000e+00, 3.500000e+00, 4.500000e+00],DenseHostTensor dtype = f32, shape = [2, 3], values = [1.000000e+00, 4.000000e+00, 9.000000e+00, 1.600000e+01, 2.500000e+01, 3.600000e+01],DenseHostTensor dtype = f32, shape = [2, 3], values = [1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00]
func.func @float_arithmetic() -> (!t.tensor, !t.tensor, !t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f32 %x, %ch0
    [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32]
  %bias = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.f32 %bias, %ch1
    [10.0 : f32, 20.0 : f32, 30.0 : f32]
  %half = tfrt_dht.create_uninitialized_tensor.f32.0 []
  %ch3 = tfrt_dht.set_tensor_with_constant_values.f32 %half, %ch2 [1.5 : f32]
  %sum = tfrt_math.add.f32 %x, %bias, %ch3
  %difference = tfrt_math.sub.f32 %x, %half, %ch3
  %square = tfrt_math.mul.f32 %x, %x, %ch3
  %one = tfrt_math.div.f32 %x, %x, %ch3
  tfrt.return %sum, %difference, %square, %one : !t.tensor, !t.tensor, !t.tensor, !t.tensor
}

// Integer division truncates toward zero; i64 too.
// CHECK-LABEL: --- Running 'integer_arithmetic':
// CHECK-NEXT: 'integer_arithmetic' returned DenseHostTensor dtype = i32, shape = [4], values = [3, -3, -3, 3],DenseHostTensor dtype = i64, shape = [2], values = [-6, 10]
func.func @integer_arithmetic() -> (!t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.1 [4 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.i32 %a, %ch0
    [7 : i32, -7 : i32, 7 : i32, -7 : i32]
  %b = tfrt_dht.create_uninitialized_tensor.i32.1 [4 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.i32 %b, %ch1
    [2 : i32, 2 : i32, -2 : i32, -2 : i32]
  %quotient = tfrt_math.div.i32 %a, %b, %ch2
  %c = tfrt_dht.create_uninitialized_tensor.i64.1 [2 : i64]
  %ch3 = tfrt_dht.set_tensor_with_constant_values.i64 %c, %ch2 [-3 : i64, 5 : i64]
  %two = tfrt_dht.create_uninitialized_tensor.i64.0 []
  %ch4 = tfrt_dht.set_tensor_with_constant_values.i64 %two, %ch3 [2 : i64]
  %product = tfrt_math.mul.i64 %c, %two, %ch4
  tfrt.return %quotient, %product : !t.tensor, !t.tensor
}

// One step of gradient descent: w - 0.1 * grad.
// CHECK-LABEL: --- Running 'sgd_step':
// CHECK-NEXT: 'sgd_step' returned DenseHostTensor dtype = f64, shape = [3], values = [9.000000e-01, -1.800000e+00, 3.050000e+00]
func.func @sgd_step() -> !t.tensor {
  %ch0 = tfrt.new.chain
  %w = tfrt_dht.create_uninitialized_tensor.f64.1 [3 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f64 %w, %ch0
    [1.0 : f64, -2.0 : f64, 3.0 : f64]
  %grad = tfrt_dht.create_uninitialized_tensor.f64.1 [3 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.f64 %grad, %ch1
    [1.0 : f64, -2.0 : f64, -0.5 : f64]
  %step = tfrt_math.scale.f64 %grad, %ch2 {factor = 0.1 : f64}
  %updated = tfrt_math.sub.f64 %w, %step, %ch2
  tfrt.return %updated : !t.tensor
}
