// verify_diagnostics_consumed.mlir: one error expected, one not.
func.func @expected() -> i32 {
  // expected-error @+1 {{something bad happened}}
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}

func.func @unexpected() -> i32 {
  %bad = "tfrt_test.report_error_async"() : () -> i32
  tfrt.return %bad : i32
}

// One diagnostic cannot meet two annotations.
func.func @twice_on_one_line() -> i32 {
  // expected-error @+2 {{something bad happened}}
  // expected-error @+1 {{something bad happened}}
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}
