// verify_diagnostics_status.mlir: an unknown kernel, annotated.
func.func @uses_unknown() -> i32 {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{unknown kernel name 'my.kernel'}}
  %two = "my.kernel"(%one) : (i32) -> i32
  tfrt.return %two : i32
}
