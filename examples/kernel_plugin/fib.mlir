// Runs with my.* kernels from a plugin or a runner of one's own:
//   sluice_run --kernel_plugin=my_kernels_plugin.so --args=fib:20 fib.mlir
func.func @fib(%n: i64) -> i64 {
  %f = "my.fib.i64"(%n) : (i64) -> i64
  tfrt.return %f : i64
}

func.func @clamped() -> i32 {
  %x = tfrt.constant.i32 42
  %y = "my.clamp.i32"(%x) {low = 0 : i32, high = 10 : i32} : (i32) -> i32
  tfrt.return %y : i32
}
