// load_errors.mlir: ops that parse (unregistered dialects and unknown ops
// of the tfrt namespaces are accepted) but that no kernel implements.
func.func @fine() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

func.func @uses_unknown() -> i32 {
  %one = tfrt.constant.i32 1
  %two = "my.kernel"(%one) : (i32) -> i32
  tfrt.return %two : i32
}
