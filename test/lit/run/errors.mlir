// Errors are values: a failed kernel's results carry the error, kernels that
// take it are skipped, an error nobody uses is ignored, and only kernels
// that fail emit a diagnostic.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr
// RUN: %sluice_run %s -verify-diagnostics -functions=ignored_error

// CHECK-LABEL: --- Running 'partial_failure':
// CHECK-NEXT: 'partial_failure' returned 1,<<error: something bad happened>>
func.func @partial_failure() -> (i32, i32) {
  // DIAG: errors.mlir:[[# @LINE + 1]]:12: error: runtime error: something bad happened
  %a, %b = "tfrt_test.partial_fail"() : () -> (i32, i32)
  tfrt.return %a, %b : i32, i32
}

// CHECK-LABEL: --- Running 'ignored_error':
// CHECK-NEXT: 'ignored_error' returned 2
func.func @ignored_error() -> i32 {
  // expected-error @+1 {{something bad happened}}
  %bad = "tfrt_test.fail"() : () -> i32
  %two = tfrt.constant.i32 2
  tfrt.return %two : i32
}

// The error reaches the result through the add, which does not run and
// reports nothing.
// CHECK-LABEL: --- Running 'returned_error':
// CHECK-NEXT: 'returned_error' returned <<error: something bad happened>>
func.func @returned_error() -> i32 {
  // DIAG: errors.mlir:[[# @LINE + 1]]:10: error: runtime error: something bad happened
  %bad = "tfrt_test.fail"() : () -> i32
  %one = tfrt.constant.i32 1
  %sum = tfrt.add.i32 %bad, %one
  tfrt.return %sum : i32
}
// DIAG-NOT: error
