// A per-worker dataset: one worker's own iterator over 0, 1, 2, taken by
// closures one after another (each waits for the chain of the one before);
// the fourth finds it exhausted: OUT_OF_RANGE, which join reports.
// RUN: %with_workers 1 --expect-exit=1 -- %sluice_run -work_queue_type=mstd -print_error_code %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

func.func @numbers() -> !tfrt_data.iterator {
  %start = tfrt.constant.i64 0
  %stop = tfrt.constant.i64 3
  %step = tfrt.constant.i64 1
  %ds = tfrt_data.range_dataset %start, %stop, %step {element_type = i64}
  %it = tfrt_data.make_iterator %ds
  tfrt.return %it : !tfrt_data.iterator
}

func.func @next(%it: !tfrt_data.iterator, %ch: !tfrt.chain)
    -> (!t.tensor, !tfrt.chain) {
  %ch1, %x = tfrt_data.iterator_get_next %it, %ch : !t.tensor
  tfrt.return %x, %ch1 : !t.tensor, !tfrt.chain
}

// CHECK: --- Running 'numbers':
// CHECK-NEXT: 'numbers' returned !tfrt_data.iterator value
// CHECK-LABEL: --- Running 'epoch':
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [], values = [0]
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [], values = [1]
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [], values = [2]
// CHECK-NEXT: 'epoch' returned <<error: iterator_get_next: the iterator is exhausted after 3 elements, code: OUT_OF_RANGE>>
func.func @epoch() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %data = tfrt_dist.create_per_worker_dataset @numbers()
      : () -> !tfrt_dist.per_worker
  %x0, %c1 = tfrt_dist.schedule @next(%data, %c0)
      : (!tfrt_dist.per_worker, !tfrt.chain) -> (!t.tensor, !tfrt.chain)
  %x1, %c2 = tfrt_dist.schedule @next(%data, %c1)
      : (!tfrt_dist.per_worker, !tfrt.chain) -> (!t.tensor, !tfrt.chain)
  %x2, %c3 = tfrt_dist.schedule @next(%data, %c2)
      : (!tfrt_dist.per_worker, !tfrt.chain) -> (!t.tensor, !tfrt.chain)
  %x3, %c4 = tfrt_dist.schedule @next(%data, %c3)
      : (!tfrt_dist.per_worker, !tfrt.chain) -> (!t.tensor, !tfrt.chain)
  // DIAG: coordinator_dataset.mlir:[[# @LINE + 1]]:13: error: runtime error: iterator_get_next: the iterator is exhausted after 3 elements
  %joined = tfrt_dist.join %c0 after(%c4 : !tfrt.chain)
  %p0 = tfrt_dht.print_tensor %x0, %c0
  %p1 = tfrt_dht.print_tensor %x1, %p0
  %p2 = tfrt_dht.print_tensor %x2, %p1
  %done = tfrt.merge.chains %p2, %joined : !tfrt.chain, !tfrt.chain
  tfrt.return %done : !tfrt.chain
}
