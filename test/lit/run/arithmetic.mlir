// Constants, arithmetic, comparisons, logic, casts and prints of the tfrt
// dialect: every type variant of each kernel.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr
// RUN: %sluice_run %s -functions=wrap_around,cast_rounding | FileCheck %s --check-prefix=SUBSET

// i1/i32/i64 print as integers, floats as raw_ostream prints a double, and
// every other type as `<type> value`.
// CHECK-LABEL: --- Running 'constants':
// CHECK-NEXT: 'constants' returned 1,0,-7,9000000000,-9000000000,1.500000e+00,-2.250000e+00
func.func @constants() -> (i1, i1, i32, i64, i64, f32, f64) {
  %t = tfrt.constant.i1 true
  %f = tfrt.constant.i1 0
  %a = tfrt.constant.i32 -7
  %b = tfrt.constant.i64 9000000000
  %c = tfrt.constant.i64 -9000000000
  %d = tfrt.constant.f32 1.5
  %e = tfrt.constant.f64 -2.25
  tfrt.return %t, %f, %a, %b, %c, %d, %e : i1, i1, i32, i64, i64, f32, f64
}

// CHECK-LABEL: --- Running 'opaque_constants':
// CHECK-NEXT: 'opaque_constants' returned ui32 value,ui64 value,f16 value,bf16 value,complex<f32> value,complex<f64> value
func.func @opaque_constants() -> (ui32, ui64, f16, bf16, complex<f32>, complex<f64>) {
  %a = tfrt.constant.ui32 4000000000
  %b = tfrt.constant.ui64 18000000000000000000
  %c = tfrt.constant.f16 1.0
  %d = tfrt.constant.bf16 -2.0
  %e = tfrt.constant.complex64 1.0, -1.5
  %f = tfrt.constant.complex128 3.0, 4.5
  tfrt.return %a, %b, %c, %d, %e, %f : ui32, ui64, f16, bf16, complex<f32>, complex<f64>
}

// Generic form works for the ops with custom syntax too.
// CHECK-LABEL: --- Running 'generic_constants':
// CHECK-NEXT: 'generic_constants' returned 5,6,!tfrt.chain value
func.func @generic_constants() -> (i32, i64, !tfrt.chain) {
  %a = "tfrt.constant.i32"() {value = 5 : i32} : () -> i32
  %b = "tfrt.constant.i64"() {value = 6 : i64} : () -> i64
  %ch = "tfrt.new.chain"() : () -> !tfrt.chain
  tfrt.return %a, %b, %ch : i32, i64, !tfrt.chain
}

// CHECK-LABEL: --- Running 'integer_arithmetic':
// CHECK-NEXT: 'integer_arithmetic' returned 4,107,-21,700,-2,1,14,2,10,-93
func.func @integer_arithmetic() -> (i32, i64, i32, i64, i32, i32, i64, i64, i32, i64) {
  %a = tfrt.constant.i32 7
  %b = tfrt.constant.i32 -3
  %c = tfrt.constant.i64 100
  %d = tfrt.constant.i64 7
  %sum = tfrt.add.i32 %a, %b
  %sum64 = tfrt.add.i64 %c, %d
  %prod = tfrt.mul.i32 %a, %b
  %prod64 = tfrt.mul.i64 %c, %d
  // Quotient truncates toward zero; the remainder has the dividend's sign.
  %q, %r = tfrt.div.i32 %a, %b
  %q64, %r64 = tfrt.div.i64 %c, %d
  %diff = "tfrt.minus.i32"(%a, %b) : (i32, i32) -> i32
  %diff64 = "tfrt.minus.i64"(%d, %c) : (i64, i64) -> i64
  tfrt.return %sum, %sum64, %prod, %prod64, %q, %r, %q64, %r64, %diff, %diff64 : i32, i64, i32, i64, i32, i32, i64, i64, i32, i64
}

// CHECK-LABEL: --- Running 'float_arithmetic':
// CHECK-NEXT: 'float_arithmetic' returned -2.500000e+00,8.250000e+00,-6.000000e+00,2.000000e+00,-2.666667e+00,3.125000e-02,-4.000000e+00,2.500000e-01
func.func @float_arithmetic() -> (f32, f64, f32, f64, f32, f64, f32, f64) {
  %a = tfrt.constant.f32 1.5
  %b = tfrt.constant.f32 -4.0
  %c = tfrt.constant.f64 0.25
  %d = tfrt.constant.f64 8.0
  %sum = tfrt.add.f32 %a, %b
  %sum64 = tfrt.add.f64 %c, %d
  %prod = "tfrt.multiply.f32"(%a, %b) : (f32, f32) -> f32
  %prod64 = "tfrt.multiply.f64"(%c, %d) : (f64, f64) -> f64
  %q = "tfrt.div.f32"(%b, %a) : (f32, f32) -> f32
  %q64 = "tfrt.div.f64"(%c, %d) : (f64, f64) -> f64
  %min = "tfrt.minimum.f32"(%a, %b) : (f32, f32) -> f32
  %min64 = "tfrt.minimum.f64"(%d, %c) : (f64, f64) -> f64
  tfrt.return %sum, %sum64, %prod, %prod64, %q, %q64, %min, %min64 : f32, f64, f32, f64, f32, f64, f32, f64
}

// Comparisons give i1. Any kernel takes one extra trailing chain.
// CHECK-LABEL: --- Running 'comparisons':
// CHECK-NEXT: 'comparisons' returned 1,0,1,0,0,1,1,1,0,0
func.func @comparisons() -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %seven = tfrt.constant.i32 7
  %eight = tfrt.constant.i32 8
  %five = tfrt.constant.i64 5
  %six = tfrt.constant.i64 6
  %ch = tfrt.new.chain
  %eq1 = tfrt.equal.i32 %seven, %seven
  %eq2 = tfrt.equal.i32 %seven, %eight
  %eq3 = tfrt.equal.i64 %five, %five
  %eq4 = "tfrt.equal.i64"(%five, %six) : (i64, i64) -> i1
  %le1 = "tfrt.lessequal.i32"(%eight, %seven, %ch) : (i32, i32, !tfrt.chain) -> i1
  %le2 = "tfrt.lessequal.i32"(%seven, %seven) : (i32, i32) -> i1
  %le3 = "tfrt.lessequal.i64"(%five, %six) : (i64, i64) -> i1
  %true = tfrt.constant.i1 1
  %and1 = tfrt.and.i1 %eq1, %true
  %and2 = tfrt.and.i1 %eq1, %eq2
  %and3 = "tfrt.and.i1"(%eq2, %eq4) : (i1, i1) -> i1
  tfrt.return %eq1, %eq2, %eq3, %eq4, %le1, %le2, %le3, %and1, %and2, %and3 : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

// static_cast semantics: truncation toward zero.
// CHECK-LABEL: --- Running 'casts':
// CHECK-NEXT: 'casts' returned 1.886720e+05,1.886720e+05,-2,-3,7
func.func @casts() -> (f32, f64, i64, i64, i64) {
  %n = tfrt.constant.i64 188672
  %f32 = "tfrt.cast.i64_to_f32"(%n) : (i64) -> f32
  %f64 = "tfrt.cast.i64_to_f64"(%n) : (i64) -> f64
  %neg = tfrt.constant.f64 -2.9
  %a = "tfrt.cast.f64_to_i64"(%neg) : (f64) -> i64
  %negf = tfrt.constant.f32 -3.7
  %b = "tfrt.cast.f32_to_i64"(%negf) : (f32) -> i64
  %pos = tfrt.constant.f32 7.99
  %c = "tfrt.cast.f32_to_i64"(%pos) : (f32) -> i64
  tfrt.return %f32, %f64, %a, %b, %c : f32, f64, i64, i64, i64
}

// 737 * (256 / 737.0) is just under 256 in double precision and rounds to
// exactly 256 in single precision; the casts keep those IEEE results.
// CHECK-LABEL: --- Running 'cast_rounding':
// CHECK-NEXT: 'cast_rounding' returned 255,256
// SUBSET: --- Running 'wrap_around':
// SUBSET: --- Running 'cast_rounding':
// SUBSET-NEXT: 'cast_rounding' returned 255,256
func.func @cast_rounding() -> (i64, i64) {
  %n = tfrt.constant.i64 256
  %m = tfrt.constant.i64 737
  %n64 = "tfrt.cast.i64_to_f64"(%n) : (i64) -> f64
  %m64 = "tfrt.cast.i64_to_f64"(%m) : (i64) -> f64
  %n32 = "tfrt.cast.i64_to_f32"(%n) : (i64) -> f32
  %m32 = "tfrt.cast.i64_to_f32"(%m) : (i64) -> f32
  %r64 = "tfrt.div.f64"(%n64, %m64) : (f64, f64) -> f64
  %p64 = "tfrt.multiply.f64"(%m64, %r64) : (f64, f64) -> f64
  %r32 = "tfrt.div.f32"(%n32, %m32) : (f32, f32) -> f32
  %p32 = "tfrt.multiply.f32"(%m32, %r32) : (f32, f32) -> f32
  %i64 = "tfrt.cast.f64_to_i64"(%p64) : (f64) -> i64
  %i32 = "tfrt.cast.f32_to_i64"(%p32) : (f32) -> i64
  tfrt.return %i64, %i32 : i64, i64
}

// Special values, written as bit patterns, print as raw_ostream and printf
// print them.
// CHECK-LABEL: --- Running 'special_floats':
// CHECK-NEXT: f32 = inf
// CHECK-NEXT: f64 = nan
// CHECK-NEXT: 'special_floats' returned INF,-INF,nan,1.000000e+300
func.func @special_floats() -> (f32, f64, f64, f64) {
  %ch0 = tfrt.new.chain
  %inf = tfrt.constant.f32 0x7F800000
  %minus_inf = tfrt.constant.f64 0xFFF0000000000000
  %nan = tfrt.constant.f64 0x7FF8000000000000
  %big = tfrt.constant.f64 1.0e300
  %ch1 = tfrt.print.f32 %inf, %ch0
  %ch2 = tfrt.print.f64 %nan, %ch1
  tfrt.return %inf, %minus_inf, %nan, %big : f32, f64, f64, f64
}

// Signed overflow wraps around.
// CHECK-LABEL: --- Running 'wrap_around':
// CHECK-NEXT: 'wrap_around' returned -2147483648,-2147483648,0
func.func @wrap_around() -> (i32, i32, i32) {
  %max = tfrt.constant.i32 2147483647
  %min = tfrt.constant.i32 -2147483648
  %one = tfrt.constant.i32 1
  %minus_one = tfrt.constant.i32 -1
  %sum = tfrt.add.i32 %max, %one
  %q, %r = tfrt.div.i32 %min, %minus_one
  tfrt.return %sum, %q, %r : i32, i32, i32
}

// Prints are ordered by the chain they thread.
// CHECK-LABEL: --- Running 'prints':
// CHECK-NEXT: int1 = 1
// CHECK-NEXT: int1 = 0
// CHECK-NEXT: int32 = 42
// CHECK-NEXT: int32 = -1
// CHECK-NEXT: int64 = 43
// CHECK-NEXT: f32 = 312.271362
// CHECK-NEXT: f64 = -0.500000
// CHECK-NEXT: f64 = 1234567.125000
// CHECK-NEXT: 'prints' returned !tfrt.chain value
func.func @prints() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %true = tfrt.constant.i1 1
  %false = tfrt.constant.i1 false
  %a = tfrt.constant.i32 42
  %b = tfrt.constant.i32 -1
  %c = tfrt.constant.i64 43
  %f = tfrt.constant.f32 312.27136
  %g = tfrt.constant.f64 -0.5
  %h = tfrt.constant.f64 1234567.125
  %ch1 = tfrt.print.i1 %true, %ch0
  %ch2 = tfrt.print.i1 %false, %ch1
  %ch3 = tfrt.print.i32 %a, %ch2
  %ch4 = tfrt.print.i32 %b, %ch3
  %ch5 = tfrt.print.i64 %c, %ch4
  %ch6 = tfrt.print.f32 %f, %ch5
  %ch7 = tfrt.print.f64 %g, %ch6
  %ch8 = tfrt.print.f64 %h, %ch7
  tfrt.return %ch8 : !tfrt.chain
}

// A function with no results prints only its header.
// CHECK-LABEL: --- Running 'no_results':
// CHECK-NEXT: int32 = 3
// CHECK-NOT: 'no_results' returned
func.func @no_results() {
  %ch0 = tfrt.new.chain
  %x = tfrt.constant.i32 3
  tfrt.print.i32 %x, %ch0
  tfrt.return
}

// Division by zero is an error, integer or float; both results of the
// integer division carry it.
// CHECK-LABEL: --- Running 'divide_by_zero':
// CHECK-NEXT: 'divide_by_zero' returned <<error: Divide by zero>>,<<error: Divide by zero>>
func.func @divide_by_zero() -> (i32, i32) {
  %a = tfrt.constant.i32 7
  %zero = tfrt.constant.i32 0
  // DIAG: arithmetic.mlir:[[# @LINE + 1]]:12: error: runtime error: Divide by zero
  %q, %r = tfrt.div.i32 %a, %zero
  tfrt.return %q, %r : i32, i32
}

// CHECK-LABEL: --- Running 'float_divide_by_zero':
// CHECK-NEXT: 'float_divide_by_zero' returned <<error: Divide by zero>>,<<error: Divide by zero>>
func.func @float_divide_by_zero() -> (f32, f64) {
  %a = tfrt.constant.f32 7.0
  %z = tfrt.constant.f32 0.0
  %b = tfrt.constant.f64 7.0
  %z64 = tfrt.constant.f64 0.0
  // DIAG-DAG: arithmetic.mlir:[[# @LINE + 1]]:8: error: runtime error: Divide by zero
  %q = "tfrt.div.f32"(%a, %z) : (f32, f32) -> f32
  // DIAG-DAG: arithmetic.mlir:[[# @LINE + 1]]:10: error: runtime error: Divide by zero
  %q64 = "tfrt.div.f64"(%b, %z64) : (f64, f64) -> f64
  tfrt.return %q, %q64 : f32, f64
}

// CHECK-LABEL: --- Running 'i64_divide_by_zero':
// CHECK-NEXT: 'i64_divide_by_zero' returned <<error: Divide by zero>>
func.func @i64_divide_by_zero() -> i64 {
  %a = tfrt.constant.i64 7
  %zero = tfrt.constant.i64 0
  // DIAG: arithmetic.mlir:[[# @LINE + 1]]:12: error: runtime error: Divide by zero
  %q, %r = tfrt.div.i64 %a, %zero
  tfrt.return %r : i64
}
// DIAG-NOT: error
