// Verifier and parser errors of the tfrt and tfrt_test dialects.
// RUN: sluice_opt %s -split-input-file -verify-diagnostics

func.func @extra_return_operand() {
  %x = tfrt.constant.i32 1
  // expected-error @+1 {{'tfrt.return' op has 1 operands, but enclosing function returns 0}}
  tfrt.return %x : i32
}

// -----

func.func @return_type_mismatch() -> !tfrt.chain {
  %x = tfrt.constant.i32 1
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('!tfrt.chain')}}
  tfrt.return %x : i32
}

// -----

func.func @unknown_callee() {
  // expected-error @+1 {{'tfrt.call' op 'f' does not reference a valid function}}
  tfrt.call @f() : () -> ()
  tfrt.return
}

// -----

func.func @callee(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @call_arg_mismatch(%x: i64) {
  // expected-error @+1 {{passes (i64) to 'callee', which takes (i32)}}
  %r = tfrt.call @callee(%x) : (i64) -> i32
  tfrt.return
}

// -----

func.func @callee(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @call_result_mismatch(%x: i32) {
  // expected-error @+1 {{expects (i32, i32) from 'callee', which returns (i32)}}
  %r:2 = tfrt.call @callee(%x) : (i32) -> (i32, i32)
  tfrt.return
}

// -----

module {
  func.func @cond_on_non_function(%c: i1) {
    // expected-error @+1 {{'tfrt.cond' op 'nested' does not reference a valid function}}
    tfrt.cond %c @nested @nested () : () -> ()
    tfrt.return
  }
  module @nested {}
}

// -----

func.func @body(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @while_body_without_condition(%c: i1, %x: i32) {
  // expected-error @+1 {{expects (i32, i1) from 'body', which returns (i32)}}
  %r = tfrt.while %c @body(%x) parallel_iterations(1) : (i32) -> (i32)
  tfrt.return
}

// -----

func.func @branch(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @case_with_string_branch(%i: i32) {
  // expected-error @+1 {{branch "branch" is not a function symbol reference}}
  %r = "tfrt.case"(%i, %i) {branches = ["branch"]} : (i32, i32) -> i32
  tfrt.return
}

// -----

func.func @pc(%s: i32, %e: i32) -> i32 {
  tfrt.return %s : i32
}

func.func @parallel_call_result(%i: i32) {
  // expected-error @+1 {{expects (!tfrt.chain) from 'pc', which returns (i32)}}
  %d = tfrt.parallel_call.i32 %i to %i fixed %i @pc()
  tfrt.return
}

// -----

func.func @if_return_mismatch(%c: i1, %x: i32) -> i32 {
  %r = tfrt.if %c, %x : (i32) -> (i32) {
    tfrt.return %x : i32
  } else {
    %f = tfrt.constant.f32 1.0
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.if' result: it returns (f32), 'tfrt.if' expects (i32)}}
    tfrt.return %f : f32
  }
  tfrt.return %r : i32
}

// -----

func.func @if_without_else_with_results(%c: i1, %x: i32) -> i32 {
  %r = tfrt.if %c, %x : (i32) -> (i32) {
    tfrt.return %x : i32
  }
  // expected-error @+1 {{expected 'else' in a tfrt.if with results}}
  tfrt.return %r : i32
}

// -----

func.func @if_block_arguments(%c: i1, %x: i32) {
  // expected-error @+1 {{'tfrt.if' op expects the then region to take arguments (i32), but it takes ()}}
  "tfrt.if"(%c, %x) ({
    "tfrt.return"() : () -> ()
  }, {
  ^bb0(%a: i32):
    "tfrt.return"() : () -> ()
  }) : (i1, i32) -> ()
  tfrt.return
}

// -----

func.func @if_without_return(%c: i1) {
  // expected-error @+1 {{'tfrt.if' op expects the else region to end in tfrt.return}}
  "tfrt.if"(%c) ({
    "tfrt.return"() : () -> ()
  }, {
    "tfrt_test.terminator"() : () -> ()
  }) : (i1) -> ()
  tfrt.return
}

// -----

func.func @multi_block_region(%c: i1) {
  // expected-error @+1 {{'tfrt.if' op region #0 ('then_region') failed to verify constraint: region with 1 blocks}}
  "tfrt.if"(%c) ({
    "tfrt_test.br"() [^bb1] : () -> ()
  ^bb1:
    "tfrt.return"() : () -> ()
  }, {
    "tfrt.return"() : () -> ()
  }) : (i1) -> ()
  tfrt.return
}

// -----

// Region bodies see only their arguments: an outer value is not in scope.
func.func @capture_from_above(%c: i1, %x: i32) -> i32 {
  %r = tfrt.if %c : () -> (i32) {
    // expected-error @+1 {{use of undeclared SSA value name}}
    tfrt.return %x : i32
  } else {
    %y = tfrt.constant.i32 0
    tfrt.return %y : i32
  }
  tfrt.return %r : i32
}

// -----

func.func @repeat_result_mismatch(%n: i32, %x: i32) {
  // expected-error @+1 {{'tfrt.repeat.i32' op loop values (i32) and results (f32) differ}}
  %r = "tfrt.repeat.i32"(%n, %x) ({
  ^bb0(%a: i32):
    "tfrt.return"(%a) : (i32) -> ()
  }) : (i32, i32) -> f32
  tfrt.return
}

// -----

func.func @repeat_body_return(%n: i32, %x: i32) {
  %r = tfrt.repeat.i32 %n, %x : i32 {
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.repeat.i32' result: it returns (), 'tfrt.repeat.i32' expects (i32)}}
    tfrt.return
  }
  tfrt.return
}

// -----

func.func @parallel_for_returns_value(%i: i32, %j: i32) {
  %d = tfrt.parallel_for.i32 %i to %j fixed %i {
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.parallel_for.i32' result: it returns (i32), 'tfrt.parallel_for.i32' expects (!tfrt.chain)}}
    tfrt.return %i : i32
  }
  tfrt.return
}

// -----

func.func @print_needs_a_chain(%x: i32) {
  // expected-note @+1 {{prior use here}}
  %c = tfrt.constant.i64 1
  // expected-error @+1 {{use of value '%c' expects different type than prior uses: '!tfrt.chain' vs 'i64'}}
  %c1 = tfrt.print.i32 %x, %c
  tfrt.return
}

// -----

func.func @do_async_result_mismatch(%x: i32) {
  %r = tfrt_test.do.async %x : (i32) -> (i64) {
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt_test.do.async' result: it returns (i32), 'tfrt_test.do.async' expects (i64)}}
    tfrt.return %x : i32
  }
  tfrt.return
}

// -----

func.func @benchmark_unknown_setting(%x: i32) {
  // expected-error @+1 {{unknown benchmark setting 'max_runs'}}
  %b = tfrt_test.benchmark "b"(%x : i32) duration_secs = 1, max_runs = 3 {
    tfrt.return %x : i32
  }
  tfrt.return
}

// -----

func.func @benchmark_needs_max_count(%x: i32) {
  // expected-error @+1 {{'tfrt_test.benchmark' op requires attribute 'max_count'}}
  %b = tfrt_test.benchmark "b"(%x : i32) duration_secs = 1 {
    tfrt.return %x : i32
  }
  tfrt.return
}

// -----

func.func @constant_of_wrong_type() {
  // expected-error @+1 {{'tfrt.constant.i32' op attribute 'value' failed to satisfy constraint: 32-bit signless integer attribute}}
  %x = "tfrt.constant.i32"() {value = 1 : i64} : () -> i32
  tfrt.return
}

// -----

func.func @generic_op_wrong_operand_type(%x: i32) {
  // expected-error @+1 {{'tfrt.div.f32' op operand #0 must be 32-bit float, but got 'i32'}}
  %q = "tfrt.div.f32"(%x, %x) : (i32, i32) -> f32
  tfrt.return
}

// -----

func.func @generic_op_wrong_result_type(%x: i64) {
  // expected-error @+1 {{'tfrt.lessequal.i64' op result #0 must be 1-bit signless integer, but got 'i64'}}
  %b = "tfrt.lessequal.i64"(%x, %x) : (i64, i64) -> i64
  tfrt.return
}

// -----

func.func @generic_op_extra_operand_not_chain(%x: i32) {
  // expected-error @+1 {{'tfrt.minus.i32' op operand #2 must be an ordering token for side effects, but got 'i32'}}
  %d = "tfrt.minus.i32"(%x, %x, %x) : (i32, i32, i32) -> i32
  tfrt.return
}

// -----

func.func @generic_op_two_chains(%f: f64, %ch: !tfrt.chain) {
  // expected-error @+1 {{'tfrt.cast.f64_to_i64' op operand group starting at #1 requires 0 or 1 element, but found 2}}
  %i = "tfrt.cast.f64_to_i64"(%f, %ch, %ch) : (f64, !tfrt.chain, !tfrt.chain) -> i64
  tfrt.return
}

// -----

func.func @generic_op_missing_operand(%f: f32) {
  // expected-error @+1 {{'tfrt.multiply.f32' op expected 2 or more operands, but found 1}}
  %p = "tfrt.multiply.f32"(%f) : (f32) -> f32
  tfrt.return
}
