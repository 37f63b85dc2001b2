// Verifier and parser errors of the tfrt_math dialect.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @empty_uniform_range() {
  // expected-error @+1 {{'tfrt_math.random_uniform.f32' op range [1, 1) is not finite and non-empty}}
  %t = tfrt_math.random_uniform.f32 [2] {low = 1.0 : f32, high = 1.0 : f32, seed = 0 : i64}
  tfrt.return
}

// -----

func.func @negative_stddev() {
  // expected-error @+1 {{'tfrt_math.random_normal.f64' op mean 0 and stddev -1 must be finite, and stddev not negative}}
  %t = tfrt_math.random_normal.f64 [2] {mean = 0.0 : f64, stddev = -1.0 : f64, seed = 0 : i64}
  tfrt.return
}

// -----

func.func @negative_dimension() {
  // expected-error @+1 {{'tfrt_math.random_normal.f32' op shape dimension #1 is negative (-3)}}
  %t = tfrt_math.random_normal.f32 [2, -3] {mean = 0.0 : f32, stddev = 1.0 : f32, seed = 0 : i64}
  tfrt.return
}

// -----

func.func @attribute_of_another_dtype(%x: !t.tensor) {
  // expected-error @+1 {{'tfrt_math.scale.f32' op attribute 'factor' failed to satisfy constraint: 32-bit float attribute}}
  %t = tfrt_math.scale.f32 %x {factor = 0.5 : f64}
  tfrt.return
}

// -----

func.func @missing_seed() {
  // expected-error @+1 {{'tfrt_math.random_uniform.f64' op requires attribute 'seed'}}
  %t = tfrt_math.random_uniform.f64 [2] {low = 0.0 : f64, high = 1.0 : f64}
  tfrt.return
}

// -----

func.func @argmax_needs_an_axis(%x: !t.tensor) {
  // expected-error @+1 {{'tfrt_math.argmax.f32' op requires attribute 'axis'}}
  %t = tfrt_math.argmax.f32 %x
  tfrt.return
}

// -----

func.func @no_matmul_of_integers(%x: !t.tensor) {
  // expected-error @+1 {{custom op 'tfrt_math.matmul.i32' is unknown}}
  %t = tfrt_math.matmul.i32 %x, %x
  tfrt.return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @operand_not_a_tensor(%x: i32) {
  // expected-error @+1 {{use of value '%x' expects different type than prior uses: '!t.tensor' vs 'i32'}}
  %t = tfrt_math.relu.i32 %x
  tfrt.return
}
