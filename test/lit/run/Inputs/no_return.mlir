// load_errors.mlir: a body that does not end in tfrt.return.
func.func @fine() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

func.func @returns_with_func_return() -> i32 {
  %one = tfrt.constant.i32 1
  func.return %one : i32
}
