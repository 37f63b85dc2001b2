// The coordinator ops print back in their custom syntax, from the custom
// and the generic form and from a compiled program.
// RUN: sluice_opt %s | FileCheck %s
// RUN: sluice_opt %s -mlir-print-op-generic | sluice_opt | FileCheck %s
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf && sluice_translate --sbf-to-mlir %t.sbf | FileCheck %s

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @hundred() -> i32 {
  %c = tfrt.constant.i32 100
  tfrt.return %c : i32
}

// CHECK-LABEL: func.func @closures
func.func @closures(%ch: !tfrt.chain) -> (i32, !tfrt.chain) {
  // CHECK: %[[INDEX:.*]] = tfrt_dist.worker_index
  %index = tfrt_dist.worker_index
  // CHECK: %[[BASE:.*]] = tfrt_dist.create_per_worker_resource @hundred() : () -> !tfrt_dist.per_worker
  %base = tfrt_dist.create_per_worker_resource @hundred()
      : () -> !tfrt_dist.per_worker
  // CHECK: %[[A:.*]] = tfrt_dist.schedule @add(%[[BASE]], %[[INDEX]]) : (!tfrt_dist.per_worker, !tfrt_dist.per_worker) -> i32
  %a = tfrt_dist.schedule @add(%base, %index)
      : (!tfrt_dist.per_worker, !tfrt_dist.per_worker) -> i32
  // CHECK: %[[B:.*]] = tfrt_dist.schedule @add(%[[A]], %[[A]]) : (i32, i32) -> i32
  %b = tfrt_dist.schedule @add(%a, %a) : (i32, i32) -> i32
  // CHECK: %[[J1:.*]] = tfrt_dist.join %{{.*}}{{$}}
  %j1 = tfrt_dist.join %ch
  // CHECK: tfrt_dist.join %[[J1]] after(%[[B]] : i32)
  %j2 = tfrt_dist.join %j1 after(%b : i32)
  tfrt.return %b, %j2 : i32, !tfrt.chain
}
