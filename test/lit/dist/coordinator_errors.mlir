// What the coordinator ops make of what they cannot do: each error is a
// value, reported once at the op that met it.
// A single-threaded host: the coordinator would starve it.
// RUN: %with_workers 1 --expect-exit=1 -- %sluice_run -work_queue_type=s -print_error_code -functions=schedule %s 2> %t.single | FileCheck %s --check-prefix=SINGLE
// RUN: FileCheck %s --check-prefix=SINGLE-DIAG < %t.single
// No cluster at all.
// RUN: not %sluice_run -work_queue_type=mstd -print_error_code -functions=schedule %s 2> %t.none | FileCheck %s --check-prefix=NONE
// RUN: FileCheck %s --check-prefix=NONE-DIAG < %t.none
// A failing resource function fails the closures that take the resource.
// RUN: %with_workers 2 --expect-exit=1 -- %sluice_run -work_queue_type=mstd -print_error_code -functions=failing_resource %s | FileCheck %s --check-prefix=RESOURCE

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @broken() -> i32 {
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}

// SINGLE-LABEL: --- Running 'schedule':
// SINGLE-NEXT: 'schedule' returned <<error: the coordinator needs a host with a multi-threaded work queue, and this one has a single thread (sluice_run: pass -work_queue_type=mstd), code: FAILED_PRECONDITION>>
// NONE-LABEL: --- Running 'schedule':
// NONE-NEXT: 'schedule' returned <<error: no cluster configured: pass --cluster or set SLUICE_CLUSTER, code: FAILED_PRECONDITION>>
func.func @schedule() -> i32 {
  %one = tfrt.constant.i32 1
  // SINGLE-DIAG: coordinator_errors.mlir:[[# @LINE + 2]]:8: error: runtime error: the coordinator needs a host with a multi-threaded work queue
  // NONE-DIAG: coordinator_errors.mlir:[[# @LINE + 1]]:8: error: runtime error: no cluster configured
  %a = tfrt_dist.schedule @add(%one, %one) : (i32, i32) -> i32
  tfrt.return %a : i32
}

// RESOURCE-LABEL: --- Running 'failing_resource':
// RESOURCE-NEXT: 'failing_resource' returned <<error: {{.*}}something bad happened{{.*}}>>
func.func @failing_resource() -> i32 {
  %r = tfrt_dist.create_per_worker_resource @broken()
      : () -> !tfrt_dist.per_worker
  %one = tfrt.constant.i32 1
  %a = tfrt_dist.schedule @add(%r, %one)
      : (!tfrt_dist.per_worker, i32) -> i32
  tfrt.return %a : i32
}
