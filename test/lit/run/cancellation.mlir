// Cancelling a request turns every kernel that has not started into the
// cancel error; a long tfrt.repeat.i32 stops at its next iteration, and a
// resource whose deallocation never runs is still freed.
// RUN: not %sluice_run %s -print_error_code | FileCheck %s

// CHECK-LABEL: --- Running 'cancel_long_repeat':
// CHECK-NEXT: 'cancel_long_repeat' returned <<error: Cancelled, code: CANCELLED>>
func.func @cancel_long_repeat() -> i32 {
  %ch0 = tfrt.new.chain
  %zero = tfrt.constant.i32 0
  %count = tfrt.constant.i32 100000000
  %x, %ch1 = tfrt.repeat.i32 %count, %zero, %ch0 : i32, !tfrt.chain {
    %one = tfrt.constant.i32 1
    %y = tfrt.add.i32 %zero, %one
    %c, %ch2 = "tfrt_test.cancel"(%ch0) : (!tfrt.chain) -> (i32, !tfrt.chain)
    tfrt.return %y, %ch2 : i32, !tfrt.chain
  }
  tfrt.return %x : i32
}

// CHECK-LABEL: --- Running 'resource_freed_on_cancel':
// CHECK-NEXT: Allocated TestResource
// CHECK-NEXT: Destroyed TestResource
// CHECK-NEXT: 'resource_freed_on_cancel' returned <<error: Cancelled, code: CANCELLED>>
func.func @resource_freed_on_cancel() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %res, %ch1 = "tfrt_test.allocate_resource"(%ch0) : (!tfrt.chain) -> (!tfrt.test.resource, !tfrt.chain)
  %c, %ch2 = "tfrt_test.cancel"(%ch1) : (!tfrt.chain) -> (i32, !tfrt.chain)
  %ch3 = "tfrt_test.deallocate_resource"(%res, %ch2) : (!tfrt.test.resource, !tfrt.chain) -> !tfrt.chain
  tfrt.return %ch3 : !tfrt.chain
}
