// Integer and float division by zero fail with TFRT's message, `Divide by
// zero`, on every result, with a diagnostic at the op.
// RUN: not %sluice_run -print_error_code %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr
// RUN: %sluice_run -verify-diagnostics %s > /dev/null

// CHECK-LABEL: --- Running 'div_i32':
// CHECK-NEXT: 'div_i32' returned <<error: Divide by zero, code: INTERNAL>>,<<error: Divide by zero, code: INTERNAL>>
func.func @div_i32() -> (i32, i32) {
  %seven = tfrt.constant.i32 7
  %zero = tfrt.constant.i32 0
  // DIAG: divide_by_zero.mlir:[[# @LINE + 2]]:12: error: runtime error: Divide by zero
  // expected-error @+1 {{Divide by zero}}
  %q, %r = tfrt.div.i32 %seven, %zero
  tfrt.return %q, %r : i32, i32
}

// CHECK-LABEL: --- Running 'div_i64':
// CHECK-NEXT: 'div_i64' returned <<error: Divide by zero, code: INTERNAL>>,<<error: Divide by zero, code: INTERNAL>>
func.func @div_i64() -> (i64, i64) {
  %seven = tfrt.constant.i64 7
  %zero = tfrt.constant.i64 0
  // expected-error @+1 {{Divide by zero}}
  %q, %r = tfrt.div.i64 %seven, %zero
  tfrt.return %q, %r : i64, i64
}

// CHECK-LABEL: --- Running 'div_f32':
// CHECK-NEXT: 'div_f32' returned <<error: Divide by zero, code: INTERNAL>>
func.func @div_f32() -> f32 {
  %one = tfrt.constant.f32 1.0
  %zero = tfrt.constant.f32 0.0
  // expected-error @+1 {{Divide by zero}}
  %q = "tfrt.div.f32"(%one, %zero) : (f32, f32) -> f32
  tfrt.return %q : f32
}

// A divisor that is not zero divides.
// CHECK-LABEL: --- Running 'div_ok':
// CHECK-NEXT: 'div_ok' returned -3,-1
func.func @div_ok() -> (i32, i32) {
  %a = tfrt.constant.i32 -7
  %b = tfrt.constant.i32 2
  %q, %r = tfrt.div.i32 %a, %b
  tfrt.return %q, %r : i32, i32
}
