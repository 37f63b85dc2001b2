// The verifier's messages, in TFRT's words.
// RUN: sluice_opt -split-input-file -verify-diagnostics %s
// RUN: sluice_translate --mlir-to-sbf -split-input-file -verify-diagnostics %s -o /dev/null
// RUN: not sluice_translate --mlir-to-sbf -split-input-file %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: 'tfrt.return' op operand types don't match 'tfrt.if' result
// CHECK: error: 'tfrt.return' op has 1 operands, but enclosing function returns 0
// CHECK: error: type of return operand 0 ('i32') doesn't match function result type ('!tfrt.chain')
// CHECK: error: 'tfrt.call' op 'nowhere' does not reference a valid function

func.func @if_returns_the_wrong_type(%cond: i1, %x: i32) -> i32 {
  %r = tfrt.if %cond, %x : (i32) -> (i32) {
    %f = tfrt.constant.f32 1.0
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.if' result}}
    tfrt.return %f : f32
  } else {
    tfrt.return %x : i32
  }
  tfrt.return %r : i32
}

// -----

func.func @returns_too_much() {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{'tfrt.return' op has 1 operands, but enclosing function returns 0}}
  tfrt.return %one : i32
}

// -----

func.func @returns_the_wrong_type() -> !tfrt.chain {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('!tfrt.chain')}}
  tfrt.return %one : i32
}

// -----

func.func @calls_nothing() {
  // expected-error @+1 {{'nowhere' does not reference a valid function}}
  tfrt.call @nowhere() : () -> ()
  tfrt.return
}
