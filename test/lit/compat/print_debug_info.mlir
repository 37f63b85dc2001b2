// tfrt_test.print_debug_info prints the op's name from its location: a name
// location's name; a fused location's names with nothing between them,
// skipping file positions; a call site's callee name; else `Kernel has no
// debug info`. The name survives compiling to a file.
// RUN: %sluice_run %s | FileCheck %s --match-full-lines
// RUN: sluice_translate --mlir-to-sbf %s | %sluice_run | FileCheck %s --match-full-lines

// CHECK-LABEL: --- Running 'names':
// CHECK-NEXT: foo/bar
// CHECK-NEXT: foobar
// CHECK-NEXT: bar
// CHECK-NEXT: Kernel has no debug info
// CHECK-NEXT: Kernel has no debug info
// CHECK-NEXT: inlined
// CHECK-NEXT: 'names' returned !tfrt.chain value
func.func @names() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %ch1 = "tfrt_test.print_debug_info"(%ch0) : (!tfrt.chain) -> !tfrt.chain loc("foo/bar")
  %ch2 = "tfrt_test.print_debug_info"(%ch1) : (!tfrt.chain) -> !tfrt.chain loc(fused["foo", "bar"])
  %ch3 = "tfrt_test.print_debug_info"(%ch2) : (!tfrt.chain) -> !tfrt.chain loc(fused["foo.py":42:314, "bar"])
  %ch4 = "tfrt_test.print_debug_info"(%ch3) : (!tfrt.chain) -> !tfrt.chain
  %ch5 = "tfrt_test.print_debug_info"(%ch4) : (!tfrt.chain) -> !tfrt.chain loc("a.py":1:2)
  %ch6 = "tfrt_test.print_debug_info"(%ch5) : (!tfrt.chain) -> !tfrt.chain loc(callsite("inlined" at "caller.py":3:4))
  tfrt.return %ch6 : !tfrt.chain
}
