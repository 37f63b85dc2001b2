// --list_kernels prints every kernel the runner has, sorted, each with what
// its C++ signature takes from an op, and runs nothing.
// RUN: %sluice_run --list_kernels | FileCheck %s
// CHECK: tfrt.add.i32: 2 operands -> 1 result
// CHECK: tfrt.call: non-strict, no signature (checks its frame itself)
// CHECK: tfrt.constant.complex64: no operands -> 1 result {value?: complex<f32>, real?: f32, imaginary?: f32}
// CHECK: tfrt.constant.i32: no operands -> 1 result {value: i32}
// CHECK: tfrt.merge.chains: any operands -> 1 result
// CHECK: tfrt_dist.call: 1+ operands -> any results, reads its frame {deadline_ms?: i64, on_failure?: array}
// CHECK: tfrt_test.benchmark: any operands -> 1+ results, reads its frame {name: string, duration_secs: i32, max_count: i32, num_warmup_runs?: i32}
// CHECK: tfrt_test.get_string: no operands -> 1 result {value: string}
// CHECK-NOT: Running
