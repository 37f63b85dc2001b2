// verify_diagnostics_status.mlir: an unknown kernel, not annotated.
func.func @uses_unknown() -> i32 {
  %one = tfrt.constant.i32 1
  // No annotation.
  %two = "my.kernel"(%one) : (i32) -> i32
  tfrt.return %two : i32
}
