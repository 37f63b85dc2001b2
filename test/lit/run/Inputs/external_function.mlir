// load_errors.mlir: an external function that is not tfrt.native.
func.func private @somewhere_else(i32) -> i32

func.func @fine() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}
