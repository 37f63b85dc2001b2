// load_errors.mlir: tfrt.call of a symbol that is no function.
func.func @caller() -> i32 {
  %one = tfrt.constant.i32 1
  %two = tfrt.call @nowhere(%one) : (i32) -> i32
  tfrt.return %two : i32
}
