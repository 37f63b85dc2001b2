// sbf_files.mlir: a runtime error's location survives compilation.
func.func @fails() -> i32 {
  %one = tfrt.constant.i32 1
  %bad = "tfrt_test.fail"() : () -> i32
  %sum = tfrt.add.i32 %one, %bad
  tfrt.return %sum : i32
}
