// Declares a native function that no library registers (natives.mlir).
func.func private @native_nobody_registered(i32) -> i32 attributes {tfrt.native}

func.func @main() -> i32 {
  %a = tfrt.constant.i32 1
  %b = tfrt.call @native_nobody_registered(%a) : (i32) -> i32
  tfrt.return %b : i32
}
