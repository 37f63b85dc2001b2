// gaussian_clusters_dataset: batches of (features, label), the same for the
// same seed and examples, and a training step consuming one.
// RUN: %sluice_run %s | FileCheck %s

// Two iterators over the same examples give the same bytes; the second
// dataset starts at example 2 (first_example), so its first batch is the
// last two rows of the first one's.
// CHECK-LABEL: --- Running 'same_seed_same_examples':
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [4, 3], values = [[[A:[-+.0-9e]+]], [[B:[-+.0-9e]+]], [[C:[-+.0-9e]+]], [[D:[-+.0-9e]+]], [[E:[-+.0-9e]+]], [[F:[-+.0-9e]+]], [[G:[-+.0-9e]+]], [[H:[-+.0-9e]+]], [[I:[-+.0-9e]+]], [[J:[-+.0-9e]+]], [[K:[-+.0-9e]+]], [[L:[-+.0-9e]+]]]
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [4], values = [3, 1, 0, 1]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 3], values = [[[G]], [[H]], [[I]], [[J]], [[K]], [[L]]]
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [2], values = [0, 1]
func.func @same_seed_same_examples() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %all = tfrt_data.gaussian_clusters_dataset {num_examples = 4 : i64, num_features = 3 : i64, num_classes = 4 : i64, seed = 7 : i64, stddev = 0.1 : f64}
  %tail = tfrt_data.gaussian_clusters_dataset {num_examples = 2 : i64, first_example = 2 : i64, num_features = 3 : i64, num_classes = 4 : i64, seed = 7 : i64, stddev = 0.1 : f64}
  %four = tfrt.constant.i64 4
  %all_batches = tfrt_data.batch_dataset %all, %four
  %tail_batches = tfrt_data.batch_dataset %tail, %four
  %it0 = tfrt_data.make_iterator %all_batches
  %it1 = tfrt_data.make_iterator %tail_batches
  %ch1, %x0, %y0 = tfrt_data.iterator_get_next %it0, %ch0 : !t.tensor, !t.tensor
  %ch2 = tfrt_dht.print_tensor %x0, %ch1
  %ch3 = tfrt_dht.print_tensor %y0, %ch2
  %ch4, %x1, %y1 = tfrt_data.iterator_get_next %it1, %ch3 : !t.tensor, !t.tensor
  %ch5 = tfrt_dht.print_tensor %x1, %ch4
  %ch6 = tfrt_dht.print_tensor %y1, %ch5
  tfrt.return %ch6 : !tfrt.chain
}

// One step of a linear classifier on a batch: logits = x W, the mean
// softmax cross-entropy against the labels and its gradient. With W = 0 all
// classes are equally likely, so the loss is ln(4) whatever the batch.
// CHECK-LABEL: --- Running 'training_step':
// CHECK-NEXT: 'training_step' returned DenseHostTensor dtype = f32, shape = [], values = [1.386294e+00],DenseHostTensor dtype = f32, shape = [8, 4]
func.func @training_step() -> (!t.tensor, !t.tensor) {
  %ch0 = tfrt.new.chain
  %ds = tfrt_data.gaussian_clusters_dataset {num_examples = 100 : i64, num_features = 32 : i64, num_classes = 4 : i64, seed = 1 : i64, stddev = 0.5 : f64}
  %minus_one = tfrt.constant.i64 -1
  %repeated = tfrt_data.repeat_dataset %ds, %minus_one
  %eight = tfrt.constant.i64 8
  %batches = tfrt_data.batch_dataset %repeated, %eight {drop_remainder = true}
  %it = tfrt_data.make_iterator %batches
  %ch1, %x, %labels = tfrt_data.iterator_get_next %it, %ch0 : !t.tensor, !t.tensor
  %w = tfrt_dht.create_uninitialized_tensor.f32.2 [32 : i64, 4 : i64]
  %ch2 = tfrt_dht.fill_tensor_with_constant.f32 %w, %ch1 0.0 : f32
  %logits = tfrt_math.matmul.f32 %x, %w, %ch2
  %loss, %gradient = tfrt_math.softmax_cross_entropy.f32 %logits, %labels
  tfrt.return %loss, %gradient : !t.tensor, !t.tensor
}
