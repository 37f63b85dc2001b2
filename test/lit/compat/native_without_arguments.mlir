// A `tfrt.native` function declared without arguments is run by the runner
// like any other function, its result printed as usual; one with arguments
// is listed as not run.
// RUN: not %sluice_run %s | FileCheck %s
// RUN: sluice_translate --mlir-to-sbf %s | not %sluice_run | FileCheck %s
// RUN: not %sluice_run -functions=native_error,main -print_error_code %s | FileCheck %s --check-prefix=CHOSEN

// CHECK: --- Not running 'native_add' because it has arguments.
// CHECK-NEXT: --- Running 'native_error':
// CHECK-NEXT: 'native_error' returned <<error: something bad happened>>
// CHECK-NEXT: --- Running 'main':
// CHECK-NEXT: 'main' returned 5
// CHOSEN: --- Running 'native_error':
// CHOSEN-NEXT: 'native_error' returned <<error: something bad happened, code: INTERNAL>>
// CHOSEN-NEXT: --- Running 'main':
func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}
func.func private @native_error() -> i32 attributes {tfrt.native}

func.func @main() -> i32 {
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %five = tfrt.call @native_add(%two, %three) : (i32, i32) -> i32
  tfrt.return %five : i32
}
