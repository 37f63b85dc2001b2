// tfrt_compile_errors.mlir: calls of a function that does not exist.
func.func @calls_missing() {
  // expected-error @+1 {{'missing_callee' does not reference a valid function}}
  tfrt.call @missing_callee() : () -> ()
  tfrt.return
}

// -----

func.func @fine() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}
