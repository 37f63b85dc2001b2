// --args=FUNCTION:VALUE,... runs a function that takes arguments with values
// from the command line; every --args is checked before anything runs.

// RUN: %sluice_run %s --args=scale:7,true,2.5,0.25,chain --args=increment:20 | FileCheck %s
// CHECK: --- Running 'increment':
// CHECK-NEXT: 'increment' returned 21
// CHECK-NEXT: --- Running 'scale':
// CHECK-NEXT: 'scale' returned 7,1,2.500000e+00,2.500000e-01
// CHECK-NEXT: --- Not running 'string' because it has arguments.
// CHECK-NEXT: --- Not running 'i32' because it has arguments.
// CHECK-NEXT: --- Running 'no_arguments':
// CHECK-NEXT: 'no_arguments' returned 1

// Without --args, a function with arguments is still not run.
// RUN: %sluice_run %s --args=increment:10 | FileCheck %s --check-prefix=ONLY-INCREMENT
// ONLY-INCREMENT: 'increment' returned 11
// ONLY-INCREMENT: --- Not running 'scale' because it has arguments.

// i64 takes the whole range; i1 takes 0 and 1 too.
// RUN: %sluice_run %s --args=scale:-9000000000,0,1e3,-1,chain -functions=scale | FileCheck %s --check-prefix=RANGE
// RANGE: 'scale' returned -9000000000,0,1.000000e+03,-1.000000e+00

// Errors name the function and the argument, and nothing runs.
// RUN: not %sluice_run %s --args=increment:1,2 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: sluice_run: --args: 'increment' takes 1 argument (i64), got 2
// COUNT-NOT: Running
// RUN: not %sluice_run %s --args=scale:1 2>&1 | FileCheck %s --check-prefix=COUNT-MANY
// COUNT-MANY: sluice_run: --args: 'scale' takes 5 arguments (i64, i1, f32, f64, !tfrt.chain), got 1
// RUN: not %sluice_run %s --args=increment:twenty 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: sluice_run: --args: argument #0 of 'increment' is i64; 'twenty' is not
// TYPE-NOT: Running
// RUN: not %sluice_run %s --args=scale:1,yes,1,1,chain 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: sluice_run: --args: argument #1 of 'scale' is i1; 'yes' is not
// RUN: not %sluice_run %s --args=scale:1,1,1,1,1 2>&1 | FileCheck %s --check-prefix=CHAIN
// CHAIN: sluice_run: --args: argument #4 of 'scale' is !tfrt.chain; '1' is not
// RUN: not %sluice_run %s --args=string:x 2>&1 | FileCheck %s --check-prefix=OTHER-TYPE
// OTHER-TYPE: sluice_run: --args: argument #0 of 'string' is !tfrt.string, which --args cannot give (i1, i32, i64, f32, f64 and !tfrt.chain can)
// RUN: not %sluice_run %s --args=no_such:1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: sluice_run: --args: couldn't find function no_such
// RUN: not %sluice_run %s --args=increment 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: sluice_run: --args=increment: expected FUNCTION:VALUE,VALUE,... (e.g. fib:20)
// An out-of-range i32 is not an i32.
// RUN: not %sluice_run %s --args=i32:2147483648 2>&1 | FileCheck %s --check-prefix=I32-RANGE
// I32-RANGE: sluice_run: --args: argument #0 of 'i32' is i32; '2147483648' is not

func.func @increment(%n: i64) -> i64 {
  %one = tfrt.constant.i64 1
  %r = tfrt.add.i64 %n, %one
  tfrt.return %r : i64
}

func.func @scale(%x: i64, %flag: i1, %f: f32, %d: f64, %ch: !tfrt.chain) -> (i64, i1, f32, f64) {
  tfrt.return %x, %flag, %f, %d : i64, i1, f32, f64
}

func.func @string(%s: !tfrt.string) {
  tfrt.return
}

func.func @i32(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @no_arguments() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

// The example program's fib, from the repository root as the README runs it.
// RUN: %sluice_run %S/../../../examples/programs/hello.mlir --args=fib:20 -functions=fib | FileCheck %s --check-prefix=HELLO
// HELLO: 'fib' returned 6765
