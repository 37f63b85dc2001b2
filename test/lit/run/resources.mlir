// State that outlives one kernel: a resource held by unique_ptr
// (tfrt_test.allocate_resource / deallocate_resource) and the shared atomic
// counter (tfrt_test.atomic.*.i32). Chains order the side effects.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK-LABEL: --- Running 'allocate_and_free':
// CHECK-NEXT: Allocated TestResource
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: Destroyed TestResource
// CHECK-NEXT: tfrt_test.deallocate_resource done
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: 'allocate_and_free' returned !tfrt.chain value
func.func @allocate_and_free() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %res, %ch1 = "tfrt_test.allocate_resource"(%ch0) : (!tfrt.chain) -> (!tfrt.test.resource, !tfrt.chain)
  %ch2 = "tfrt_test.print_hello"(%ch1) : (!tfrt.chain) -> !tfrt.chain
  %ch3 = "tfrt_test.deallocate_resource"(%res, %ch2) : (!tfrt.test.resource, !tfrt.chain) -> !tfrt.chain
  %ch4 = "tfrt_test.print_hello"(%ch3) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch4 : !tfrt.chain
}

// Never deallocated: freed with its value when the function's frame goes.
// CHECK-LABEL: --- Running 'freed_with_its_value':
// CHECK-NEXT: Allocated TestResource
// CHECK-NEXT: Destroyed TestResource
// CHECK-NOT: tfrt_test.deallocate_resource done
func.func @freed_with_its_value() {
  %ch0 = tfrt.new.chain
  %res, %ch1 = "tfrt_test.allocate_resource"(%ch0) : (!tfrt.chain) -> (!tfrt.test.resource, !tfrt.chain)
  tfrt.return
}

// Returned, the resource lives until the runner has printed the result.
// CHECK-LABEL: --- Running 'returned_resource':
// CHECK-NEXT: Allocated TestResource
// CHECK-NEXT: 'returned_resource' returned !tfrt.test.resource value
// CHECK-NEXT: Destroyed TestResource
func.func @returned_resource() -> !tfrt.test.resource {
  %ch0 = tfrt.new.chain
  %res, %ch1 = "tfrt_test.allocate_resource"(%ch0) : (!tfrt.chain) -> (!tfrt.test.resource, !tfrt.chain)
  tfrt.return %res : !tfrt.test.resource
}

// A deallocation skipped because its chain is an error: the resource is
// still destroyed, once.
// CHECK-LABEL: --- Running 'skipped_deallocation':
// CHECK-NEXT: Allocated TestResource
// CHECK-NEXT: Destroyed TestResource
// CHECK-NEXT: 'skipped_deallocation' returned <<error: something bad happened>>
func.func @skipped_deallocation() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %res, %ch1 = "tfrt_test.allocate_resource"(%ch0) : (!tfrt.chain) -> (!tfrt.test.resource, !tfrt.chain)
  // DIAG: resources.mlir:[[# @LINE + 1]]:10: error: runtime error: something bad happened
  %bad = "tfrt_test.fail"() : () -> i32
  %ch2 = tfrt.merge.chains %ch1, %bad : !tfrt.chain, i32
  %ch3 = "tfrt_test.deallocate_resource"(%res, %ch2) : (!tfrt.test.resource, !tfrt.chain) -> !tfrt.chain
  tfrt.return %ch3 : !tfrt.chain
}

// The counter is shared by every kernel that gets it; chains order the
// updates before the read.
// CHECK-LABEL: --- Running 'atomic_counter':
// CHECK-NEXT: 'atomic_counter' returned 0,7
func.func @atomic_counter() -> (i32, i32) {
  %ch0 = tfrt.new.chain
  %counter = "tfrt_test.atomic.create.i32"() : () -> !test.atomic.i32
  %v0, %ch1 = "tfrt_test.atomic.get.i32"(%counter, %ch0) : (!test.atomic.i32, !tfrt.chain) -> (i32, !tfrt.chain)
  %ch2 = "tfrt_test.atomic.inc.i32"(%counter, %ch1) : (!test.atomic.i32, !tfrt.chain) -> !tfrt.chain
  %five = tfrt.constant.i32 5
  %ch3 = "tfrt_test.atomic.add.i32"(%counter, %five, %ch2) : (!test.atomic.i32, i32, !tfrt.chain) -> !tfrt.chain
  %ch4 = "tfrt_test.atomic.inc.i32"(%counter, %ch3) : (!test.atomic.i32, !tfrt.chain) -> !tfrt.chain
  %v1, %ch5 = "tfrt_test.atomic.get.i32"(%counter, %ch4) : (!test.atomic.i32, !tfrt.chain) -> (i32, !tfrt.chain)
  tfrt.return %v0, %v1 : i32, i32
}

// Concurrent updates from asynchronous regions are not lost.
// CHECK-LABEL: --- Running 'atomic_from_tasks':
// CHECK-NEXT: 'atomic_from_tasks' returned 4
func.func @atomic_from_tasks() -> i32 {
  %ch0 = tfrt.new.chain
  %counter = "tfrt_test.atomic.create.i32"(%ch0) : (!tfrt.chain) -> !test.atomic.i32
  %a = tfrt_test.do.async %counter : (!test.atomic.i32) -> (!tfrt.chain) {
    %c = "tfrt_test.atomic.inc.i32"(%counter) : (!test.atomic.i32) -> !tfrt.chain
    tfrt.return %c : !tfrt.chain
  }
  %b = tfrt_test.do.async %counter : (!test.atomic.i32) -> (!tfrt.chain) {
    %three = tfrt.constant.i32 3
    %c = "tfrt_test.atomic.add.i32"(%counter, %three) : (!test.atomic.i32, i32) -> !tfrt.chain
    tfrt.return %c : !tfrt.chain
  }
  %both = tfrt.merge.chains %a, %b : !tfrt.chain, !tfrt.chain
  %v, %ch1 = "tfrt_test.atomic.get.i32"(%counter, %both) : (!test.atomic.i32, !tfrt.chain) -> (i32, !tfrt.chain)
  tfrt.return %v : i32
}
// DIAG-NOT: error
