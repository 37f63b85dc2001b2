// A program whose ops the MLIR verifier accepts but whose kernels' C++
// signatures they do not fit is refused when it loads: every bad op is
// reported at its location, nothing runs, and the runner exits 1 (it used to
// die of SIGILL or a segfault, or read the wrong attribute).
// RUN: not %sluice_run %S/Inputs/kernel_contracts.mlir > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: FileCheck %s --check-prefix=NOTHING --allow-empty < %t.out
// CHECK: kernel_contracts.mlir:6:8: error: kernel 'tfrt_test.get_string' needs attribute 'value' (string); the op has none
// CHECK-NEXT: kernel_contracts.mlir:11:8: error: kernel 'tfrt.constant.i32' takes no attribute 'a'
// CHECK-NEXT: kernel_contracts.mlir:16:8: error: kernel 'tfrt_test.async_constant.i32' needs attribute 'value' as i32; the op's is i64
// CHECK-NEXT: kernel_contracts.mlir:21:8: error: kernel 'tfrt_test.flat' needs attribute 'value' as array; the op's is string
// CHECK-NEXT: kernel_contracts.mlir:27:8: error: kernel 'tfrt_test.append_string' takes 2 operands; the op has 1
// CHECK-NEXT: kernel_contracts.mlir:32:12: error: kernel 'tfrt_test.get_string' takes 1 result; the op has 2
// NOTHING-NOT: {{.}}

// A function that calls itself forever returns an error value naming it
// instead of overflowing the stack, an operand of the wrong type is an error
// value too, and the functions after them still run.
// RUN: not %sluice_run %s 2>/dev/null | FileCheck %s --check-prefix=RECURSION
// RECURSION: --- Running 'forever':
// RECURSION-NEXT: 'forever' returned <<error: calls nested deeper than 1000 at a call of 'recurse': unbounded recursion?>>
// RECURSION-NEXT: --- Running 'confused':
// RECURSION-NEXT: 'confused' returned <<error: operand #0 does not hold a value of the type the kernel takes>>
// RECURSION-NEXT: --- Running 'after':
// RECURSION-NEXT: 'after' returned 1

func.func @recurse(%x: i32) -> i32 {
  %y = tfrt.call @recurse(%x) : (i32) -> i32
  tfrt.return %y : i32
}

func.func @forever() -> i32 {
  %x = tfrt.constant.i32 1
  %y = tfrt.call @recurse(%x) : (i32) -> i32
  tfrt.return %y : i32
}

// MLIR does not check the operand types of ops it does not know: the kernel
// finds an i32 where it reads a string, and fails instead of reading it.
func.func @confused() -> !tfrt.string {
  %x = tfrt.constant.i32 1
  %s = "tfrt_test.append_string"(%x, %x) : (i32, i32) -> !tfrt.string
  tfrt.return %s : !tfrt.string
}

func.func @after() -> i32 {
  %x = tfrt.constant.i32 1
  tfrt.return %x : i32
}
