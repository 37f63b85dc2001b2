// What the tfrt_dht and ts verifiers refuse: facts about an op that its
// attributes and types already show fail at compile time, at the op.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @rank_mismatch() {
  // expected-error @+1 {{'tfrt_dht.create_uninitialized_tensor.i32.2' op creates a tensor of rank 2 but 'shape' has 3 dimensions}}
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [1 : i64, 2 : i64, 3 : i64]
  tfrt.return
}

// -----

func.func @negative_dimension() {
  // expected-error @+1 {{'tfrt_dht.create_uninitialized_tensor.f32.2' op dimension 1 of 'shape' is negative (-2)}}
  %a = tfrt_dht.create_uninitialized_tensor.f32.2 [3 : i64, -2 : i64]
  tfrt.return
}

// -----

func.func @negative_built_dimension() {
  // expected-error @+1 {{'ts.build_shape' op dimension 0 of 'value' is negative (-1)}}
  %s = ts.build_shape [-1 : i64]
  tfrt.return
}

// -----

func.func @dimensions_are_i64() {
  // expected-error @+1 {{'tfrt_dht.create_uninitialized_tensor.i32.1' op attribute 'shape' failed to satisfy constraint: 64-bit integer array attribute}}
  %a = tfrt_dht.create_uninitialized_tensor.i32.1 [3 : i32]
  tfrt.return
}

// -----

// Rank 5 is not among the ops TFRT defines (ranks 0 to 4).
func.func @rank_five() {
  // expected-error @+1 {{custom op 'tfrt_dht.create_uninitialized_tensor.i32.5' is unknown}}
  %a = tfrt_dht.create_uninitialized_tensor.i32.5 [1 : i64, 1 : i64, 1 : i64, 1 : i64, 1 : i64]
  tfrt.return
}

// -----

// The custom form parses the value as the op's kind of attribute (integer
// or float); the generic form parses any and the verifier refuses it.
func.func @fill_value_of_another_kind(%t: !t.tensor, %c: !tfrt.chain) {
  // expected-error @+1 {{custom op 'tfrt_dht.fill_tensor_with_constant.i32' invalid kind of attribute specified}}
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %t, %c 1.0 : f32
  tfrt.return
}

// -----

func.func @generic_fill_value_of_another_kind(%t: !t.tensor, %c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dht.fill_tensor_with_constant.i32' op attribute 'value' failed to satisfy constraint: 32-bit signless integer attribute}}
  %c1 = "tfrt_dht.fill_tensor_with_constant.i32"(%t, %c) {value = 1.0 : f32} : (!t.tensor, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// -----

func.func @fill_value_of_another_width(%t: !t.tensor, %c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dht.fill_tensor_with_constant.i64' op attribute 'value' failed to satisfy constraint: 64-bit signless integer attribute}}
  %c1 = tfrt_dht.fill_tensor_with_constant.i64 %t, %c 1 : i32
  tfrt.return
}

// -----

func.func @set_values_of_another_type(%t: !t.tensor, %c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dht.set_tensor_with_constant_values.f32' op attribute 'values' failed to satisfy constraint: array of f32 attributes}}
  %c1 = tfrt_dht.set_tensor_with_constant_values.f32 %t, %c [1.0 : f32, 2.0 : f64]
  tfrt.return
}

// -----

func.func @set_with_values_of_another_type(%t: !t.tensor, %c: !tfrt.chain, %v: i32) {
  // expected-error @+1 {{'tfrt_dht.set_tensor_with_values.i64' op operand #2 must be variadic of 64-bit signless integer, but got 'i32'}}
  %c1 = "tfrt_dht.set_tensor_with_values.i64"(%t, %c, %v) : (!t.tensor, !tfrt.chain, i32) -> !tfrt.chain
  tfrt.return
}

// -----

func.func @tensor_where_a_buffer_goes(%t: !t.tensor, %s: !ts.shape, %c: !tfrt.chain) {
  // expected-error @+1 {{'tfrt_dht.make_tensor.f32' op operand #0 must be reference-counted bytes from the host allocator, but got '!t.tensor'}}
  %x, %c1 = "tfrt_dht.make_tensor.f32"(%t, %s, %c) : (!t.tensor, !ts.shape, !tfrt.chain) -> (!t.tensor, !tfrt.chain)
  tfrt.return
}

// -----

func.func @size_is_i64(%size: i32, %alignment: i64) {
  // expected-error @+1 {{'tfrt_dht.allocate_buffer' op operand #0 must be 64-bit signless integer, but got 'i32'}}
  %b = "tfrt_dht.allocate_buffer"(%size, %alignment) : (i32, i64) -> !ht.host_buffer
  tfrt.return
}

// -----

func.func @unknown_op(%t: !t.tensor) {
  // expected-error @+1 {{custom op 'tfrt_dht.no_such_op' is unknown}}
  %x = tfrt_dht.no_such_op %t
  tfrt.return
}
