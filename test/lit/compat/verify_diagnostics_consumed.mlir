// Under -verify-diagnostics a runtime error that an annotation expects is
// consumed: nothing is printed for it, so a function whose error was
// expected prints its header immediately followed by what it returned. An op
// that fails each time it runs (a function also called, a loop body) needs
// one annotation, as in mlir-opt.
// RUN: %sluice_run -verify-diagnostics %s 2> %t.err | FileCheck %s --match-full-lines
// RUN: FileCheck %s --check-prefix=NOTHING --allow-empty < %t.err
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf
// RUN: %sluice_run -verify-diagnostics %t.sbf 2> %t.err | FileCheck %s --match-full-lines
// RUN: FileCheck %s --check-prefix=NOTHING --allow-empty < %t.err
// Only what nobody expected is printed, and fails the run.
// RUN: not %sluice_run -verify-diagnostics %S/Inputs/partly_expected.mlir 2> %t.err | FileCheck %s --check-prefix=PARTLY --match-full-lines
// RUN: FileCheck %s --check-prefix=PARTLY-ERR < %t.err

// NOTHING-NOT: {{.}}

// CHECK: --- Running 'fails':
// CHECK-NEXT: 'fails' returned <<error: something bad happened>>
func.func @fails() -> i32 {
  // expected-error @+1 {{something bad happened}}
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}

// CHECK-NEXT: --- Running 'fails_asynchronously':
// CHECK-NEXT: 'fails_asynchronously' returned <<error: something bad happened asynchronously>>
func.func @fails_asynchronously() -> i32 {
  // expected-error @+1 {{something bad happened asynchronously}}
  %bad = "tfrt_test.report_error_async"() : () -> i32
  tfrt.return %bad : i32
}

// CHECK-NEXT: --- Running 'fails_partly':
// CHECK-NEXT: 'fails_partly' returned 1,<<error: something bad happened>>
func.func @fails_partly() -> (i32, i32) {
  // expected-error @+1 {{something bad happened}}
  %good, %bad = "tfrt_test.partial_fail"() : () -> (i32, i32)
  tfrt.return %good, %bad : i32, i32
}

// CHECK-NEXT: --- Running 'divides_by_zero':
// CHECK-NEXT: 'divides_by_zero' returned <<error: Divide by zero>>
func.func @divides_by_zero() -> i32 {
  %one = tfrt.constant.i32 1
  %zero = tfrt.constant.i32 0
  %q, %r = tfrt.div.i32 %one, %zero // expected-error {{Divide by zero}}
  tfrt.return %q : i32
}

// CHECK-NEXT: --- Running 'fails_in_a_region':
// CHECK-NEXT: 'fails_in_a_region' returned <<error: something bad happened>>
func.func @fails_in_a_region() -> i32 {
  %true = tfrt.constant.i1 true
  %r = tfrt.if %true : () -> (i32) {
    // expected-error @+1 {{something bad happened}}
    %bad = "tfrt_test.fail"() : () -> i32
    tfrt.return %bad : i32
  } else {
    %one = tfrt.constant.i32 1
    tfrt.return %one : i32
  }
  tfrt.return %r : i32
}

// The callee runs on its own, then once per call: three errors, one
// annotation.
// CHECK-NEXT: --- Running 'callee':
// CHECK-NEXT: 'callee' returned <<error: something bad happened>>
func.func @callee() -> i32 {
  // expected-error @+1 {{something bad happened}}
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}

// CHECK-NEXT: --- Running 'calls_twice':
// CHECK-NEXT: 'calls_twice' returned <<error: something bad happened>>,<<error: something bad happened>>
func.func @calls_twice() -> (i32, i32) {
  %a = tfrt.call @callee() : () -> i32
  %b = tfrt.call @callee() : () -> i32
  tfrt.return %a, %b : i32, i32
}

// CHECK-NEXT: --- Running 'fails_in_a_loop':
// CHECK-NEXT: 'fails_in_a_loop' returned !tfrt.chain value
func.func @fails_in_a_loop() -> !tfrt.chain {
  %three = tfrt.constant.i32 3
  %ch = tfrt.new.chain
  %done = tfrt.repeat.i32 %three, %ch : !tfrt.chain {
    // expected-error @+1 {{something bad happened}}
    %bad = "tfrt_test.fail"() : () -> i32
    tfrt.return %ch : !tfrt.chain
  }
  tfrt.return %done : !tfrt.chain
}
// CHECK-NOT: {{.}}

// PARTLY: --- Running 'expected':
// PARTLY-NEXT: 'expected' returned <<error: something bad happened>>
// PARTLY-NEXT: --- Running 'unexpected':
// PARTLY-NEXT: 'unexpected' returned <<error: something bad happened asynchronously>>
// PARTLY-NEXT: --- Running 'twice_on_one_line':
// PARTLY-NEXT: 'twice_on_one_line' returned <<error: something bad happened>>
// PARTLY-ERR-NOT: partly_expected.mlir:4:
// PARTLY-ERR: partly_expected.mlir:9:10: error: runtime error: something bad happened asynchronously
// PARTLY-ERR-NOT: partly_expected.mlir:17:
// PARTLY-ERR: partly_expected.mlir:17: error: expected error "something bad happened" was not produced
// PARTLY-ERR-NEXT: sluice_run: 1 unexpected runtime error(s)
