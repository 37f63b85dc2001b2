// cost_attribute.mlir: costs that are not positive i64 values.
func.func @zero_cost() -> i32 {
  // expected-error @+1 {{op cost value must be larger than 0}}
  %one = tfrt.constant.i32 1 {_tfrt_cost = 0 : i64}
  tfrt.return %one : i32
}

// -----

func.func @negative_cost() -> i32 {
  // expected-error @+1 {{op cost value must be larger than 0}}
  %one = "my.op"() {_tfrt_cost = -4 : i64} : () -> i32
  tfrt.return %one : i32
}

// -----

func.func @not_an_integer() -> i32 {
  // expected-error @+1 {{op cost value must be an i64 integer}}
  %one = "my.op"() {_tfrt_cost = "high"} : () -> i32
  tfrt.return %one : i32
}
