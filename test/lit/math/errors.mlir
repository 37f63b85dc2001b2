// tfrt_math errors are values: the op's results carry the error, the
// executor records the kernel and the op's location on it, and the runner
// reports it at that location.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr
// The same diagnostics, matched against the expected-error annotations:
// the status is the verification's, whatever the functions return.
// RUN: %sluice_run -verify-diagnostics %s 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY-NOT: error: runtime error
// VERIFY-NOT: was not produced

// CHECK-LABEL: --- Running 'inner_dimensions_differ':
// CHECK-NEXT: 'inner_dimensions_differ' returned <<error: matmul: [2, 3] x [2, 3]: inner dimensions differ>>
func.func @inner_dimensions_differ() -> !t.tensor {
  %x = tfrt_math.random_uniform.f32 [2, 3] {low = 0.0 : f32, high = 1.0 : f32, seed = 1 : i64}
  // DIAG: errors.mlir:[[# @LINE + 1]]:8: error: runtime error: matmul: [2, 3] x [2, 3]: inner dimensions differ
  %p = tfrt_math.matmul.f32 %x, %x // expected-error {{matmul: [2, 3] x [2, 3]: inner dimensions differ}}
  tfrt.return %p : !t.tensor
}

// The dtype in the op's name is checked against the operands: the bytes
// are never read as another type.
// CHECK-LABEL: --- Running 'dtype_suffix_mismatch':
// CHECK-NEXT: 'dtype_suffix_mismatch' returned <<error: add: operand #0 is an f32 tensor of shape [2]; tfrt_math.add.f64 takes f64>>
func.func @dtype_suffix_mismatch() -> !t.tensor {
  %x = tfrt_math.random_uniform.f32 [2] {low = 0.0 : f32, high = 1.0 : f32, seed = 1 : i64}
  // DIAG: errors.mlir:[[# @LINE + 1]]:8: error: runtime error: add: operand #0 is an f32 tensor of shape [2]; tfrt_math.add.f64 takes f64
  %s = tfrt_math.add.f64 %x, %x // expected-error {{add: operand #0 is an f32 tensor}}
  tfrt.return %s : !t.tensor
}

// An error flows on: the ops that take it do not run and report nothing;
// the function returns it.
// CHECK-LABEL: --- Running 'error_flows_on':
// CHECK-NEXT: 'error_flows_on' returned <<error: softmax_cross_entropy: label 5 of row 1 is outside [0, 3)>>
func.func @error_flows_on() -> !t.tensor {
  %ch0 = tfrt.new.chain
  %logits = tfrt_math.random_normal.f32 [2, 3] {mean = 0.0 : f32, stddev = 1.0 : f32, seed = 1 : i64}
  %labels = tfrt_dht.create_uninitialized_tensor.i64.1 [2 : i64]
  %ch1 = tfrt_dht.set_tensor_with_constant_values.i64 %labels, %ch0 [0 : i64, 5 : i64]
  // DIAG: errors.mlir:[[# @LINE + 1]]:18: error: runtime error: softmax_cross_entropy: label 5 of row 1 is outside [0, 3)
  %loss, %grad = tfrt_math.softmax_cross_entropy.f32 %logits, %labels, %ch1 // expected-error {{label 5 of row 1 is outside [0, 3)}}
  %step = tfrt_math.scale.f32 %grad {factor = 0.1 : f32}
  %updated = tfrt_math.sub.f32 %logits, %step
  tfrt.return %updated : !t.tensor
}

// CHECK-LABEL: --- Running 'integer_division_by_zero':
// CHECK-NEXT: 'integer_division_by_zero' returned <<error: div: division by zero: element 0 of the divisor [] is 0>>
func.func @integer_division_by_zero() -> !t.tensor {
  %x = tfrt_dht.create_uninitialized_tensor.i32.1 [3 : i64]
  %zero = tfrt_dht.create_uninitialized_tensor.i32.0 []
  // DIAG: errors.mlir:[[# @LINE + 1]]:8: error: runtime error: div: division by zero
  %q = tfrt_math.div.i32 %x, %zero // expected-error {{div: division by zero}}
  tfrt.return %q : !t.tensor
}

// CHECK-LABEL: --- Running 'rows_past_the_end':
// CHECK-NEXT: 'rows_past_the_end' returned <<error: slice_rows: 2 rows from row 3 are past the end of [4, 2], which has 4>>
func.func @rows_past_the_end() -> !t.tensor {
  %x = tfrt_dht.create_uninitialized_tensor.f32.2 [4 : i64, 2 : i64]
  %begin = tfrt.constant.i64 3
  %size = tfrt.constant.i64 2
  // DIAG: errors.mlir:[[# @LINE + 1]]:8: error: runtime error: slice_rows: 2 rows from row 3
  %b = tfrt_math.slice_rows %x, %begin, %size // expected-error {{slice_rows: 2 rows from row 3}}
  tfrt.return %b : !t.tensor
}

// CHECK-LABEL: --- Running 'axis_out_of_range':
// CHECK-NEXT: 'axis_out_of_range' returned <<error: argmax: axis 2 is outside [-2, 2) for a tensor of shape [4, 2]>>
func.func @axis_out_of_range() -> !t.tensor {
  %x = tfrt_dht.create_uninitialized_tensor.f32.2 [4 : i64, 2 : i64]
  // DIAG: errors.mlir:[[# @LINE + 1]]:8: error: runtime error: argmax: axis 2 is outside [-2, 2)
  %a = tfrt_math.argmax.f32 %x {axis = 2 : i64} // expected-error {{argmax: axis 2 is outside}}
  tfrt.return %a : !t.tensor
}
// DIAG-NOT: error
