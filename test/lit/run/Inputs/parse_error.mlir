// load_errors.mlir: a syntax error in the second function; the first never
// runs.
func.func @fine() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

func.func @broken() -> i32 {
  %one = tfrt.constant.i32 1
  %two = tfrt.add.i32 %one
  tfrt.return %two : i32
}
