// load_errors.mlir: the returned value has the wrong type.
func.func @wrong_type() -> !tfrt.chain {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}
