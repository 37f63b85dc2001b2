// Batches of a range, the last one smaller, then the exhausted iterator's
// error: every result of iterator_get_next, its chain included.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK-LABEL: --- Running 'range_batches':
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [2], values = [0, 1]
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [2], values = [2, 3]
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [1], values = [4]
// CHECK-NEXT: 'range_batches' returned <<error: iterator_get_next: the iterator is exhausted after 3 elements>>
func.func @range_batches() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %start = tfrt.constant.i64 0
  %stop = tfrt.constant.i64 5
  %step = tfrt.constant.i64 1
  %range = tfrt_data.range_dataset %start, %stop, %step {element_type = i64}
  %two = tfrt.constant.i64 2
  %batches = tfrt_data.batch_dataset %range, %two
  %it = tfrt_data.make_iterator %batches
  %ch1, %a = tfrt_data.iterator_get_next %it, %ch0 : !t.tensor
  %ch2 = tfrt_dht.print_tensor %a, %ch1
  %ch3, %b = tfrt_data.iterator_get_next %it, %ch2 : !t.tensor
  %ch4 = tfrt_dht.print_tensor %b, %ch3
  %ch5, %c = tfrt_data.iterator_get_next %it, %ch4 : !t.tensor
  %ch6 = tfrt_dht.print_tensor %c, %ch5
  // DIAG: range_batches.mlir:[[# @LINE + 1]]:14: error: runtime error: iterator_get_next: the iterator is exhausted after 3 elements
  %ch7, %d = tfrt_data.iterator_get_next %it, %ch6 : !t.tensor
  %ch8 = tfrt_dht.print_tensor %d, %ch7
  tfrt.return %ch8 : !tfrt.chain
}

// drop_remainder leaves the short batch out; a negative step counts down.
// CHECK-LABEL: --- Running 'drop_remainder':
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [2], values = [10, 7]
// CHECK-NEXT: 'drop_remainder' returned <<error: iterator_get_next: the iterator is exhausted after 1 elements>>
func.func @drop_remainder() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %start = tfrt.constant.i64 10
  %stop = tfrt.constant.i64 2
  %step = tfrt.constant.i64 -3
  %range = tfrt_data.range_dataset %start, %stop, %step {element_type = i64}
  %two = tfrt.constant.i64 2
  %batches = tfrt_data.batch_dataset %range, %two {drop_remainder = true}
  %it = tfrt_data.make_iterator %batches
  %ch1, %a = tfrt_data.iterator_get_next %it, %ch0 : !t.tensor
  %ch2 = tfrt_dht.print_tensor %a, %ch1
  // DIAG: range_batches.mlir:[[# @LINE + 1]]:14: error: runtime error: iterator_get_next: the iterator is exhausted after 1 elements
  %ch3, %b = tfrt_data.iterator_get_next %it, %ch2 : !t.tensor
  tfrt.return %ch3 : !tfrt.chain
}

// Shard 1 of 3 of [0, 8) repeated twice: 1, 4, 7 from each pass, the
// batch running across the passes.
// CHECK-LABEL: --- Running 'shard_of_repeat':
// CHECK-NEXT: 'shard_of_repeat' returned DenseHostTensor dtype = i64, shape = [5], values = [1, 4, 7, 2, 5]
func.func @shard_of_repeat() -> !t.tensor {
  %ch0 = tfrt.new.chain
  %start = tfrt.constant.i64 0
  %stop = tfrt.constant.i64 8
  %step = tfrt.constant.i64 1
  %range = tfrt_data.range_dataset %start, %stop, %step {element_type = i64}
  %count = tfrt.constant.i64 2
  %twice = tfrt_data.repeat_dataset %range, %count
  %three = tfrt.constant.i64 3
  %one = tfrt.constant.i64 1
  %shard = tfrt_data.shard_dataset %twice, %three, %one
  %five = tfrt.constant.i64 5
  %batches = tfrt_data.batch_dataset %shard, %five
  %it = tfrt_data.make_iterator %batches
  %ch1, %a = tfrt_data.iterator_get_next %it, %ch0 : !t.tensor
  tfrt.return %a : !t.tensor
}
