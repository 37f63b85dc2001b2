// load_errors.mlir: a function body with two blocks.
func.func @two_blocks() -> i32 {
  %one = tfrt.constant.i32 1
  cf.br ^next
^next:
  tfrt.return %one : i32
}
