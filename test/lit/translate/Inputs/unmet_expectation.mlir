// errors.mlir: an expectation the compiler does not meet fails
// -verify-diagnostics.
// expected-error @+1 {{all functions need to have a tfrt.return}}
func.func @fine() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}
