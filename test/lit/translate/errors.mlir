// Programs the compiler refuses, one per split: verifier errors of the tfrt
// ops and what the SBF format cannot hold.
// RUN: sluice_translate --mlir-to-sbf -split-input-file -verify-diagnostics %s -o /dev/null
// Without -verify-diagnostics the errors fail the translation.
// RUN: not sluice_translate --mlir-to-sbf -split-input-file %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: all functions need to have a tfrt.return
// CHECK: error: external functions are not allowed
// An expectation the compiler does not meet fails the verification.
// RUN: not sluice_translate --mlir-to-sbf -split-input-file -verify-diagnostics %S/Inputs/unmet_expectation.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNMET
// UNMET: error: expected error "all functions need to have a tfrt.return" was not produced

func.func @ends_in_func_return() -> i32 {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{all functions need to have a tfrt.return}}
  func.return %one : i32
}

// -----

// expected-error @+1 {{external functions are not allowed}}
func.func private @external(i32) -> i32

// -----

// A native function is external by design.
func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}

func.func @calls_native() -> i32 {
  %one = tfrt.constant.i32 1
  %two = tfrt.call @native_add(%one, %one) : (i32, i32) -> i32
  tfrt.return %two : i32
}

// -----

// expected-error @+1 {{multi-block regions cannot be emitted to SBF files}}
func.func @two_blocks() -> i32 {
  %one = tfrt.constant.i32 1
  cf.br ^next
^next:
  tfrt.return %one : i32
}

// -----

func.func @multi_block_region() -> i32 {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{region with 1 blocks}}
  %r = "tfrt_test.do.async"(%one) ({
  ^entry(%x: i32):
    "tfrt_test.jump"() [^exit] : () -> ()
  ^exit:
    tfrt.return %x : i32
  }) : (i32) -> i32
  tfrt.return %r : i32
}

// -----

// Region bodies see only their block arguments.
func.func @captures() -> i32 {
  %one = tfrt.constant.i32 1
  %r = "tfrt_test.some_region_op"() ({
    // expected-error @+1 {{SBF executor only supports references to kernels within the current region}}
    %two = tfrt.add.i32 %one, %one
    tfrt.return %two : i32
  }) : () -> i32
  tfrt.return %r : i32
}

// -----

// Isolated region ops reject captures already in the verifier.
func.func @captures_in_isolated_region() -> i32 {
  %one = tfrt.constant.i32 1
  // expected-note @+1 {{required by region isolation constraints}}
  %r = "tfrt_test.do.async"() ({
    // expected-error @+1 {{using value defined outside the region}}
    tfrt.return %one : i32
  }) : () -> i32
  tfrt.return %r : i32
}

// -----

func.func @return_count() -> i32 {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{'tfrt.return' op has 2 operands, but enclosing function returns 1}}
  tfrt.return %one, %one : i32, i32
}

// -----

func.func @return_type() -> !tfrt.chain {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('!tfrt.chain')}}
  tfrt.return %one : i32
}

// -----

func.func @bad_callee() -> i32 {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{'nowhere' does not reference a valid function}}
  %two = tfrt.call @nowhere(%one) : (i32) -> i32
  tfrt.return %two : i32
}

// -----

func.func @takes_i32(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @call_types() -> i32 {
  %one = tfrt.constant.i64 1
  // expected-error @+1 {{passes (i64) to 'takes_i32', which takes (i32)}}
  %two = tfrt.call @takes_i32(%one) : (i64) -> i32
  tfrt.return %two : i32
}

// -----

func.func @cond_symbols() -> i32 {
  %true = tfrt.constant.i1 1
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{'missing_then' does not reference a valid function}}
  %r = tfrt.cond %true @missing_then @missing_else (%one) : (i32) -> (i32)
  tfrt.return %r : i32
}

// -----

func.func @branch(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @case_operands() -> i32 {
  %index = tfrt.constant.i32 0
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{passes (i32, i32) to 'branch', which takes (i32)}}
  %r = tfrt.case %index [@branch, @branch] (%one, %one) : (i32, i32) -> (i32)
  tfrt.return %r : i32
}

// -----

func.func @if_region_results() -> i32 {
  %true = tfrt.constant.i1 1
  %one = tfrt.constant.i32 1
  %r = tfrt.if %true, %one : (i32) -> (i32) {
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.if' result: it returns (i32, i32), 'tfrt.if' expects (i32)}}
    tfrt.return %one, %one : i32, i32
  } else {
    tfrt.return %one : i32
  }
  tfrt.return %r : i32
}

// -----

func.func @repeat_body_results() -> i32 {
  %n = tfrt.constant.i32 1
  %one = tfrt.constant.i32 1
  %r = tfrt.repeat.i32 %n, %one : i32 {
    // expected-error @+1 {{'tfrt.return' op operand types don't match 'tfrt.repeat.i32' result: it returns (), 'tfrt.repeat.i32' expects (i32)}}
    tfrt.return
  }
  tfrt.return %r : i32
}

// -----

func.func @once_arguments() -> i32 {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{passes (i32) to 'once_arguments', which takes ()}}
  %r = tfrt.once @once_arguments(%one) : (i32) -> (i32)
  tfrt.return %r : i32
}

// -----

// Attributes the format has no encoding for.
func.func @vector_attribute() -> i32 {
  // expected-error @+1 {{BEF files cannot encode the 'extra' attribute (dense<[1, 2]> : vector<2xi32>)}}
  %one = "tfrt.constant.i32"() {value = 1 : i32, extra = dense<[1, 2]> : vector<2xi32>} : () -> i32
  tfrt.return %one : i32
}

// -----

func.func @wide_integer_attribute() -> i32 {
  // expected-error @+1 {{BEF files cannot encode the 'extra' attribute (5 : i128)}}
  %one = "tfrt.constant.i32"() {value = 1 : i32, extra = 5 : i128} : () -> i32
  tfrt.return %one : i32
}

// -----

func.func @nested_symbol() -> i32 {
  // expected-error @+1 {{function @outer::@inner not defined}}
  %one = "tfrt_test.takes_symbol"() {callee = @outer::@inner} : () -> i32
  tfrt.return %one : i32
}

// -----

func.func @symbol_of_nothing() -> i32 {
  // expected-error @+1 {{function @nowhere not defined}}
  %one = "tfrt_test.takes_symbol"() {callee = @nowhere} : () -> i32
  tfrt.return %one : i32
}

// -----

// Parse errors are diagnostics too.
func.func @parse_error() -> i32 {
  %one = tfrt.constant.i32 1
  // expected-error @+1 {{custom op 'tfrt.add.i32' 1 operands present, but expected 2}}
  %two = tfrt.add.i32 %one
  tfrt.return %two : i32
}
