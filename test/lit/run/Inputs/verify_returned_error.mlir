// verify_diagnostics.mlir: the diagnostic is expected, the returned error
// still fails the run.
func.func @returned_error() -> i32 {
  // expected-error @+1 {{something bad happened}}
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}
