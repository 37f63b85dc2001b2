// -verify-diagnostics: runtime error diagnostics are matched against the
// expected-error annotations of the source. This file's annotations all
// match and no function returns an error, so the run passes and the
// matched diagnostics print nothing.
// RUN: %sluice_run -verify-diagnostics %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=QUIET --allow-empty < %t.stderr
// QUIET-NOT: error

// Without the flag, the same diagnostics are printed and fail the run.
// RUN: not %sluice_run %s 2>&1 >/dev/null | FileCheck %s --check-prefix=PRINTED
// PRINTED-COUNT-6: error: runtime error:
// PRINTED-NOT: error

// Mismatches: each unmatched diagnostic is printed, each expectation that
// was not produced is reported at the line it expects, and the run fails.
// RUN: not %sluice_run -verify-diagnostics %S/Inputs/verify_fail.mlir > %t.fail.stdout 2> %t.fail.stderr
// RUN: FileCheck %s --check-prefix=FAIL < %t.fail.stderr
// RUN: FileCheck %s --check-prefix=FAIL-OUT < %t.fail.stdout
// FAIL-DAG: verify_fail.mlir:5:10: error: runtime error: something bad happened
// FAIL-DAG: verify_fail.mlir:19:10: error: runtime error: something bad happened
// FAIL-DAG: verify_fail.mlir:13: error: expected error "this is never reported" was not produced
// FAIL-DAG: verify_fail.mlir:19: error: expected error "something good happened" was not produced
// FAIL-DAG: sluice_run: 2 unexpected runtime error(s)
// FAIL-OUT: 'unexpected' returned 2
// FAIL-OUT: 'missing' returned 2
// FAIL-OUT: 'wrong_message' returned 2

// As in mlir-opt, the exit status is the verification's alone: a function
// that returns an error value still passes when its diagnostic matched.
// Without the flag the same run fails.
// RUN: %sluice_run -verify-diagnostics %S/Inputs/verify_returned_error.mlir 2>&1 | FileCheck %s --check-prefix=RETURNED
// RUN: not %sluice_run %S/Inputs/verify_returned_error.mlir > /dev/null 2>&1
// RETURNED: 'returned_error' returned <<error: something bad happened>>
// RETURNED-NOT: error:

// CHECK-LABEL: --- Running 'annotation_on_previous_line':
// CHECK-NEXT: 'annotation_on_previous_line' returned 1
func.func @annotation_on_previous_line() -> i32 {
  // expected-error @+1 {{something bad happened}}
  %bad = "tfrt_test.fail"() : () -> i32
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

// CHECK-LABEL: --- Running 'annotation_on_same_line':
// CHECK-NEXT: 'annotation_on_same_line' returned 1
func.func @annotation_on_same_line() -> i32 {
  %one = tfrt.constant.i32 1
  %zero = tfrt.constant.i32 0
  %bad, %also_bad = tfrt.div.i32 %one, %zero // expected-error {{Divide by zero}}
  tfrt.return %one : i32
}

// A substring is enough; an offset can skip lines.
// CHECK-LABEL: --- Running 'substring_and_offset':
// CHECK-NEXT: 'substring_and_offset' returned 1
func.func @substring_and_offset() -> i32 {
  // expected-error @+3 {{bad happened}}
  %one = tfrt.constant.i32 1
  %unused = tfrt.constant.i32 5
  %a, %b = "tfrt_test.partial_fail"() : () -> (i32, i32)
  tfrt.return %a : i32
}

// Asynchronous errors are matched too.
// CHECK-LABEL: --- Running 'async_error':
// CHECK-NEXT: 'async_error' returned 3
func.func @async_error() -> i32 {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{something bad happened asynchronously}}
  %x = "tfrt_test.report_error_concrete_async"(%one) : (i32) -> i32
  %three = tfrt.constant.i32 3
  tfrt.return %three : i32
}

// Two diagnostics from the same op (a region run twice), one annotation each.
// CHECK-LABEL: --- Running 'twice':
// CHECK-NEXT: 'twice' returned 2
func.func @twice() -> i32 {
  %two = tfrt.constant.i32 2
  tfrt.repeat.i32 %two {
    // expected-error @+2 {{something bad happened}}
    // expected-error @+1 {{something bad happened}}
    %bad = "tfrt_test.fail"() : () -> i32
    tfrt.return
  }
  tfrt.return %two : i32
}
