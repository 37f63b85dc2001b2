// Ops that the MLIR verifier lets through (tfrt_test ops without ODS, generic
// forms) but that do not fit their kernels' C++ signatures. Loading reports
// every one of them, each at its op, and runs nothing.

func.func @missing_attribute() -> !tfrt.string {
  %s = "tfrt_test.get_string"() : () -> !tfrt.string
  tfrt.return %s : !tfrt.string
}

func.func @extra_attribute() -> i32 {
  %x = "tfrt.constant.i32"() {value = 1 : i32, a = "hello"} : () -> i32
  tfrt.return %x : i32
}

func.func @wrong_width() -> i32 {
  %x = "tfrt_test.async_constant.i32"() {value = 7 : i64} : () -> i32
  tfrt.return %x : i32
}

func.func @string_for_array() -> i32 {
  %x = "tfrt_test.flat"() {value = "not an array"} : () -> i32
  tfrt.return %x : i32
}

func.func @too_few_operands() -> !tfrt.string {
  %s = "tfrt_test.get_string"() {value = "x"} : () -> !tfrt.string
  %t = "tfrt_test.append_string"(%s) : (!tfrt.string) -> !tfrt.string
  tfrt.return %t : !tfrt.string
}

func.func @too_many_results() -> (!tfrt.string, !tfrt.string) {
  %a, %b = "tfrt_test.get_string"() {value = "x"} : () -> (!tfrt.string, !tfrt.string)
  tfrt.return %a, %b : !tfrt.string, !tfrt.string
}
