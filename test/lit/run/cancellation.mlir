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

// Kernels that start after the cancellation are skipped, asynchronous ones
// included; the cancelling kernel itself finishes.
// CHECK-LABEL: --- Running 'skipped_after_cancel':
// CHECK-NEXT: 'skipped_after_cancel' returned 0,<<error: Cancelled, code: CANCELLED>>,<<error: Cancelled, code: CANCELLED>>
func.func @skipped_after_cancel() -> (i32, i32, i32) {
  %ch0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %c, %ch1 = "tfrt_test.cancel"(%ch0) : (!tfrt.chain) -> (i32, !tfrt.chain)
  %x = "tfrt_test.identity"(%ch1, %one) : (!tfrt.chain, i32) -> i32
  %y = "tfrt_test.async_add.i32"(%x, %one) : (i32, i32) -> i32
  tfrt.return %c, %x, %y : i32, i32, i32
}

// CHECK: --- Not running 'cancel_on_third' because it has arguments.
func.func @cancel_on_third(%i: i32, %ch: !tfrt.chain) -> (i32, !tfrt.chain, i1) {
  %one = tfrt.constant.i32 1
  %next = tfrt.add.i32 %i, %one
  %three = tfrt.constant.i32 3
  %is_third = tfrt.equal.i32 %next, %three
  %ch1 = tfrt.if %is_third, %ch : (!tfrt.chain) -> (!tfrt.chain) {
    %c, %ch2 = "tfrt_test.cancel"(%ch) : (!tfrt.chain) -> (i32, !tfrt.chain)
    tfrt.return %ch2 : !tfrt.chain
  } else {
    tfrt.return %ch : !tfrt.chain
  }
  %ch3 = tfrt.print.i32 %next, %ch1
  %true = tfrt.constant.i1 1
  tfrt.return %next, %ch3, %true : i32, !tfrt.chain, i1
}

// An endless tfrt.while stops once its body cancels the request; the
// third iteration's print, which had not started, never happens.
// CHECK-LABEL: --- Running 'cancel_while':
// CHECK-NEXT: int32 = 1
// CHECK-NEXT: int32 = 2
// CHECK-NEXT: 'cancel_while' returned <<error: Cancelled, code: CANCELLED>>
func.func @cancel_while() -> i32 {
  %true = tfrt.constant.i1 1
  %zero = tfrt.constant.i32 0
  %ch = tfrt.new.chain
  %r:2 = tfrt.while %true @cancel_on_third(%zero, %ch) parallel_iterations(1) : (i32, !tfrt.chain) -> (i32, !tfrt.chain)
  tfrt.return %r#0 : i32
}

// Cancellation belongs to one request: the next function runs normally.
// CHECK-LABEL: --- Running 'next_request':
// CHECK-NEXT: 'next_request' returned 1
func.func @next_request() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

// CHECK: --- Not running 'first_of_two' because it has arguments.
func.func @first_of_two(%x: i32, %ch: !tfrt.chain) -> i32 {
  tfrt.return %x : i32
}

// A call and a branch that become ready after the cancellation run no
// function, not even one without kernels: their results are the cancel
// error, not the value the function would hand back.
// CHECK-LABEL: --- Running 'call_and_if_after_cancel':
// CHECK-NEXT: 'call_and_if_after_cancel' returned <<error: Cancelled, code: CANCELLED>>,<<error: Cancelled, code: CANCELLED>>
func.func @call_and_if_after_cancel() -> (i32, i32) {
  %ch0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %true = tfrt.constant.i1 1
  %c, %ch1 = "tfrt_test.cancel"(%ch0) : (!tfrt.chain) -> (i32, !tfrt.chain)
  %y = tfrt.call @first_of_two(%one, %ch1) : (i32, !tfrt.chain) -> i32
  %z = tfrt.if %true, %one, %ch1 : (i32, !tfrt.chain) -> (i32) {
    tfrt.return %one : i32
  } else {
    tfrt.return %one : i32
  }
  tfrt.return %y, %z : i32, i32
}
