// load_errors.mlir: an unknown op of the tfrt namespace, inside a region.
func.func @in_region() -> i32 {
  %one = tfrt.constant.i32 1
  %n = tfrt.constant.i32 2
  %r = tfrt.repeat.i32 %n, %one : i32 {
    %two = "tfrt.no_such_kernel"(%one) : (i32) -> i32
    tfrt.return %two : i32
  }
  tfrt.return %r : i32
}
