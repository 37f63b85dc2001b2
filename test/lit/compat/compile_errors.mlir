// The compiler's errors, in TFRT's words, at the offending op.
// RUN: sluice_translate --mlir-to-sbf -split-input-file -verify-diagnostics %s -o /dev/null
// RUN: not sluice_translate --mlir-to-sbf -split-input-file %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: all functions need to have a tfrt.return
// CHECK: error: function @missing not defined
// CHECK: error: function @also_missing not defined
// CHECK: error: BEF files cannot encode the 'type' attribute
// CHECK: error: external functions are not allowed

func.func @ends_in_another_op() {
  %ch = tfrt.new.chain
  // expected-error @+1 {{all functions need to have a tfrt.return}}
  "my.op"(%ch) : (!tfrt.chain) -> ()
}

// -----

// A call of an op no dialect checks, to a missing function.
func.func @calls_missing() -> i32 {
  // expected-error @+1 {{function @missing not defined}}
  %r = "my.call"() {callee = @missing} : () -> i32
  tfrt.return %r : i32
}

// -----

// A function attribute naming a missing function.
// expected-error @+1 {{function @also_missing not defined}}
func.func @with_fallback() attributes {my.fallback = @also_missing} {
  tfrt.return
}

// -----

func.func @unencodable_type() {
  // expected-error @+1 {{BEF files cannot encode the 'type' attribute}}
  "my.op"() {type = tensor<1xf32>} : () -> ()
  tfrt.return
}

// -----

// A type attribute holding an element type encodes fine.
func.func @encodable_type() {
  "my.op"() {type = i32} : () -> ()
  tfrt.return
}

// -----

// expected-error @+1 {{external functions are not allowed}}
func.func private @declared_only(i32) -> i32
