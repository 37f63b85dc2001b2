// Errors a kernel makes from a plain message (TFRT's MakeStringError,
// tfrt_test.fail, tfrt_test.report_error*, a failed llvm::Expected with a
// string error) carry the code INTERNAL under --print_error_code.
// RUN: not %sluice_run -print_error_code %s 2>/dev/null | FileCheck %s
// Without the flag, the message alone.
// RUN: not %sluice_run %s 2>/dev/null | FileCheck %s --check-prefix=PLAIN

// CHECK-LABEL: --- Running 'synchronous':
// CHECK-NEXT: 'synchronous' returned <<error: something bad happened, code: INTERNAL>>
// PLAIN-LABEL: --- Running 'synchronous':
// PLAIN-NEXT: 'synchronous' returned <<error: something bad happened>>
func.func @synchronous() -> i32 {
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}

// CHECK-LABEL: --- Running 'asynchronous':
// CHECK-NEXT: 'asynchronous' returned <<error: something bad happened asynchronously, code: INTERNAL>>,<<error: something bad happened asynchronously, code: INTERNAL>>,<<error: something bad happened asynchronously, code: INTERNAL>>
func.func @asynchronous() -> (i32, i32, i32) {
  %one = tfrt.constant.i32 1
  %a = "tfrt_test.report_error_async"() : () -> i32
  %b = "tfrt_test.report_error_concrete_async"(%one) : (i32) -> i32
  %c = "tfrt_test.report_error_indirect_async"(%one) : (i32) -> i32
  tfrt.return %a, %b, %c : i32, i32, i32
}

// CHECK-LABEL: --- Running 'partial':
// CHECK-NEXT: 'partial' returned 1,<<error: something bad happened, code: INTERNAL>>
func.func @partial() -> (i32, i32) {
  %one, %bad = "tfrt_test.partial_fail"() : () -> (i32, i32)
  tfrt.return %one, %bad : i32, i32
}

// Other codes keep theirs: cancellation is CANCELLED.
// CHECK-LABEL: --- Running 'cancelled':
// CHECK-NEXT: 'cancelled' returned <<error: Cancelled, code: CANCELLED>>
func.func @cancelled() -> i32 {
  %ch = tfrt.new.chain
  %zero, %ch1 = "tfrt_test.cancel"(%ch) : (!tfrt.chain) -> (i32, !tfrt.chain)
  %one = tfrt.constant.i32 1
  %r = tfrt.add.i32 %zero, %one
  tfrt.return %r : i32
}
