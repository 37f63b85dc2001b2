// tfrt_data errors are values at the op's location: parameters only known
// at run time, and an element that does not fit the op's results.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK-LABEL: --- Running 'shard_index_out_of_range':
// CHECK-NEXT: 'shard_index_out_of_range' returned <<error: shard_dataset: index 4 is outside [0, 4)>>
func.func @shard_index_out_of_range() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %ds = tfrt_data.gaussian_clusters_dataset {num_examples = 8 : i64, num_features = 2 : i64, num_classes = 2 : i64, seed = 1 : i64, stddev = 1.0 : f64}
  %four = tfrt.constant.i64 4
  // DIAG: errors.mlir:[[# @LINE + 1]]:12: error: runtime error: shard_dataset: index 4 is outside [0, 4)
  %shard = tfrt_data.shard_dataset %ds, %four, %four
  %it = tfrt_data.make_iterator %shard
  %ch1, %x, %y = tfrt_data.iterator_get_next %it, %ch0 : !t.tensor, !t.tensor
  tfrt.return %ch1 : !tfrt.chain
}

// CHECK-LABEL: --- Running 'batch_size_zero':
// CHECK-NEXT: 'batch_size_zero' returned <<error: batch_dataset: batch_size must be positive, got 0>>
func.func @batch_size_zero() -> !tfrt_data.dataset {
  %start = tfrt.constant.i64 0
  %stop = tfrt.constant.i64 5
  %step = tfrt.constant.i64 1
  %range = tfrt_data.range_dataset %start, %stop, %step {element_type = i64}
  %zero = tfrt.constant.i64 0
  // DIAG: errors.mlir:[[# @LINE + 1]]:14: error: runtime error: batch_dataset: batch_size must be positive, got 0
  %batches = tfrt_data.batch_dataset %range, %zero
  tfrt.return %batches : !tfrt_data.dataset
}

// CHECK-LABEL: --- Running 'zero_step':
// CHECK-NEXT: 'zero_step' returned <<error: range_dataset: step must not be 0>>
func.func @zero_step() -> !tfrt_data.dataset {
  %zero = tfrt.constant.i64 0
  // DIAG: errors.mlir:[[# @LINE + 1]]:12: error: runtime error: range_dataset: step must not be 0
  %range = tfrt_data.range_dataset %zero, %zero, %zero {element_type = i64}
  tfrt.return %range : !tfrt_data.dataset
}

// A gaussian_clusters element has two components.
// CHECK-LABEL: --- Running 'too_few_results':
// CHECK-NEXT: 'too_few_results' returned <<error: iterator_get_next: the element has 2 components; the op returns 1>>
func.func @too_few_results() -> !t.tensor {
  %ch0 = tfrt.new.chain
  %ds = tfrt_data.gaussian_clusters_dataset {num_examples = 8 : i64, num_features = 2 : i64, num_classes = 2 : i64, seed = 1 : i64, stddev = 1.0 : f64}
  %it = tfrt_data.make_iterator %ds
  // DIAG: errors.mlir:[[# @LINE + 1]]:14: error: runtime error: iterator_get_next: the element has 2 components; the op returns 1
  %ch1, %x = tfrt_data.iterator_get_next %it, %ch0 : !t.tensor
  tfrt.return %x : !t.tensor
}

// The limits that depend on two attributes are checked at run time.
// CHECK-LABEL: --- Running 'too_many_centers':
// CHECK-NEXT: 'too_many_centers' returned <<error: gaussian_clusters_dataset: num_classes 5000 must be positive, and num_classes * num_features at most 2^22 (num_features is 1000)>>
func.func @too_many_centers() -> !tfrt_data.dataset {
  // DIAG: errors.mlir:[[# @LINE + 1]]:9: error: runtime error: gaussian_clusters_dataset: num_classes 5000
  %ds = tfrt_data.gaussian_clusters_dataset {num_examples = 8 : i64, num_features = 1000 : i64, num_classes = 5000 : i64, seed = 1 : i64, stddev = 1.0 : f64}
  tfrt.return %ds : !tfrt_data.dataset
}
