// tfrt_math.relu, sigmoid, tanh and their gradients, at points whose values
// are exact: sigmoid(ln 3) = 3/4, tanh(ln 2) = (4 - 1)/(4 + 1) = 3/5.
// RUN: %sluice_run %s | FileCheck %s

// CHECK-LABEL: --- Running 'relu':
// CHECK-NEXT: 'relu' returned DenseHostTensor dtype = f32, shape = [4], values = [0.000000e+00, 0.000000e+00, 5.000000e-01, 2.000000e+00],DenseHostTensor dtype = f32, shape = [4], values = [0.000000e+00, 0.000000e+00, 3.000000e+00, 4.000000e+00],DenseHostTensor dtype = i64, shape = [2], values = [0, 7]
func.func @relu() -> (!t.tensor, !t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.1 [4 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f32 %x, %ch0
    [-1.0 : f32, 0.0 : f32, 0.5 : f32, 2.0 : f32]
  %dy = tfrt_dht.create_uninitialized_tensor.f32.1 [4 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.f32 %dy, %ch1
    [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32]
  %y = tfrt_math.relu.f32 %x, %ch1
  // The gradient is 0 where the input is 0.
  %dx = tfrt_math.relu_grad.f32 %dy, %x, %ch2
  %i = tfrt_dht.create_uninitialized_tensor.i64.1 [2 : i64]
  %ch3 = tfrt_dht.set_tensor_with_constant_values.i64 %i, %ch0 [-7 : i64, 7 : i64]
  %relu_i = tfrt_math.relu.i64 %i, %ch3
  tfrt.return %y, %dx, %relu_i : !t.tensor, !t.tensor, !t.tensor
}

// sigmoid'(x) = y (1 - y) = 3/16 at y = 3/4, times dy = 2: 0.375.
// tanh'(x) = 1 - y^2 = 16/25 at y = 3/5, times dy = 2: 1.28.
// CHECK-LABEL: --- Running 'sigmoid_and_tanh':
// CHECK-NEXT: 'sigmoid_and_tanh' returned DenseHostTensor dtype = f64, shape = [2], values = [5.000000e-01, 7.500000e-01],DenseHostTensor dtype = f64, shape = [2], values = [5.000000e-01, 3.750000e-01],DenseHostTensor dtype = f64, shape = [2], values = [0.000000e+00, 6.000000e-01],DenseHostTensor dtype = f64, shape = [2], values = [2.000000e+00, 1.280000e+00]
func.func @sigmoid_and_tanh() -> (!t.tensor, !t.tensor, !t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f64.1 [2 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f64 %x, %ch0
    [0.0 : f64, 1.0986122886681098 : f64]
  %z = tfrt_dht.create_uninitialized_tensor.f64.1 [2 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.f64 %z, %ch1
    [0.0 : f64, 0.69314718055994531 : f64]
  %dy = tfrt_dht.create_uninitialized_tensor.f64.1 [2 : i64]
  %ch3 = tfrt_dht.set_tensor_with_constant_values.f64 %dy, %ch2
    [2.0 : f64, 2.0 : f64]
  %s = tfrt_math.sigmoid.f64 %x, %ch1
  %ds = tfrt_math.sigmoid_grad.f64 %dy, %s, %ch3
  %t = tfrt_math.tanh.f64 %z, %ch2
  %dt = tfrt_math.tanh_grad.f64 %dy, %t, %ch3
  tfrt.return %s, %ds, %t, %dt : !t.tensor, !t.tensor, !t.tensor, !t.tensor
}
