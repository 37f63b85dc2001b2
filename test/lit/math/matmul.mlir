// tfrt_math.matmul: products checked by hand, with every transpose.
// RUN: %sluice_run %s | FileCheck %s

// a = [[1, 2, 3], [4, 5, 6]], b = [[7, 8], [9, 10], [11, 12]]:
// a x b = [[1*7 + 2*9 + 3*11, 1*8 + 2*10 + 3*12], [...]] = [[58, 64], [139, 154]].
// CHECK-LABEL: --- Running 'product':
// CHECK-NEXT: 'product' returned DenseHostTensor dtype = f32, shape = [2, 2], values = [5.800000e+01, 6.400000e+01, 1.390000e+02, 1.540000e+02]
func.func @product() -> !t.tensor {
  %ch0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f32 %a, %ch0
    [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32]
  %b = tfrt_dht.create_uninitialized_tensor.f32.2 [3 : i64, 2 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.f32 %b, %ch1
    [7.0 : f32, 8.0 : f32, 9.0 : f32, 10.0 : f32, 11.0 : f32, 12.0 : f32]
  %c = tfrt_math.matmul.f32 %a, %b, %ch2
  tfrt.return %c : !t.tensor
}

// a^T a: the dot products of a's columns (1, 4), (2, 5), (3, 6); a a^T: of
// its rows (1, 2, 3), (4, 5, 6); and both operands transposed. In f64.
// CHECK-LABEL: --- Running 'transposes':
// CHECK-NEXT: 'transposes' returned DenseHostTensor dtype = f64, shape = [3, 3], values = [1.700000e+01, 2.200000e+01, 2.700000e+01, 2.200000e+01, 2.900000e+01, 3.600000e+01, 2.700000e+01, 3.600000e+01, 4.500000e+01],DenseHostTensor dtype = f64, shape = [2, 2], values = [1.400000e+01, 3.200000e+01, 3.200000e+01, 7.700000e+01],DenseHostTensor dtype = f64, shape = [3, 2], values = [9.000000e+00, 1.300000e+01, 1.200000e+01, 1.700000e+01, 1.500000e+01, 2.100000e+01]
func.func @transposes() -> (!t.tensor, !t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f64.2 [2 : i64, 3 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f64 %a, %ch0
    [1.0 : f64, 2.0 : f64, 3.0 : f64, 4.0 : f64, 5.0 : f64, 6.0 : f64]
  %ata = tfrt_math.matmul.f64 %a, %a, %ch1 {transpose_a = true}
  %aat = tfrt_math.matmul.f64 %a, %a, %ch1 {transpose_b = true, transpose_a = false}
  // a^T m^T with m = [[1, 2], [1, 3]]: row (x, y) of a^T becomes
  // (x + 2y, x + 3y).
  %m = tfrt_dht.create_uninitialized_tensor.f64.2 [2 : i64, 2 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.f64 %m, %ch1
    [1.0 : f64, 2.0 : f64, 1.0 : f64, 3.0 : f64]
  %both = tfrt_math.matmul.f64 %a, %m, %ch2 {transpose_a = true, transpose_b = true}
  tfrt.return %ata, %aat, %both : !t.tensor, !t.tensor, !t.tensor
}
