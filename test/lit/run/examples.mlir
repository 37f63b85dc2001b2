// The example programs under examples/programs run as their comments say.
// RUN: %sluice_run %S/../../../examples/programs/hello.mlir | FileCheck %s
// RUN: not %sluice_run %S/../../../examples/programs/errors.mlir 2>&1 | FileCheck %s --check-prefix=ERRORS

// CHECK: --- Running 'hello':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: int32 = 42
// CHECK-NEXT: 'hello' returned 42
// CHECK-NEXT: --- Not running 'fib' because it has arguments.
// CHECK-NEXT: --- Running 'fib20':
// CHECK-NEXT: 'fib20' returned 6765

// ERRORS-DAG: errors.mlir:{{[0-9]+}}:12: error: runtime error: Divide by zero
// ERRORS-DAG: 'divide_by_zero' returned <<error: Divide by zero>>,1
