// Workers run tensor kernels: a remote function builds and compares tensors
// and returns what crosses the wire (an i1 and the error of a failed op).
// The returned error fails the run.
// RUN: not %with_workers 1 -- %sluice_run %s -print_error_code | FileCheck %s

// Whether [n, n] built two ways is equal, and the error of a make_tensor
// over a buffer too small for it.
func.func @compare(%n: i32) -> (i1, !tfrt.chain) {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.1 [2 : i64]
  %c1 = "tfrt_dht.set_tensor_with_values.i32"(%a, %c0, %n, %n) : (!t.tensor, !tfrt.chain, i32, i32) -> !tfrt.chain
  %b = tfrt_dht.create_uninitialized_tensor.i32.1 [2 : i64]
  %c2 = tfrt_dht.fill_tensor_with_constant.i32 %b, %c1 7 : i32
  %equal, %c3 = tfrt_dht.tensor_equal.i32 %a, %b, %c2
  %size = tfrt.constant.i64 4
  %buffer = tfrt_dht.allocate_buffer %size, %size
  %shape = ts.build_shape [2 : i64]
  %t, %c4 = tfrt_dht.make_tensor.i32 %buffer, %shape, %c3
  tfrt.return %equal, %c4 : i1, !tfrt.chain
}

// CHECK: --- Not running 'compare' because it has arguments.
// CHECK-LABEL: --- Running 'main':
// CHECK-NEXT: 'main' returned 1,0,<<error: tfrt_dht.make_tensor: a tensor of dtype i32 and shape [2] takes 8 bytes, the buffer has 4, code: INVALID_ARGUMENT>>
func.func @main() -> (i1, i1, !tfrt.chain) {
  %task = tfrt_dist.get_task_handle "/job:worker/task:0"
  %compare = tfrt_dist.register_function %task @compare
  %seven = tfrt.constant.i32 7
  %eight = tfrt.constant.i32 8
  %same, %ch0 = tfrt_dist.call %compare(%seven) : (i32) -> (i1, !tfrt.chain)
  %other, %ch1 = tfrt_dist.call %compare(%eight) : (i32) -> (i1, !tfrt.chain)
  tfrt.return %same, %other, %ch1 : i1, i1, !tfrt.chain
}
