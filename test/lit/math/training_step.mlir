// One step of gradient descent on a linear classifier, composed of
// tfrt_math ops: forward (matmul, bias add), softmax cross-entropy, the
// gradients (matmul with transpose_a, sum over the batch), the update.
//
// x = [[1, 2], [2, 1], [-1, -2], [-2, -1]], labels [0, 0, 1, 1], w = 0,
// b = 0. At w = 0 every softmax is [1/2, 1/2]: loss ln 2, and the loss's
// gradient wrt the logits is [-1/8, 1/8] for label 0 and [1/8, -1/8] for
// label 1. dw = x^T dlogits = [[-3/4, 3/4], [-3/4, 3/4]], db = [0, 0]. With
// a learning rate of 1, w = [[3/4, -3/4], [3/4, -3/4]]: each row's logits
// are then +-[9/4, -9/4], in favour of its label, so the loss is
// ln(1 + e^-4.5) and every prediction is right.
// RUN: %sluice_run %s | FileCheck %s

// CHECK-LABEL: --- Running 'train_one_step':
// CHECK-NEXT: 'train_one_step' returned DenseHostTensor dtype = f64, shape = [], values = [6.931472e-01],DenseHostTensor dtype = f64, shape = [2, 2], values = [7.500000e-01, -7.500000e-01, 7.500000e-01, -7.500000e-01],DenseHostTensor dtype = f64, shape = [], values = [1.104774e-02],DenseHostTensor dtype = f64, shape = [], values = [1.000000e+00]
func.func @train_one_step() -> (!t.tensor, !t.tensor, !t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %x = tfrt_dht.create_uninitialized_tensor.f64.2 [4 : i64, 2 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.f64 %x, %ch0
    [1.0 : f64, 2.0 : f64, 2.0 : f64, 1.0 : f64,
     -1.0 : f64, -2.0 : f64, -2.0 : f64, -1.0 : f64]
  %labels = tfrt_dht.create_uninitialized_tensor.i32.1 [4 : i64]
  %ch2 = tfrt_dht.set_tensor_with_constant_values.i32 %labels, %ch1
    [0 : i32, 0 : i32, 1 : i32, 1 : i32]
  // create_uninitialized_tensor zeroes its elements.
  %w = tfrt_dht.create_uninitialized_tensor.f64.2 [2 : i64, 2 : i64]
  %b = tfrt_dht.create_uninitialized_tensor.f64.1 [2 : i64]

  %xw = tfrt_math.matmul.f64 %x, %w, %ch2
  %logits = tfrt_math.add.f64 %xw, %b
  %loss, %dlogits = tfrt_math.softmax_cross_entropy.f64 %logits, %labels, %ch2
  %dw = tfrt_math.matmul.f64 %x, %dlogits {transpose_a = true}
  %db = tfrt_math.sum.f64 %dlogits {axis = 0 : i64}
  %new_w = tfrt_math.sub.f64 %w, %dw
  %new_b = tfrt_math.sub.f64 %b, %db

  %new_xw = tfrt_math.matmul.f64 %x, %new_w
  %new_logits = tfrt_math.add.f64 %new_xw, %new_b
  %new_loss, %unused = tfrt_math.softmax_cross_entropy.f64 %new_logits, %labels, %ch2
  %accuracy = tfrt_math.accuracy.f64 %new_logits, %labels, %ch2
  tfrt.return %loss, %new_w, %new_loss, %accuracy : !t.tensor, !t.tensor, !t.tensor, !t.tensor
}
