// tfrt_math.slice_rows: batches of a data set's rows, sharing its bytes.
// RUN: %sluice_run %s | FileCheck %s

// Rows [1, 3) of [4, 2], and the labels of the same rows.
// CHECK-LABEL: --- Running 'batch':
// CHECK-NEXT: 'batch' returned DenseHostTensor dtype = f32, shape = [2, 2], values = [2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00],DenseHostTensor dtype = i32, shape = [2], values = [1, 0]
func.func @batch() -> (!t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.2 [4 : i64, 2 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f32 %x, %ch0
    [0.0 : f32, 1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32, 7.0 : f32]
  %y = tfrt_dht.create_uninitialized_tensor.i32.1 [4 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.i32 %y, %ch1
    [0 : i32, 1 : i32, 0 : i32, 1 : i32]
  %begin = tfrt.constant.i64 1
  %size = tfrt.constant.i64 2
  %x_batch = tfrt_math.slice_rows %x, %begin, %size, %ch1
  %y_batch = tfrt_math.slice_rows %y, %begin, %size, %ch2
  tfrt.return %x_batch, %y_batch : !t.tensor, !t.tensor
}

// The slice sees a later write to its rows: the bytes are shared.
// CHECK-LABEL: --- Running 'shared_bytes':
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [1, 2], values = [9, 9]
func.func @shared_bytes() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.i64.2 [2 : i64, 2 : i64]
  %one = tfrt.constant.i64 1
  %last_row = tfrt_math.slice_rows %x, %one, %one
  %ch1 = tfrt_dht.fill_tensor_with_constant.i64 %x, %ch0 9 : i64
  %ch2 = tfrt_dht.print_tensor %last_row, %ch1
  tfrt.return %ch2 : !tfrt.chain
}
