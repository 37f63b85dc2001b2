// load_errors.mlir: parses, but tfrt.return does not match the function.
func.func @fine() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

func.func @too_many_results() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one, %one : i32, i32
}
