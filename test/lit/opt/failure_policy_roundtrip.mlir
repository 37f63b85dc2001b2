// Failure policies print back as they were written (keys in one order,
// defaults left out), and survive compile -> decompile exactly: the SBF
// holds them as tagged arrays (sluice/bef/failure_policy.h) that the
// decompiler turns back into the attributes.
// RUN: sluice_opt %s | FileCheck %s
// RUN: sluice_opt %s > %t.once && sluice_opt %t.once > %t.twice && diff %t.once %t.twice
// RUN: sluice_opt %s -mlir-print-op-generic | sluice_opt | diff %t.once -
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf && sluice_translate --sbf-to-mlir %t.sbf | FileCheck %s
// RUN: sluice_translate --sbf-to-mlir %t.sbf | diff %t.once -
// An array of the same layout that is not an op's policy stays an array.
// RUN: sluice_translate --sbf-to-mlir %t.sbf | FileCheck %s --check-prefix=ARRAY

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @add_locally(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

// CHECK-LABEL: func.func @main()
func.func @main() -> i32 {
  %t0 = tfrt_dist.get_task_handle "/job:worker/task:0"
  %add = tfrt_dist.register_function %t0 @add
  %one = tfrt.constant.i32 1
  // CHECK: tfrt_dist.call %{{.*}} {on_failure = #tfrt_dist.retry<max = 3, classes = [retryable, stale], backoff_ms = 50>} : (i32, i32) -> i32
  %r1 = tfrt_dist.call %add(%one, %one) {on_failure = #tfrt_dist.retry<max = 3, classes = [retryable, stale], backoff_ms = 50>} : (i32, i32) -> i32
  // CHECK: tfrt_dist.call %{{.*}} {deadline_ms = 100 : i64, on_failure = #tfrt_dist.retry<max = 2, fallback = @add_locally>} : (i32, i32) -> i32
  %r2 = tfrt_dist.call %add(%r1, %one) {deadline_ms = 100 : i64, on_failure = #tfrt_dist.retry<fallback = @add_locally, backoff_ms = 0, max = 2>} : (i32, i32) -> i32
  // CHECK: tfrt_dist.call %{{.*}} {on_failure = #tfrt_dist.fallback<@add_locally, classes = [fatal]>} : (i32, i32) -> i32
  %r3 = tfrt_dist.call %add(%r2, %one) {on_failure = #tfrt_dist.fallback<@add_locally, classes = [fatal]>} : (i32, i32) -> i32
  // CHECK: tfrt_dist.call %{{.*}} {on_failure = #tfrt_dist.fallback<@add_locally>} : (i32, i32) -> i32
  %r4 = tfrt_dist.call %add(%r3, %one) {on_failure = #tfrt_dist.fallback<@add_locally>} : (i32, i32) -> i32
  // CHECK: tfrt_dist.call %{{.*}} {on_failure = #tfrt_dist.retry<max = 1, classes = []>} : (i32, i32) -> i32
  %r5 = tfrt_dist.call %add(%r4, %one) {on_failure = #tfrt_dist.retry<max = 1, classes = []>} : (i32, i32) -> i32
  // CHECK: tfrt_dist.schedule @add(%{{.*}}, %{{.*}}) {on_failure = #tfrt_dist.retry<max = 3, classes = [fatal], fallback = @add_locally>} : (i32, i32) -> i32
  %r6 = tfrt_dist.schedule @add(%r5, %one) {on_failure = #tfrt_dist.retry<max = 3, classes = [fatal], fallback = @add_locally>} : (i32, i32) -> i32
  tfrt.return %r6 : i32
}

// ARRAY-LABEL: func.func @plain_array()
// ARRAY: values = ["tfrt_dist.retry", 3, 1, 0]
func.func @plain_array() -> !tfrt.chain {
  %ch = "tfrt_test.print_attributes"() {values = ["tfrt_dist.retry", 3, 1, 0]} : () -> !tfrt.chain
  tfrt.return %ch : !tfrt.chain
}
