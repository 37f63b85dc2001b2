// The device-tensor collectives (tfrt_ccl.device_*): they parse, print and
// compile, and sluice_run loads a program that uses every one of them (a
// kernel whose signature did not match its op would fail the load; the
// host tfrt_ccl.recv is here too, whose shape attribute once did). Running
// them needs a CUDA device and NCCL groups: the GPU suite does
// (docs/collectives.md, "NCCL").
// RUN: sluice_opt %s | FileCheck %s
// RUN: sluice_translate -mlir-to-sbf %s -o %t.sbf
// RUN: %sluice_run %s | FileCheck %s --check-prefix=LOADED

// CHECK-LABEL: func.func @step
// CHECK: tfrt_ccl.device_allreduce %{{.*}}, %{{.*}}, %{{.*}} {reduction = "avg", timeout_ms = 5000 : i64} : !tfrt_gpu.tensor
// CHECK: tfrt_ccl.device_reduce_scatter %{{.*}} {reduction = "sum"} : !tfrt_gpu.tensor
// CHECK: tfrt_ccl.device_allgather
// CHECK: tfrt_ccl.device_broadcast %{{.*}} {root = 0 : i64} : !tfrt_gpu.tensor
// CHECK: tfrt_ccl.device_all_to_all
// CHECK: tfrt_ccl.device_send %{{.*}} {peer = 1 : i64} : !tfrt_gpu.tensor
// CHECK: tfrt_ccl.device_recv %{{.*}}, %{{.*}} {dtype = "f32", peer = 1 : i64, shape = [2, 2]}
func.func @step(%g: !tfrt_ccl.group, %t: !tfrt_gpu.tensor, %c0: !tfrt.chain)
    -> (!tfrt.chain, !tfrt_gpu.tensor) {
  %c1, %avg = tfrt_ccl.device_allreduce %g, %t, %c0
      {reduction = "avg", timeout_ms = 5000 : i64} : !tfrt_gpu.tensor
  %c2, %part = tfrt_ccl.device_reduce_scatter %g, %avg, %c1
      {reduction = "sum"} : !tfrt_gpu.tensor
  %c3, %all = tfrt_ccl.device_allgather %g, %part, %c2 : !tfrt_gpu.tensor
  %c4, %root = tfrt_ccl.device_broadcast %g, %all, %c3
      {root = 0 : i64} : !tfrt_gpu.tensor
  %c5, %swapped = tfrt_ccl.device_all_to_all %g, %root, %c4 : !tfrt_gpu.tensor
  %c6 = tfrt_ccl.device_send %g, %swapped, %c5 {peer = 1 : i64} : !tfrt_gpu.tensor
  %c7, %got = tfrt_ccl.device_recv %g, %c6
      {peer = 1 : i64, dtype = "f32", shape = [2, 2]}
  %c8, %host = tfrt_ccl.recv %g, %c7
      {peer = 1 : i64, tag = 3 : i64, dtype = "f32", shape = [2, 2]}
  tfrt.return %c8, %got : !tfrt.chain, !tfrt_gpu.tensor
}

// LOADED: --- Running 'loaded':
// LOADED-NEXT: 'loaded' returned 1
func.func @loaded() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}
