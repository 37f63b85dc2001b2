// Every tfrt_ccl op round-trips through its custom syntax, and compiles to
// SBF and back.
// RUN: sluice_opt %s | sluice_opt | FileCheck %s
// RUN: sluice_translate -mlir-to-sbf %s | sluice_translate -sbf-to-mlir | FileCheck %s --check-prefix=SBF

// CHECK-LABEL: func.func @step
// SBF-LABEL: func.func @step
func.func @step(%c0: !tfrt.chain, %rank: i64, %t: !t.tensor) -> (!tfrt.chain, !t.tensor) {
  %size = tfrt.constant.i64 3
  %gen = tfrt.constant.i64 7
  // CHECK: tfrt_ccl.create_group %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {connect_timeout_ms = 5000 : i64, store = "127.0.0.1:29510"}
  // SBF: tfrt_ccl.create_group {{.*}}store = "127.0.0.1:29510"
  %c1, %g = tfrt_ccl.create_group %c0, %rank, %size, %gen {store = "127.0.0.1:29510", connect_timeout_ms = 5000 : i64}
  // CHECK: tfrt_ccl.allreduce %{{.*}}, %{{.*}}, %{{.*}} {reduction = "avg", timeout_ms = 30000 : i64} : !t.tensor
  %c2, %avg = tfrt_ccl.allreduce %g, %t, %c1 {reduction = "avg", timeout_ms = 30000 : i64} : !t.tensor
  // CHECK: tfrt_ccl.allgather %{{.*}}, %{{.*}}, %{{.*}} : !t.tensor
  %c3, %all = tfrt_ccl.allgather %g, %avg, %c2 : !t.tensor
  // CHECK: tfrt_ccl.reduce_scatter %{{.*}}, %{{.*}}, %{{.*}} {reduction = "max"} : !t.tensor
  %c4, %part = tfrt_ccl.reduce_scatter %g, %all, %c3 {reduction = "max"} : !t.tensor
  // CHECK: tfrt_ccl.broadcast %{{.*}}, %{{.*}}, %{{.*}} {root = 2 : i64} : !t.tensor
  %c5, %b = tfrt_ccl.broadcast %g, %part, %c4 {root = 2 : i64} : !t.tensor
  // CHECK: tfrt_ccl.barrier %{{.*}}, %{{.*}} {timeout_ms = 100 : i64}
  %c6 = tfrt_ccl.barrier %g, %c5 {timeout_ms = 100 : i64}
  // CHECK: tfrt_ccl.send %{{.*}}, %{{.*}}, %{{.*}} {peer = 1 : i64, tag = 7 : i64} : !t.tensor
  %c7 = tfrt_ccl.send %g, %b, %c6 {peer = 1 : i64, tag = 7 : i64} : !t.tensor
  // CHECK: tfrt_ccl.recv %{{.*}}, %{{.*}} {dtype = "f32", peer = 2 : i64, shape = [2, 3], tag = 7 : i64}
  // SBF: tfrt_ccl.recv {{.*}}{dtype = "f32", peer = 2 : i64, shape = [2, 3], tag = 7 : i64}
  %c8, %r = tfrt_ccl.recv %g, %c7 {peer = 2 : i64, tag = 7 : i64, dtype = "f32", shape = [2, 3]}
  // CHECK: tfrt_ccl.allreduce_partial %{{.*}}, %{{.*}}, %{{.*}} {agreement_ms = 500 : i64, reduction = "sum"} : !t.tensor
  // SBF: tfrt_ccl.allreduce_partial {{.*}}{agreement_ms = 500 : i64, reduction = "sum"}
  %c9, %sum, %who = tfrt_ccl.allreduce_partial %g, %r, %c8 {reduction = "sum", agreement_ms = 500 : i64} : !t.tensor
  // CHECK: tfrt_ccl.allgather_partial %{{.*}}, %{{.*}}, %{{.*}} {timeout_ms = 100 : i64} : !t.tensor
  %c10, %rows, %who2 = tfrt_ccl.allgather_partial %g, %sum, %c9 {timeout_ms = 100 : i64} : !t.tensor
  tfrt.return %c10, %rows : !tfrt.chain, !t.tensor
}
