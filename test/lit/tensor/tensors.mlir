// Dense host tensors as TFRT programs use them: create, fill, set, compare
// and print, for every element type, with i1 spelled `i1` or `bool`.
// RUN: %sluice_run %s | FileCheck %s

// CHECK-LABEL: --- Running 'fill_and_print':
func.func @fill_and_print() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [3 : i64, 2 : i64]
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %a, %c0 0 : i32
  // CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3, 2], values = [0, 0, 0, 0, 0, 0]
  %c2 = tfrt_dht.print_tensor %a, %c1
  %c3 = tfrt_dht.fill_tensor_with_constant.i32 %a, %c2 -7 : i32
  // CHECK-NEXT: DenseHostTensor dtype = i32, shape = [3, 2], values = [-7, -7, -7, -7, -7, -7]
  %c4 = tfrt_dht.print_tensor %a, %c3

  %f = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c5 = tfrt_dht.fill_tensor_with_constant.f32 %f, %c4 1.0 : f32
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2], values = [1.000000e+00, 1.000000e+00]
  %c6 = tfrt_dht.print_tensor %f, %c5

  %d = tfrt_dht.create_uninitialized_tensor.f64.3 [1 : i64, 1 : i64, 2 : i64]
  %c7 = tfrt_dht.fill_tensor_with_constant.f64 %d, %c6 -2.5 : f64
  // CHECK-NEXT: DenseHostTensor dtype = f64, shape = [1, 1, 2], values = [-2.500000e+00, -2.500000e+00]
  %c8 = tfrt_dht.print_tensor %d, %c7

  %l = tfrt_dht.create_uninitialized_tensor.i64.4 [1 : i64, 1 : i64, 1 : i64, 1 : i64]
  %c9 = tfrt_dht.fill_tensor_with_constant.i64 %l, %c8 9000000000 : i64
  // CHECK-NEXT: DenseHostTensor dtype = i64, shape = [1, 1, 1, 1], values = [9000000000]
  %c10 = tfrt_dht.print_tensor %l, %c9

  %b = tfrt_dht.create_uninitialized_tensor.bool.1 [3 : i64]
  %c11 = tfrt_dht.fill_tensor_with_constant.bool %b, %c10 true
  // CHECK-NEXT: DenseHostTensor dtype = i1, shape = [3], values = [1, 1, 1]
  %c12 = tfrt_dht.print_tensor %b, %c11
  %c13 = tfrt_dht.fill_tensor_with_constant.i1 %b, %c12 false
  // CHECK-NEXT: DenseHostTensor dtype = i1, shape = [3], values = [0, 0, 0]
  %c14 = tfrt_dht.print_tensor %b, %c13
  tfrt.return %c14 : !tfrt.chain
}

// TFRT leaves a new tensor's elements unspecified; Sluice zeroes them.
// CHECK-LABEL: --- Running 'created_zeroed':
func.func @created_zeroed() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.f32.2 [2 : i64, 2 : i64]
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 2], values = [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]
  %c1 = tfrt_dht.print_tensor %a, %c0
  %b = tfrt_dht.create_uninitialized_tensor.i1.1 [2 : i64]
  // CHECK-NEXT: DenseHostTensor dtype = i1, shape = [2], values = [0, 0]
  %c2 = tfrt_dht.print_tensor %b, %c1
  tfrt.return %c2 : !tfrt.chain
}

// A scalar has rank 0 and one element; a dimension of 0 makes an empty
// tensor.
// CHECK-LABEL: --- Running 'scalar_and_empty':
func.func @scalar_and_empty() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %s = tfrt_dht.create_uninitialized_tensor.i32.0 []
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %s, %c0 42 : i32
  // CHECK-NEXT: DenseHostTensor dtype = i32, shape = [], values = [42]
  %c2 = tfrt_dht.print_tensor %s, %c1
  %e = tfrt_dht.create_uninitialized_tensor.f64.2 [3 : i64, 0 : i64]
  %c3 = tfrt_dht.fill_tensor_with_constant.f64 %e, %c2 1.0 : f64
  // CHECK-NEXT: DenseHostTensor dtype = f64, shape = [3, 0], values = []
  %c4 = tfrt_dht.print_tensor %e, %c3
  tfrt.return %c4 : !tfrt.chain
}

// CHECK-LABEL: --- Running 'set_values':
func.func @set_values() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [1 : i64, 2 : i64]
  %c1 = tfrt_dht.set_tensor_with_constant_values.i32 %a, %c0 [1 : i32, -1 : i32]
  // CHECK-NEXT: DenseHostTensor dtype = i32, shape = [1, 2], values = [1, -1]
  %c2 = tfrt_dht.print_tensor %a, %c1

  %b = tfrt_dht.create_uninitialized_tensor.bool.1 [2 : i64]
  %c3 = tfrt_dht.set_tensor_with_constant_values.bool %b, %c2 [false, true]
  // CHECK-NEXT: DenseHostTensor dtype = i1, shape = [2], values = [0, 1]
  %c4 = tfrt_dht.print_tensor %b, %c3

  %f = tfrt_dht.create_uninitialized_tensor.f32.1 [3 : i64]
  %c5 = tfrt_dht.set_tensor_with_constant_values.f32 %f, %c4 [0.5 : f32, -1.25 : f32, 3.0 : f32]
  // CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3], values = [5.000000e-01, -1.250000e+00, 3.000000e+00]
  %c6 = tfrt_dht.print_tensor %f, %c5

  %l = tfrt_dht.create_uninitialized_tensor.i64.1 [3 : i64]
  %v0 = tfrt.constant.i64 5
  %v1 = tfrt.constant.i64 -6
  %v2 = tfrt.constant.i64 7
  %c7 = "tfrt_dht.set_tensor_with_values.i64"(%l, %c6, %v0, %v1, %v2) : (!t.tensor, !tfrt.chain, i64, i64, i64) -> !tfrt.chain
  // CHECK-NEXT: DenseHostTensor dtype = i64, shape = [3], values = [5, -6, 7]
  %c8 = tfrt_dht.print_tensor %l, %c7

  %d = tfrt_dht.create_uninitialized_tensor.f64.2 [1 : i64, 2 : i64]
  %w0 = tfrt.constant.f64 0.25
  %w1 = tfrt.constant.f64 4.0
  %c9 = "tfrt_dht.set_tensor_with_values.f64"(%d, %c8, %w0, %w1) : (!t.tensor, !tfrt.chain, f64, f64) -> !tfrt.chain
  // CHECK-NEXT: DenseHostTensor dtype = f64, shape = [1, 2], values = [2.500000e-01, 4.000000e+00]
  %c10 = tfrt_dht.print_tensor %d, %c9
  tfrt.return %c10 : !tfrt.chain
}

// Equal needs the same shape and the same elements.
// CHECK-LABEL: --- Running 'tensor_equal':
// CHECK-NEXT: int1 = 1
// CHECK-NEXT: int1 = 0
// CHECK-NEXT: int1 = 0
// CHECK-NEXT: int1 = 1
func.func @tensor_equal() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [2 : i64, 2 : i64]
  %c1 = tfrt_dht.set_tensor_with_constant_values.i32 %a, %c0 [1 : i32, 2 : i32, 3 : i32, 4 : i32]
  %b = tfrt_dht.create_uninitialized_tensor.i32.2 [2 : i64, 2 : i64]
  %c2 = tfrt_dht.set_tensor_with_constant_values.i32 %b, %c1 [1 : i32, 2 : i32, 3 : i32, 4 : i32]
  %eq1, %c3 = tfrt_dht.tensor_equal.i32 %a, %b, %c2
  %c4 = tfrt.print.i1 %eq1, %c3

  // Same elements, other values.
  %c5 = tfrt_dht.set_tensor_with_constant_values.i32 %b, %c4 [1 : i32, 2 : i32, 3 : i32, 5 : i32]
  %eq2, %c6 = tfrt_dht.tensor_equal.i32 %a, %b, %c5
  %c7 = tfrt.print.i1 %eq2, %c6

  // Same elements, other shape.
  %r = tfrt_dht.create_uninitialized_tensor.i32.1 [4 : i64]
  %c8 = tfrt_dht.set_tensor_with_constant_values.i32 %r, %c7 [1 : i32, 2 : i32, 3 : i32, 4 : i32]
  %eq3, %c9 = tfrt_dht.tensor_equal.i32 %a, %r, %c8
  %c10 = tfrt.print.i1 %eq3, %c9

  %x = tfrt_dht.create_uninitialized_tensor.bool.1 [2 : i64]
  %y = tfrt_dht.create_uninitialized_tensor.i1.1 [2 : i64]
  %c11 = tfrt_dht.set_tensor_with_constant_values.bool %x, %c10 [true, false]
  %c12 = tfrt_dht.set_tensor_with_constant_values.i1 %y, %c11 [true, false]
  %eq4, %c13 = tfrt_dht.tensor_equal.bool %x, %y, %c12
  %c14 = tfrt.print.i1 %eq4, %c13
  tfrt.return %c14 : !tfrt.chain
}

// print_tensor_shape prints the dimensions alone, as TFRT does;
// ts.print_shape prints `shape = ` before them.
// CHECK-LABEL: --- Running 'shapes':
// CHECK-NEXT: [3, 2]
// CHECK-NEXT: []
// CHECK-NEXT: shape = [3, 2]
// CHECK-NEXT: shape = [4, 1]
// CHECK-NEXT: shape = []
func.func @shapes() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i64.2 [3 : i64, 2 : i64]
  %c1 = "tfrt_dht.print_tensor_shape"(%a, %c0) : (!t.tensor, !tfrt.chain) -> !tfrt.chain
  %s = tfrt_dht.create_uninitialized_tensor.i64.0 []
  %c2 = "tfrt_dht.print_tensor_shape"(%s, %c1) : (!t.tensor, !tfrt.chain) -> !tfrt.chain
  %shape = tfrt_dht.get_tensor_shape %a
  ts.print_shape %shape, %c2
  %built = ts.build_shape [4 : i64, 1 : i64]
  ts.print_shape %built, %c2
  %scalar = ts.build_shape []
  ts.print_shape %scalar, %c2
  tfrt.return %c2 : !tfrt.chain
}

// The runner prints a returned tensor, shape or buffer as the print ops do.
// CHECK-LABEL: --- Running 'returns':
// CHECK-NEXT: 'returns' returned DenseHostTensor dtype = i32, shape = [2], values = [3, 4],[2],HostBuffer<pointer=0x{{[0-9a-f]+}}, size=8>
func.func @returns() -> (!t.tensor, !ts.shape, !ht.host_buffer) {
  %c0 = tfrt.new.chain
  %a = tfrt_dht.create_uninitialized_tensor.i32.1 [2 : i64]
  %c1 = tfrt_dht.set_tensor_with_constant_values.i32 %a, %c0 [3 : i32, 4 : i32]
  %shape = tfrt_dht.get_tensor_shape %a
  %buffer, %c2 = tfrt_dht.get_buffer %a, %c1
  tfrt.return %a, %shape, %buffer : !t.tensor, !ts.shape, !ht.host_buffer
}

// A value typed as a tensor, shape or buffer by an op of another dialect
// that made it hold something else prints in the generic form.
// CHECK-LABEL: --- Running 'mislabeled':
// CHECK-NEXT: 'mislabeled' returned !t.tensor value,!ts.shape value,!ht.host_buffer value
func.func @mislabeled() -> (!t.tensor, !ts.shape, !ht.host_buffer) {
  %c = tfrt.new.chain
  %t = "tfrt_test.get_thread_id"(%c) : (!tfrt.chain) -> !t.tensor
  %s = "tfrt_test.get_thread_id"(%c) : (!tfrt.chain) -> !ts.shape
  %b = "tfrt_test.get_thread_id"(%c) : (!tfrt.chain) -> !ht.host_buffer
  tfrt.return %t, %s, %b : !t.tensor, !ts.shape, !ht.host_buffer
}
