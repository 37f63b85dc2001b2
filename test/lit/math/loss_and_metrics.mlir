// tfrt_math.softmax_cross_entropy, accuracy and argmax on logits whose
// softmax is exact: row 0 = [0, 0] gives [1/2, 1/2], row 1 = [ln 3, 0]
// gives [3/4, 1/4].
// RUN: %sluice_run %s | FileCheck %s

// Labels [0, 1]: loss = (ln 2 + ln 4) / 2 = 1.5 ln 2; gradient =
// (softmax - one_hot) / 2 = [[-1/4, 1/4], [3/8, -3/8]].
// CHECK-LABEL: --- Running 'softmax_cross_entropy':
// CHECK-NEXT: 'softmax_cross_entropy' returned DenseHostTensor dtype = f64, shape = [], values = [1.039721e+00],DenseHostTensor dtype = f64, shape = [2, 2], values = [-2.500000e-01, 2.500000e-01, 3.750000e-01, -3.750000e-01]
func.func @softmax_cross_entropy() -> (!t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %logits = tfrt_dht.create_uninitialized_tensor.f64.2 [2 : i64, 2 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f64 %logits, %ch0
    [0.0 : f64, 0.0 : f64, 1.0986122886681098 : f64, 0.0 : f64]
  %labels = tfrt_dht.create_uninitialized_tensor.i32.1 [2 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.i32 %labels, %ch1
    [0 : i32, 1 : i32]
  %loss, %gradient = tfrt_math.softmax_cross_entropy.f64 %logits, %labels, %ch2
  tfrt.return %loss, %gradient : !t.tensor, !t.tensor
}

// Row argmaxes are [0, 0] (row 0 ties: the first wins), so with labels
// [0, 1] the accuracy is 1/2. Over the rows (axis 0) the argmaxes are
// [1, 0].
// CHECK-LABEL: --- Running 'accuracy_and_argmax':
// CHECK-NEXT: 'accuracy_and_argmax' returned DenseHostTensor dtype = f32, shape = [], values = [5.000000e-01],DenseHostTensor dtype = i64, shape = [2], values = [0, 0],DenseHostTensor dtype = i64, shape = [2], values = [1, 0]
func.func @accuracy_and_argmax() -> (!t.tensor, !t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %logits = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f32 %logits, %ch0
    [0.0 : f32, 0.0 : f32, 1.0986123 : f32, 0.0 : f32]
  %labels = tfrt_dht.create_uninitialized_tensor.i64.1 [2 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.i64 %labels, %ch1
    [0 : i64, 1 : i64]
  %accuracy = tfrt_math.accuracy.f32 %logits, %labels, %ch2
  %by_row = tfrt_math.argmax.f32 %logits, %ch1 {axis = 1 : i64}
  %by_column = tfrt_math.argmax.f32 %logits, %ch1 {axis = 0 : i64}
  tfrt.return %accuracy, %by_row, %by_column : !t.tensor, !t.tensor, !t.tensor
}

// x = [[1, 2, 3], [4, 5, 6]].
// CHECK-LABEL: --- Running 'reductions':
// CHECK-NEXT: 'reductions' returned DenseHostTensor dtype = f32, shape = [], values = [2.100000e+01],DenseHostTensor dtype = f32, shape = [3], values = [5.000000e+00, 7.000000e+00, 9.000000e+00],DenseHostTensor dtype = f32, shape = [2], values = [2.000000e+00, 5.000000e+00],DenseHostTensor dtype = f32, shape = [], values = [3.500000e+00],DenseHostTensor dtype = f32, shape = [2], values = [3.000000e+00, 6.000000e+00],DenseHostTensor dtype = f32, shape = [], values = [6.000000e+00]
func.func @reductions() -> (!t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 3 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f32 %x, %ch0
    [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32]
  %sum = tfrt_math.sum.f32 %x, %ch1
  %column_sums = tfrt_math.sum.f32 %x, %ch1 {axis = 0 : i64}
  %row_means = tfrt_math.mean.f32 %x, %ch1 {axis = 1 : i64}
  %mean = tfrt_math.mean.f32 %x, %ch1
  %row_maxima = tfrt_math.max.f32 %x, %ch1 {axis = -1 : i64}
  %max = tfrt_math.max.f32 %x, %ch1
  tfrt.return %sum, %column_sums, %row_means, %mean, %row_maxima, %max
    : !t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor, !t.tensor
}

// CHECK-LABEL: --- Running 'integer_reductions':
// CHECK-NEXT: 'integer_reductions' returned DenseHostTensor dtype = i32, shape = [2], values = [-1, 9],DenseHostTensor dtype = i32, shape = [], values = [5]
func.func @integer_reductions() -> (!t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.i32.2 [2 : i64, 2 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.i32 %x, %ch0
    [-4 : i32, 3 : i32, 5 : i32, 4 : i32]
  %sums = tfrt_math.sum.i32 %x, %ch1 {axis = 1 : i64}
  %max = tfrt_math.max.i32 %x, %ch1
  tfrt.return %sums, %max : !t.tensor, !t.tensor
}
