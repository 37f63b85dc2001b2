// Errors that arrive later: reported from work-queue tasks
// (tfrt_test.report_error_async), on a result that was allocated or
// forwarded (report_error_concrete_async / report_error_indirect_async),
// inside asynchronous regions, and through indirect values. Each is
// reported once, at its op, and flows to its users like any other error.
// RUN: not %sluice_run %s -print_error_code 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK-LABEL: --- Running 'report_error_async':
// CHECK-NEXT: 'report_error_async' returned <<error: something bad happened asynchronously, code: INTERNAL>>
func.func @report_error_async() -> i32 {
  // DIAG: async_errors.mlir:[[# @LINE + 1]]:8: error: runtime error: something bad happened asynchronously
  %x = "tfrt_test.report_error_async"() : () -> i32
  tfrt.return %x : i32
}

// Input 0 succeeds, synchronously or through an indirect value.
// CHECK-LABEL: --- Running 'no_error':
// CHECK-NEXT: 'no_error' returned 0,0,1
func.func @no_error() -> (i32, i32, i32) {
  %zero = tfrt.constant.i32 0
  %one = tfrt.constant.i32 1
  %a = "tfrt_test.report_error_concrete_async"(%zero) : (i32) -> i32
  %b = "tfrt_test.report_error_indirect_async"(%zero) : (i32) -> i32
  %c = tfrt.add.i32 %b, %one
  tfrt.return %a, %b, %c : i32, i32, i32
}

// The users of a value that fails later are skipped once it does.
// CHECK-LABEL: --- Running 'concrete_async_error':
// CHECK-NEXT: 'concrete_async_error' returned <<error: something bad happened asynchronously, code: INTERNAL>>,<<error: something bad happened asynchronously, code: INTERNAL>>
func.func @concrete_async_error() -> (i32, i32) {
  %one = tfrt.constant.i32 1
  // DIAG: async_errors.mlir:[[# @LINE + 1]]:8: error: runtime error: something bad happened asynchronously
  %x = "tfrt_test.report_error_concrete_async"(%one) : (i32) -> i32
  %y = tfrt.add.i32 %x, %one
  %ch = tfrt.new.chain
  %ch1 = tfrt.print.i32 %y, %ch
  tfrt.return %x, %y : i32, i32
}

// CHECK-LABEL: --- Running 'indirect_async_error':
// CHECK-NEXT: 'indirect_async_error' returned <<error: something bad happened asynchronously, code: INTERNAL>>,<<error: something bad happened asynchronously, code: INTERNAL>>
func.func @indirect_async_error() -> (i32, i32) {
  %two = tfrt.constant.i32 2
  // DIAG: async_errors.mlir:[[# @LINE + 1]]:8: error: runtime error: something bad happened asynchronously
  %x = "tfrt_test.report_error_indirect_async"(%two) : (i32) -> i32
  %y = "tfrt_test.make_indirect"(%x) : (i32) -> i32
  %z = "tfrt_test.async_copy.i32"(%y) : (i32) -> i32
  tfrt.return %y, %z : i32, i32
}

// Ignored: nobody uses the value, the function succeeds, the diagnostic is
// still reported.
// CHECK-LABEL: --- Running 'ignored_async_error':
// CHECK-NEXT: 'ignored_async_error' returned 5
func.func @ignored_async_error() -> i32 {
  %one = tfrt.constant.i32 1
  // DIAG: async_errors.mlir:[[# @LINE + 1]]:8: error: runtime error: something bad happened asynchronously
  %x = "tfrt_test.report_error_indirect_async"(%one) : (i32) -> i32
  %five = tfrt.constant.i32 5
  tfrt.return %five : i32
}

// An error made inside an asynchronous region comes out of its results.
// CHECK-LABEL: --- Running 'error_in_async_region':
// CHECK-NEXT: 'error_in_async_region' returned 4,<<error: something bad happened, code: INTERNAL>>
func.func @error_in_async_region() -> (i32, i32) {
  %four = tfrt.constant.i32 4
  %r:2 = tfrt_test.do.async %four : (i32) -> (i32, i32) {
    // DIAG: async_errors.mlir:[[# @LINE + 1]]:17: error: runtime error: something bad happened
    %ok, %bad = "tfrt_test.partial_fail"() : () -> (i32, i32)
    %sum = tfrt.add.i32 %four, %bad
    tfrt.return %four, %sum : i32, i32
  }
  tfrt.return %r#0, %r#1 : i32, i32
}

// A late error condition: tfrt.if waits for it, then fails every result.
// CHECK-LABEL: --- Running 'async_error_condition':
// CHECK-NEXT: 'async_error_condition' returned <<error: something bad happened asynchronously, code: INTERNAL>>
func.func @async_error_condition() -> i32 {
  %one = tfrt.constant.i32 1
  // DIAG: async_errors.mlir:[[# @LINE + 1]]:8: error: runtime error: something bad happened asynchronously
  %x = "tfrt_test.report_error_async"() : () -> i32
  %cond = tfrt.equal.i32 %x, %one
  %r = tfrt.if %cond, %one : (i32) -> (i32) {
    tfrt.return %one : i32
  } else {
    tfrt.return %one : i32
  }
  tfrt.return %r : i32
}

// Errors through calls: the callee's error is the caller's result.
// CHECK: --- Not running 'fails_later' because it has arguments.
func.func @fails_later(%x: i32) -> i32 {
  // DIAG: async_errors.mlir:[[# @LINE + 1]]:8: error: runtime error: something bad happened asynchronously
  %y = "tfrt_test.report_error_concrete_async"(%x) : (i32) -> i32
  tfrt.return %y : i32
}

// CHECK-LABEL: --- Running 'error_through_call':
// CHECK-NEXT: 'error_through_call' returned 0,<<error: something bad happened asynchronously, code: INTERNAL>>
func.func @error_through_call() -> (i32, i32) {
  %zero = tfrt.constant.i32 0
  %seven = tfrt.constant.i32 7
  %good = tfrt.call @fails_later(%zero) : (i32) -> i32
  %bad = tfrt.call @fails_later(%seven) : (i32) -> i32
  tfrt.return %good, %bad : i32, i32
}
// DIAG-NOT: error
