// load_errors.mlir: a region (of an op with no isolation of its own) that
// uses a value from outside.
func.func @captures() -> i32 {
  %one = tfrt.constant.i32 1
  %r = "tfrt_test.some_region_op"() ({
    %two = tfrt.add.i32 %one, %one
    tfrt.return %two : i32
  }) : () -> i32
  tfrt.return %r : i32
}
