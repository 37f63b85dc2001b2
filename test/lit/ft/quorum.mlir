// The quorum ops (tfrt_ft.start_quorum, tfrt_ft.should_commit) round-trip
// through their syntax and through SBF; without SLUICE_LIGHTHOUSE every
// result of start_quorum is an error that says what to set.
// RUN: sluice_opt %s | sluice_opt | FileCheck %s
// RUN: sluice_translate -mlir-to-sbf %s | sluice_translate -sbf-to-mlir | FileCheck %s --check-prefix=SBF
// RUN: not env -u SLUICE_LIGHTHOUSE %sluice_run --functions=alone --print_error_code %s 2>/dev/null | FileCheck %s --check-prefix=ALONE

// CHECK-LABEL: func.func @step
// SBF-LABEL: func.func @step
// CHECK: %[[GROUP:.*]], %[[GENERATION:.*]], %[[STEP:.*]], %[[TENSORS:.*]]:2 = tfrt_ft.start_quorum %{{.*}}, %{{.*}}, %{{.*}} : !t.tensor, !t.tensor
func.func @step(%w: !t.tensor, %b: !t.tensor) -> (i64, i1) {
  %s0 = tfrt.constant.i64 0
  // SBF: tfrt_ft.start_quorum {{.*}} : !t.tensor, !t.tensor
  %group, %generation, %step, %w1, %b1 = tfrt_ft.start_quorum %s0, %w, %b : !t.tensor, !t.tensor
  %c0 = tfrt.new.chain
  // CHECK: tfrt_ccl.allreduce %[[GROUP]], %[[TENSORS]]#0
  %c1, %sum = tfrt_ccl.allreduce %group, %w1, %c0 {reduction = "avg"} : !t.tensor
  // CHECK: tfrt_ft.should_commit %[[STEP]], %{{.*}}, %{{.*}} : !t.tensor, !tfrt.chain
  // SBF: tfrt_ft.should_commit {{.*}} : !t.tensor, !tfrt.chain
  %commit = tfrt_ft.should_commit %step, %sum, %c1 : !t.tensor, !tfrt.chain
  tfrt.return %generation, %commit : i64, i1
}

// A replica whose state lives elsewhere passes no tensors, and a vote may
// wait on nothing.
// CHECK-LABEL: func.func @alone
// CHECK: %{{.*}}, %{{.*}}, %[[ALONE_STEP:.*]] = tfrt_ft.start_quorum %{{.*}}{{$}}
// CHECK-NEXT: tfrt_ft.should_commit %[[ALONE_STEP]]{{$}}
// ALONE: 'alone' returned <<error: tfrt_ft quorum ops: SLUICE_LIGHTHOUSE is not set (the lighthouses' host:port, comma-separated), code: FAILED_PRECONDITION>>,<<error: tfrt_ft quorum ops: SLUICE_LIGHTHOUSE is not set (the lighthouses' host:port, comma-separated), code: FAILED_PRECONDITION>>
func.func @alone() -> (i64, i1) {
  %s0 = tfrt.constant.i64 0
  %group, %generation, %step = tfrt_ft.start_quorum %s0
  %commit = tfrt_ft.should_commit %step
  tfrt.return %generation, %commit : i64, i1
}
