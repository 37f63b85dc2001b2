// verify_diagnostics.mlir runs this with -verify-diagnostics: every
// function returns a value, but the annotations do not match.
// An error nobody expected.
func.func @unexpected() -> i32 {
  %bad = "tfrt_test.fail"() : () -> i32
  %two = tfrt.constant.i32 2
  tfrt.return %two : i32
}

// An expectation nothing produces.
func.func @missing() -> i32 {
  // expected-error @+1 {{this is never reported}}
  %two = tfrt.constant.i32 2
  tfrt.return %two : i32
}

func.func @wrong_message() -> i32 {
  // expected-error @+1 {{something good happened}}
  %bad = "tfrt_test.fail"() : () -> i32
  %two = tfrt.constant.i32 2
  tfrt.return %two : i32
}
