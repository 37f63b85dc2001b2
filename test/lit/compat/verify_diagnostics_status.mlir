// Under -verify-diagnostics the exit status is the verification's alone, as
// in mlir-opt: 0 when every annotation matched, whatever the functions
// return. Load errors take part like runtime ones: an annotated unknown
// kernel matches, nothing runs, and the run passes.
// RUN: %sluice_run -verify-diagnostics %s | FileCheck %s
// RUN: %sluice_run -verify-diagnostics %S/Inputs/unknown_kernel_expected.mlir 2>&1 | FileCheck %s --check-prefix=LOAD --allow-empty
// An unknown kernel nobody expected still fails, and is printed.
// RUN: not %sluice_run -verify-diagnostics %S/Inputs/unknown_kernel_unexpected.mlir 2>&1 | FileCheck %s --check-prefix=UNEXPECTED

// CHECK-LABEL: --- Running 'returns_error':
// CHECK-NEXT: 'returns_error' returned <<error: something bad happened>>
func.func @returns_error() -> i32 {
  // expected-error @+1 {{something bad happened}}
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}

// LOAD-NOT: {{.}}
// UNEXPECTED: unknown_kernel_unexpected.mlir:5:10: error: unknown kernel name 'my.kernel'
// UNEXPECTED-NEXT: sluice_run: 1 unexpected runtime error(s)
// UNEXPECTED-NOT: Running
