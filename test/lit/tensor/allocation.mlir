// Tensor and buffer bytes come from the host allocator: under the 1 KiB
// test budget, a program that asks for more gets a RESOURCE_EXHAUSTED error
// value from the op that allocates, and the run goes on.
// RUN: not %sluice_run %s -host_allocator_type=test_fixed_size_1k -print_error_code 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK-LABEL: --- Running 'tensor_too_large':
// CHECK-NEXT: 'tensor_too_large' returned <<error: tfrt_dht.create_uninitialized_tensor: cannot allocate an i32 tensor of shape [1000]: the host allocator refused 4000 bytes, code: RESOURCE_EXHAUSTED>>
func.func @tensor_too_large() -> !t.tensor {
  // DIAG: allocation.mlir:[[# @LINE + 1]]:8: error: runtime error: tfrt_dht.create_uninitialized_tensor: cannot allocate an i32 tensor of shape [1000]: the host allocator refused 4000 bytes
  %a = tfrt_dht.create_uninitialized_tensor.i32.1 [1000 : i64]
  tfrt.return %a : !t.tensor
}

// CHECK-LABEL: --- Running 'buffer_too_large':
// CHECK-NEXT: 'buffer_too_large' returned <<error: tfrt_dht.allocate_buffer: the host allocator refused 2048 bytes aligned on 64, code: RESOURCE_EXHAUSTED>>
func.func @buffer_too_large() -> !ht.host_buffer {
  %size = tfrt.constant.i64 2048
  %alignment = tfrt.constant.i64 64
  // DIAG: allocation.mlir:[[# @LINE + 1]]:13: error: runtime error: tfrt_dht.allocate_buffer: the host allocator refused 2048 bytes aligned on 64
  %buffer = tfrt_dht.allocate_buffer %size, %alignment
  tfrt.return %buffer : !ht.host_buffer
}

// Two 600-byte tensors do not fit together: the second fails, the first
// is untouched.
// CHECK-LABEL: --- Running 'second_does_not_fit':
// CHECK-NEXT: DenseHostTensor dtype = i64, shape = [75], values = [3, 3, 3,
// CHECK-NEXT: 'second_does_not_fit' returned <<error: tfrt_dht.create_uninitialized_tensor: cannot allocate an i64 tensor of shape [75]: the host allocator refused 600 bytes, code: RESOURCE_EXHAUSTED>>
func.func @second_does_not_fit() -> !t.tensor {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i64.1 [75 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.i64 %a, %c0 3 : i64
  %c2 = tfrt_dht.print_tensor %a, %c1
  // DIAG: allocation.mlir:[[# @LINE + 1]]:8: error: runtime error: tfrt_dht.create_uninitialized_tensor: cannot allocate an i64 tensor of shape [75]
  %b = tfrt_dht.create_uninitialized_tensor.i64.1 [75 : i64]
  tfrt.return %b : !t.tensor
}

// The failed functions' tensors were freed when they returned, so the
// budget is whole again: 1000 bytes fit.
// CHECK-LABEL: --- Running 'budget_returns':
// CHECK-NEXT: 'budget_returns' returned DenseHostTensor dtype = i32, shape = [250], values = [0, 0,
func.func @budget_returns() -> !t.tensor {
  %a = tfrt_dht.create_uninitialized_tensor.i32.1 [250 : i64]
  tfrt.return %a : !t.tensor
}
// DIAG-NOT: error
