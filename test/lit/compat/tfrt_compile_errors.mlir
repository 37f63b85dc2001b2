// A function that does not end in tfrt.return and a call of a function that
// does not exist, reported as TFRT reports them: in its words, at the op at
// fault (for the missing return, the op that should have been it), once
// each.
// RUN: sluice_translate --mlir-to-sbf -split-input-file -verify-diagnostics %s -o /dev/null
// RUN: sluice_opt -split-input-file -verify-diagnostics %S/Inputs/missing_callee.mlir
// RUN: not sluice_translate --mlir-to-sbf -split-input-file %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %sluice_run %S/Inputs/missing_callee.mlir 2>&1 | FileCheck %s --check-prefix=EXEC
// CHECK: offset :22:3: error: all functions need to have a tfrt.return
// CHECK-NOT: need to have a tfrt.return
// CHECK: offset :5:3: error: 'tfrt.call' op 'missing_callee' does not reference a valid function
// CHECK-NOT: error:
// CHECK: offset :5:8: error: 'tfrt.call' op 'missing_callee' does not reference a valid function
// CHECK-NOT: error:
// EXEC-COUNT-1: error: 'tfrt.call' op 'missing_callee' does not reference a valid function
// EXEC-NOT: error:
// EXEC-NOT: Running

func.func @no_return() {
  %ch = tfrt.new.chain
  // expected-error @+1 {{all functions need to have a tfrt.return}}
  "my.op"(%ch) : (!tfrt.chain) -> ()
}

// -----

func.func @calls_missing() {
  // expected-error @+1 {{'missing_callee' does not reference a valid function}}
  tfrt.call @missing_callee() : () -> ()
  tfrt.return
}

// -----

func.func @calls_missing_for_a_value() -> i32 {
  // expected-error @+1 {{'missing_callee' does not reference a valid function}}
  %r = tfrt.call @missing_callee() : () -> i32
  tfrt.return %r : i32
}
