// What TFRT leaves undefined or lets through is an error value here, at the
// op that failed, naming the op and the sizes involved; nothing crashes,
// and an op that fails leaves its tensor as it was.
// Every function returns its error; every diagnostic matches its
// annotation, so nothing is printed to stderr and, the status being the
// verification's, the run passes.
// RUN: %sluice_run %s -verify-diagnostics -print_error_code 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=QUIET --allow-empty < %t.stderr
// QUIET-NOT: error

// CHECK-LABEL: --- Running 'buffer_too_small':
// CHECK-NEXT: 'buffer_too_small' returned <<error: tfrt_dht.make_tensor: a tensor of dtype f32 and shape [2, 2] takes 16 bytes, the buffer has 8, code: INVALID_ARGUMENT>>
func.func @buffer_too_small() -> !t.tensor {
  %c0 = tfrt.new.chain
  %size = tfrt.constant.i64 8
  %alignment = tfrt.constant.i64 8
  %buffer = tfrt_dht.allocate_buffer %size, %alignment
  %shape = ts.build_shape [2 : i64, 2 : i64]
  // expected-error @+1 {{tfrt_dht.make_tensor: a tensor of dtype f32 and shape [2, 2] takes 16 bytes, the buffer has 8}}
  %t, %c1 = tfrt_dht.make_tensor.f32 %buffer, %shape, %c0
  tfrt.return %t : !t.tensor
}

// An i1 element is one byte, 0 or 1: the rule a tensor message from a peer
// is checked by (docs/distributed.md), with the same words.
// CHECK-LABEL: --- Running 'i1_bytes_other_than_0_and_1':
// CHECK-NEXT: 'i1_bytes_other_than_0_and_1' returned <<error: tfrt_dht.make_tensor: i1 element 1 holds byte 2: an i1 element is 0 or 1, code: INVALID_ARGUMENT>>
func.func @i1_bytes_other_than_0_and_1() -> !t.tensor {
  %c0 = tfrt.new.chain
  %four = tfrt.constant.i64 4
  %buffer = tfrt_dht.allocate_buffer %four, %four
  %one = ts.build_shape [1 : i64]
  %i32, %c1 = tfrt_dht.make_tensor.i32 %buffer, %one, %c0
  // Little-endian bytes 1, 2, 0, 0.
  %c2 = tfrt_dht.fill_tensor_with_constant.i32 %i32, %c1 513 : i32
  %shape = ts.build_shape [4 : i64]
  // expected-error @+1 {{tfrt_dht.make_tensor: i1 element 1 holds byte 2: an i1 element is 0 or 1}}
  %bools, %c3 = tfrt_dht.make_tensor.i1 %buffer, %shape, %c2
  tfrt.return %bools : !t.tensor
}

// As in TFRT, the buffer must hold the tensor's bytes exactly.
// CHECK-LABEL: --- Running 'buffer_too_large':
// CHECK-NEXT: 'buffer_too_large' returned <<error: tfrt_dht.make_tensor: a tensor of dtype i64 and shape [3] takes 24 bytes, the buffer has 32, code: INVALID_ARGUMENT>>
func.func @buffer_too_large() -> !t.tensor {
  %c0 = tfrt.new.chain
  %size = tfrt.constant.i64 32
  %alignment = tfrt.constant.i64 8
  %buffer = tfrt_dht.allocate_buffer %size, %alignment
  %shape = ts.build_shape [3 : i64]
  // expected-error @+1 {{takes 24 bytes, the buffer has 32}}
  %t, %c1 = tfrt_dht.make_tensor.i64 %buffer, %shape, %c0
  tfrt.return %t : !t.tensor
}

// CHECK-LABEL: --- Running 'misaligned':
// CHECK-NEXT: 'misaligned' returned <<error: tfrt_dht.make_tensor: a buffer at HostBuffer<pointer=0x{{[0-9a-f]+}}, size=4> is not aligned for f32 elements, code: INVALID_ARGUMENT>>
func.func @misaligned() -> !t.tensor {
  %c0 = tfrt.new.chain
  %size = tfrt.constant.i64 8
  %alignment = tfrt.constant.i64 8
  %buffer = tfrt_dht.allocate_buffer %size, %alignment
  %two = tfrt.constant.i64 2
  %four = tfrt.constant.i64 4
  %slice = tfrt_dht.get_buffer_slice %buffer, %two, %four
  %shape = ts.build_shape [1 : i64]
  // expected-error @+1 {{is not aligned for f32 elements}}
  %t, %c1 = tfrt_dht.make_tensor.f32 %slice, %shape, %c0
  tfrt.return %t : !t.tensor
}

// CHECK-LABEL: --- Running 'slice_out_of_range':
// CHECK-NEXT: 'slice_out_of_range' returned <<error: tfrt_dht.get_buffer_slice: 16 bytes at offset 4 do not lie inside a buffer of 8 bytes, code: INVALID_ARGUMENT>>
func.func @slice_out_of_range() -> !ht.host_buffer {
  %size = tfrt.constant.i64 8
  %alignment = tfrt.constant.i64 8
  %buffer = tfrt_dht.allocate_buffer %size, %alignment
  %offset = tfrt.constant.i64 4
  %length = tfrt.constant.i64 16
  // expected-error @+1 {{tfrt_dht.get_buffer_slice: 16 bytes at offset 4 do not lie inside a buffer of 8 bytes}}
  %slice = tfrt_dht.get_buffer_slice %buffer, %offset, %length
  tfrt.return %slice : !ht.host_buffer
}

// An offset past the end, and one so large that offset + size wraps.
// CHECK-LABEL: --- Running 'slice_offsets':
// CHECK-NEXT: 'slice_offsets' returned <<error: tfrt_dht.get_buffer_slice: 0 bytes at offset 9 do not lie inside a buffer of 8 bytes, code: INVALID_ARGUMENT>>,<<error: tfrt_dht.get_buffer_slice: 8 bytes at offset 9223372036854775807 do not lie inside a buffer of 8 bytes, code: INVALID_ARGUMENT>>,<<error: tfrt_dht.get_buffer_slice: offset -1 and size 4 must not be negative, code: INVALID_ARGUMENT>>
func.func @slice_offsets() -> (!ht.host_buffer, !ht.host_buffer, !ht.host_buffer) {
  %size = tfrt.constant.i64 8
  %buffer = tfrt_dht.allocate_buffer %size, %size
  %zero = tfrt.constant.i64 0
  %nine = tfrt.constant.i64 9
  %max = tfrt.constant.i64 9223372036854775807
  %minus_one = tfrt.constant.i64 -1
  %four = tfrt.constant.i64 4
  // expected-error @+1 {{0 bytes at offset 9 do not lie inside}}
  %a = tfrt_dht.get_buffer_slice %buffer, %nine, %zero
  // expected-error @+1 {{8 bytes at offset 9223372036854775807 do not lie inside}}
  %b = tfrt_dht.get_buffer_slice %buffer, %max, %size
  // expected-error @+1 {{offset -1 and size 4 must not be negative}}
  %c = tfrt_dht.get_buffer_slice %buffer, %minus_one, %four
  tfrt.return %a, %b, %c : !ht.host_buffer, !ht.host_buffer, !ht.host_buffer
}

// CHECK-LABEL: --- Running 'bad_allocations':
// CHECK-NEXT: 'bad_allocations' returned <<error: tfrt_dht.allocate_buffer: size -8 is negative, code: INVALID_ARGUMENT>>,<<error: tfrt_dht.allocate_buffer: alignment 12 is not a power of two, code: INVALID_ARGUMENT>>,<<error: tfrt_dht.allocate_buffer: alignment 0 is not a power of two, code: INVALID_ARGUMENT>>
func.func @bad_allocations() -> (!ht.host_buffer, !ht.host_buffer, !ht.host_buffer) {
  %minus_eight = tfrt.constant.i64 -8
  %eight = tfrt.constant.i64 8
  %twelve = tfrt.constant.i64 12
  %zero = tfrt.constant.i64 0
  // expected-error @+1 {{tfrt_dht.allocate_buffer: size -8 is negative}}
  %a = tfrt_dht.allocate_buffer %minus_eight, %eight
  // expected-error @+1 {{alignment 12 is not a power of two}}
  %b = tfrt_dht.allocate_buffer %eight, %twelve
  // expected-error @+1 {{alignment 0 is not a power of two}}
  %c = tfrt_dht.allocate_buffer %eight, %zero
  tfrt.return %a, %b, %c : !ht.host_buffer, !ht.host_buffer, !ht.host_buffer
}

// A failed set leaves every element as it was.
// CHECK-LABEL: --- Running 'value_count':
// CHECK-NEXT: DenseHostTensor dtype = i32, shape = [1, 2], values = [7, 7]
// CHECK-NEXT: 'value_count' returned <<error: tfrt_dht.set_tensor_with_constant_values: a tensor of shape [1, 2] holds 2 values, the op gives 3, code: INVALID_ARGUMENT>>,<<error: tfrt_dht.set_tensor_with_values: a tensor of shape [1, 2] holds 2 values, the op gives 1, code: INVALID_ARGUMENT>>
func.func @value_count() -> (!tfrt.chain, !tfrt.chain) {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [1 : i64, 2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %a, %c0 7 : i32
  // expected-error @+1 {{tfrt_dht.set_tensor_with_constant_values: a tensor of shape [1, 2] holds 2 values, the op gives 3}}
  %bad1 = tfrt_dht.set_tensor_with_constant_values.i32 %a, %c1 [1 : i32, -1 : i32, 3 : i32]
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{tfrt_dht.set_tensor_with_values: a tensor of shape [1, 2] holds 2 values, the op gives 1}}
  %bad2 = "tfrt_dht.set_tensor_with_values.i32"(%a, %c1, %one) : (!t.tensor, !tfrt.chain, i32) -> !tfrt.chain
  %c2 = tfrt_dht.print_tensor %a, %c1
  tfrt.return %bad1, %bad2 : !tfrt.chain, !tfrt.chain
}

// The element type in the op's name must be the tensor's.
// CHECK-LABEL: --- Running 'dtype_mismatch':
// CHECK-NEXT: 'dtype_mismatch' returned <<error: tfrt_dht.fill_tensor_with_constant: the op takes f32 tensors, the tensor has dtype i32 (shape [2]), code: INVALID_ARGUMENT>>,<<error: tfrt_dht.set_tensor_with_constant_values: the op takes i1 tensors, the tensor has dtype i32 (shape [2]), code: INVALID_ARGUMENT>>,<<error: tfrt_dht.tensor_equal: the op takes f64 tensors, the tensor has dtype i32 (shape [2]), code: INVALID_ARGUMENT>>,<<error: tfrt_dht.set_tensor_with_values: the op takes i64 tensors, the tensor has dtype i32 (shape [2]), code: INVALID_ARGUMENT>>
func.func @dtype_mismatch() -> (!tfrt.chain, !tfrt.chain, i1, !tfrt.chain) {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.1 [2 : i64]
  // expected-error @+1 {{tfrt_dht.fill_tensor_with_constant: the op takes f32 tensors, the tensor has dtype i32 (shape [2])}}
  %c1 = tfrt_dht.fill_tensor_with_constant.f32 %a, %c0 1.0 : f32
  // expected-error @+1 {{the op takes i1 tensors, the tensor has dtype i32}}
  %c2 = tfrt_dht.set_tensor_with_constant_values.bool %a, %c0 [true, false]
  // expected-error @+1 {{tfrt_dht.tensor_equal: the op takes f64 tensors}}
  %eq, %c3 = tfrt_dht.tensor_equal.f64 %a, %a, %c0
  %v = tfrt.constant.i64 1
  // expected-error @+1 {{the op takes i64 tensors}}
  %c4 = "tfrt_dht.set_tensor_with_values.i64"(%a, %c0, %v, %v) : (!t.tensor, !tfrt.chain, i64, i64) -> !tfrt.chain
  tfrt.return %c1, %c2, %eq, %c4 : !tfrt.chain, !tfrt.chain, i1, !tfrt.chain
}

// TensorShape allows at most 32 dimensions.
// CHECK-LABEL: --- Running 'rank_over_limit':
// CHECK-NEXT: 'rank_over_limit' returned <<error: ts.build_shape: a tensor of rank 33 is over the limit of 32, code: INVALID_ARGUMENT>>
func.func @rank_over_limit() -> !ts.shape {
  // expected-error @+1 {{ts.build_shape: a tensor of rank 33 is over the limit of 32}}
  %s = ts.build_shape [1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64]
  tfrt.return %s : !ts.shape
}

// An error flows as a value: ops downstream of a failed one do not run.
// CHECK-LABEL: --- Running 'error_flows':
// CHECK-NOT: DenseHostTensor
// CHECK-NEXT: 'error_flows' returned <<error: tfrt_dht.make_tensor: a tensor of dtype i32 and shape [4] takes 16 bytes, the buffer has 4, code: INVALID_ARGUMENT>>
func.func @error_flows() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %size = tfrt.constant.i64 4
  %buffer = tfrt_dht.allocate_buffer %size, %size
  %shape = ts.build_shape [4 : i64]
  // expected-error @+1 {{tfrt_dht.make_tensor: a tensor of dtype i32 and shape [4] takes 16 bytes, the buffer has 4}}
  %t, %c1 = tfrt_dht.make_tensor.i32 %buffer, %shape, %c0
  %c2 = tfrt_dht.fill_tensor_with_constant.i32 %t, %c1 1 : i32
  %c3 = tfrt_dht.print_tensor %t, %c2
  tfrt.return %c3 : !tfrt.chain
}

// A kernel given a value that is typed !t.tensor but holds something else
// (made so by an op of another dialect) fails instead of reading it.
// CHECK-LABEL: --- Running 'not_a_tensor':
// CHECK-NEXT: 'not_a_tensor' returned <<error: operand #0 does not hold a value of the type the kernel takes, code: INVALID_ARGUMENT>>
func.func @not_a_tensor() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %t = "tfrt_test.get_thread_id"(%c0) : (!tfrt.chain) -> !t.tensor
  // expected-error @+1 {{operand #0 does not hold a value of the type the kernel takes}}
  %c1 = tfrt_dht.print_tensor %t, %c0
  tfrt.return %c1 : !tfrt.chain
}
