// Native functions: C++ functions declared with `tfrt.native` and called
// like any other function. The runner lists them like any other function
// (test/lit/compat/native_without_arguments.mlir). Errors they return are
// values only: no diagnostic.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG --allow-empty < %t.stderr
// A native function nobody registered fails the load.
// RUN: not sluice_run %S/Inputs/unknown_native.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// CHECK: --- Not running 'native_add' because it has arguments.
// CHECK-NEXT: --- Not running 'native_async_add' because it has arguments.
// CHECK-NEXT: --- Running 'native_error':
// CHECK-NEXT: 'native_error' returned <<error: something bad happened>>
// CHECK-NEXT: --- Not running 'native_sink' because it has arguments.
// CHECK-NEXT: --- Not running 'native_async_sink' because it has arguments.
func.func private @native_add(%a: i32, %b: i32) -> i32 attributes {tfrt.native}
func.func private @native_async_add(i32, i32) -> i32 attributes {tfrt.native}
func.func private @native_error() -> i32 attributes {tfrt.native}
func.func private @native_sink(i32, i32) -> () attributes {tfrt.native}
func.func private @native_async_sink(i32, i32) -> !tfrt.chain attributes {tfrt.native}

// CHECK-LABEL: --- Running 'add':
// CHECK-NEXT: 'add' returned 3,5
func.func @add() -> (i32, i32) {
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 2
  %sum = tfrt.call @native_add(%a, %b) : (i32, i32) -> i32
  %async_sum = tfrt.call @native_async_add(%sum, %b) : (i32, i32) -> i32
  tfrt.return %sum, %async_sum : i32, i32
}

// Arguments may still be pending when the function is called.
// CHECK-LABEL: --- Running 'pending_arguments':
// CHECK-NEXT: 'pending_arguments' returned 21,42
func.func @pending_arguments() -> (i32, i32) {
  %a = "tfrt_test.async_constant.i32"() {value = 10 : i32} : () -> i32
  %b = "tfrt_test.async_constant.i32"() {value = 11 : i32} : () -> i32
  %sum = tfrt.call @native_add(%a, %b) : (i32, i32) -> i32
  %twice = tfrt.call @native_async_add(%sum, %sum) : (i32, i32) -> i32
  tfrt.return %sum, %twice : i32, i32
}

// CHECK-LABEL: --- Running 'sinks':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: 'sinks' returned !tfrt.chain value
func.func @sinks() -> !tfrt.chain {
  %a = tfrt.constant.i32 1
  %b = "tfrt_test.async_constant.i32"() {value = 2 : i32} : () -> i32
  tfrt.call @native_sink(%a, %b) : (i32, i32) -> ()
  %done = tfrt.call @native_async_sink(%a, %b) : (i32, i32) -> !tfrt.chain
  %ch = "tfrt_test.print_hello"(%done) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch : !tfrt.chain
}

// The error comes back as a value and flows through other natives.
// CHECK-LABEL: --- Running 'error':
// CHECK-NEXT: 'error' returned <<error: something bad happened>>,<<error: something bad happened>>,<<error: something bad happened>>,<<error: something bad happened>>
func.func @error() -> (i32, i32, i32, !tfrt.chain) {
  %bad = tfrt.call @native_error() : () -> i32
  %one = tfrt.constant.i32 1
  %sum = tfrt.call @native_add(%bad, %one) : (i32, i32) -> i32
  %async_sum = tfrt.call @native_async_add(%one, %bad) : (i32, i32) -> i32
  %done = tfrt.call @native_async_sink(%bad, %one) : (i32, i32) -> !tfrt.chain
  tfrt.return %bad, %sum, %async_sum, %done : i32, i32, i32, !tfrt.chain
}

// Unused, the error is ignored.
// CHECK-LABEL: --- Running 'ignored_error':
// CHECK-NEXT: 'ignored_error' returned 4
func.func @ignored_error() -> i32 {
  %bad = tfrt.call @native_error() : () -> i32
  %four = tfrt.constant.i32 4
  tfrt.return %four : i32
}

// Natives called from a region.
// CHECK-LABEL: --- Running 'in_loop':
// CHECK-NEXT: 'in_loop' returned 1024
func.func @in_loop() -> i32 {
  %n = tfrt.constant.i32 10
  %one = tfrt.constant.i32 1
  %r = tfrt.repeat.i32 %n, %one : i32 {
    %twice = tfrt.call @native_async_add(%one, %one) : (i32, i32) -> i32
    tfrt.return %twice : i32
  }
  tfrt.return %r : i32
}
// DIAG-NOT: error

// UNKNOWN: error: unknown native function 'native_nobody_registered'
// UNKNOWN-NOT: --- Running
