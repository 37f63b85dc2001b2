// test_cost_op.mlir: costs the verifier of tfrt_test.test_cost refuses.
func.func @zero(%arg: i32) -> i32 {
  // expected-error @+1 {{op cost value must be larger than 0}}
  %r = tfrt_test.test_cost %arg {id = 0 : i64, _tfrt_cost = 0 : i64} : i32
  tfrt.return %r : i32
}

// -----

func.func @negative(%arg: i32) -> i32 {
  // expected-error @+1 {{op cost value must be larger than 0}}
  %r = tfrt_test.test_cost %arg {id = 0 : i64, _tfrt_cost = -1 : i64} : i32
  tfrt.return %r : i32
}

// -----

func.func @most_negative(%arg: i32) -> i32 {
  // expected-error @+1 {{op cost value must be larger than 0}}
  %r = "tfrt_test.test_cost"(%arg) {id = 0 : i64, _tfrt_cost = -9223372036854775808 : i64} : (i32) -> i32
  tfrt.return %r : i32
}

// -----

func.func @not_an_i64(%arg: i32) -> i32 {
  // expected-error @+1 {{op cost value must be an i64 integer}}
  %r = tfrt_test.test_cost %arg {id = 0 : i64, _tfrt_cost = 5 : i32} : i32
  tfrt.return %r : i32
}
