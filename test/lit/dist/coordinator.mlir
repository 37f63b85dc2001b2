// The coordinator from a program: closures of the program's own functions
// scheduled on two workers, results of earlier closures as arguments, a
// failing closure reported by join (and cleared), per-worker resources and
// the worker index. The coordinator needs a multi-threaded host.
// RUN: %with_workers 2 --expect-exit=1 -- %sluice_run -work_queue_type=mstd -print_error_code %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr
// A compiled program schedules the same bytes it was loaded from.
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf
// RUN: %with_workers 2 --expect-exit=1 -- %sluice_run -work_queue_type=mstd -print_error_code %t.sbf | FileCheck %s

func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @fail_after(%x: i32) -> i32 {
  %bad = "tfrt_test.fail"() : () -> i32
  %sum = tfrt.add.i32 %bad, %x
  tfrt.return %sum : i32
}

func.func @hundred() -> i32 {
  %c = tfrt.constant.i32 100
  tfrt.return %c : i32
}

func.func @identity(%x: i32) -> i32 {
  tfrt.return %x : i32
}

// CHECK: --- Not running 'add' because it has arguments.
// CHECK: --- Not running 'fail_after' because it has arguments.
// CHECK: --- Running 'hundred':
// CHECK-NEXT: 'hundred' returned 100
// CHECK: --- Not running 'identity' because it has arguments.

// CHECK-LABEL: --- Running 'schedule_and_join':
// CHECK-NEXT: int32 = 3
// CHECK-NEXT: int32 = 7
// CHECK-NEXT: 'schedule_and_join' returned !tfrt.chain value
func.func @schedule_and_join() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %four = tfrt.constant.i32 4
  %a = tfrt_dist.schedule @add(%one, %two) : (i32, i32) -> i32
  %b = tfrt_dist.schedule @add(%three, %four) : (i32, i32) -> i32
  %joined = tfrt_dist.join %c0 after(%a, %b : i32, i32)
  %c1 = tfrt.print.i32 %a, %joined
  %c2 = tfrt.print.i32 %b, %c1
  tfrt.return %c2 : !tfrt.chain
}

// Each closure waits for the closures whose results it takes.
// CHECK-LABEL: --- Running 'dependent_closures':
// CHECK-NEXT: 'dependent_closures' returned 3,6,9,18
func.func @dependent_closures() -> (i32, i32, i32, i32) {
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %a = tfrt_dist.schedule @add(%one, %two) : (i32, i32) -> i32
  %b = tfrt_dist.schedule @add(%a, %a) : (i32, i32) -> i32
  %c = tfrt_dist.schedule @add(%b, %a) : (i32, i32) -> i32
  %d = tfrt_dist.schedule @add(%c, %c) : (i32, i32) -> i32
  tfrt.return %a, %b, %c, %d : i32, i32, i32, i32
}

// The closure's result is the worker's error as the worker's kernel made
// it; join reports it at its own op.
// CHECK-LABEL: --- Running 'failing_closure':
// CHECK-NEXT: 'failing_closure' returned <<error: something bad happened, code: INTERNAL>>,<<error: something bad happened, code: INTERNAL>>
func.func @failing_closure() -> (i32, !tfrt.chain) {
  %c0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %bad = tfrt_dist.schedule @fail_after(%one) : (i32) -> i32
  // DIAG: coordinator.mlir:[[# @LINE + 1]]:13: error: runtime error: something bad happened
  %joined = tfrt_dist.join %c0 after(%bad : i32)
  tfrt.return %bad, %joined : i32, !tfrt.chain
}

// Join reported the error and cleared it: closures run again.
// CHECK-LABEL: --- Running 'after_failure':
// CHECK-NEXT: 'after_failure' returned 5,!tfrt.chain value
func.func @after_failure() -> (i32, !tfrt.chain) {
  %c0 = tfrt.new.chain
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %sum = tfrt_dist.schedule @add(%two, %three) : (i32, i32) -> i32
  %joined = tfrt_dist.join %c0 after(%sum : i32)
  tfrt.return %sum, %joined : i32, !tfrt.chain
}

// Each worker builds its own resource before its next closure; closures
// take the one of the worker that runs them.
// CHECK-LABEL: --- Running 'per_worker_resource':
// CHECK-NEXT: 'per_worker_resource' returned 101,102,103
func.func @per_worker_resource() -> (i32, i32, i32) {
  %base = tfrt_dist.create_per_worker_resource @hundred()
      : () -> !tfrt_dist.per_worker
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %a = tfrt_dist.schedule @add(%base, %one)
      : (!tfrt_dist.per_worker, i32) -> i32
  %b = tfrt_dist.schedule @add(%two, %base)
      : (i32, !tfrt_dist.per_worker) -> i32
  %c = tfrt_dist.schedule @add(%base, %three)
      : (!tfrt_dist.per_worker, i32) -> i32
  tfrt.return %a, %b, %c : i32, i32, i32
}

// The worker index, given to a closure or to a resource's function: each
// worker passes its own (0 or 1), so a resource made from it plus the
// index of the worker that uses it is always even.
// CHECK-LABEL: --- Running 'worker_index':
// CHECK-NEXT: 'worker_index' returned {{[01]}},{{0|2}},{{0|2}},{{0|2}},{{0|2}}
func.func @worker_index() -> (i32, i32, i32, i32, i32) {
  %index = tfrt_dist.worker_index
  %own = tfrt_dist.create_per_worker_resource @identity(%index)
      : (!tfrt_dist.per_worker) -> !tfrt_dist.per_worker
  %i = tfrt_dist.schedule @identity(%index)
      : (!tfrt_dist.per_worker) -> i32
  %a = tfrt_dist.schedule @add(%own, %index)
      : (!tfrt_dist.per_worker, !tfrt_dist.per_worker) -> i32
  %b = tfrt_dist.schedule @add(%own, %index)
      : (!tfrt_dist.per_worker, !tfrt_dist.per_worker) -> i32
  %c = tfrt_dist.schedule @add(%own, %index)
      : (!tfrt_dist.per_worker, !tfrt_dist.per_worker) -> i32
  %d = tfrt_dist.schedule @add(%own, %index)
      : (!tfrt_dist.per_worker, !tfrt_dist.per_worker) -> i32
  tfrt.return %i, %a, %b, %c, %d : i32, i32, i32, i32, i32
}
