// Calls and control flow: tfrt.call, tfrt.if (with and without else),
// tfrt.cond, tfrt.case, tfrt.while, tfrt.once and tfrt.repeat.i32, with
// their error and corner cases. Functions that take arguments are listed
// and skipped by the runner.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK: --- Not running 'add_one' because it has arguments.
func.func @add_one(%x: i32) -> i32 {
  %one = tfrt.constant.i32 1
  %y = tfrt.add.i32 %x, %one
  tfrt.return %y : i32
}

// CHECK-LABEL: --- Running 'call':
// CHECK-NEXT: 'call' returned 42,43
func.func @call() -> (i32, i32) {
  %a = tfrt.constant.i32 41
  %b = tfrt.call @add_one(%a) : (i32) -> i32
  %c = "tfrt.call"(%b) {callee = @add_one} : (i32) -> i32
  tfrt.return %b, %c : i32, i32
}

// CHECK: --- Not running 'swap' because it has arguments.
func.func @swap(%a: i32, %b: i32) -> (i32, i32) {
  tfrt.return %b, %a : i32, i32
}

// CHECK-LABEL: --- Running 'call_multiple_results':
// CHECK-NEXT: 'call_multiple_results' returned 2,1
func.func @call_multiple_results() -> (i32, i32) {
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 2
  %r:2 = tfrt.call @swap(%a, %b) : (i32, i32) -> (i32, i32)
  tfrt.return %r#0, %r#1 : i32, i32
}

// A callee that returns one value twice, and its argument: the caller gets
// a reference to each, not a value moved out of a register twice.
// CHECK: --- Not running 'twice_and_argument' because it has arguments.
func.func @twice_and_argument(%x: i32) -> (i32, i32, i32) {
  %one = tfrt.constant.i32 1
  %y = tfrt.add.i32 %x, %one
  tfrt.return %y, %y, %x : i32, i32, i32
}

// CHECK-LABEL: --- Running 'call_returning_twice':
// CHECK-NEXT: 'call_returning_twice' returned 8,8,7
func.func @call_returning_twice() -> (i32, i32, i32) {
  %a = tfrt.constant.i32 7
  %r:3 = tfrt.call @twice_and_argument(%a) : (i32) -> (i32, i32, i32)
  tfrt.return %r#0, %r#1, %r#2 : i32, i32, i32
}

// The callee reads its argument again after its call returned, once the
// delayed copy arrives; the caller's only reader of that argument was the
// call, so the callee's frame alone keeps it.
// CHECK: --- Not running 'add_after_delay' because it has arguments.
func.func @add_after_delay(%x: i32) -> i32 {
  %late = "tfrt_test.async_copy.with_delay.i32"(%x) : (i32) -> i32
  %y = tfrt.add.i32 %late, %x
  tfrt.return %y : i32
}

// CHECK-LABEL: --- Running 'call_reading_argument_late':
// CHECK-NEXT: 'call_reading_argument_late' returned 42
func.func @call_reading_argument_late() -> i32 {
  %a = tfrt.constant.i32 20
  %one = tfrt.constant.i32 1
  %b = tfrt.add.i32 %a, %one
  %r = tfrt.call @add_after_delay(%b) : (i32) -> i32
  tfrt.return %r : i32
}

// The region's block arguments take the names of the operands they bind.
// CHECK-LABEL: --- Running 'if_then_else':
// CHECK-NEXT: 'if_then_else' returned 1,2,20,10
func.func @if_then_else() -> (i32, i32, i32, i32) {
  %true = tfrt.constant.i1 1
  %false = tfrt.constant.i1 0
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 2
  %r:2 = tfrt.if %true, %a, %b : (i32, i32) -> (i32, i32) {
    tfrt.return %a, %b : i32, i32
  } else {
    tfrt.return %b, %a : i32, i32
  }
  %ten = tfrt.constant.i32 10
  %s:2 = tfrt.if %false, %a, %ten : (i32, i32) -> (i32, i32) {
    tfrt.return %a, %ten : i32, i32
  } else {
    %twenty = tfrt.add.i32 %ten, %ten
    tfrt.return %twenty, %ten : i32, i32
  }
  tfrt.return %r#0, %r#1, %s#0, %s#1 : i32, i32, i32, i32
}

// With no results the else region may be left out.
// CHECK-LABEL: --- Running 'if_without_else':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: --- Running 'if_condition_from_comparison':
func.func @if_without_else() {
  %false = tfrt.constant.i1 0
  %true = tfrt.constant.i1 1
  %ch = tfrt.new.chain
  tfrt.if %false, %ch : (!tfrt.chain) -> () {
    %x = tfrt.constant.i32 99
    tfrt.print.i32 %x, %ch
    tfrt.return
  }
  tfrt.if %true, %ch : (!tfrt.chain) -> () {
    "tfrt_test.print_hello"(%ch) : (!tfrt.chain) -> !tfrt.chain
    tfrt.return
  }
  tfrt.return
}

// CHECK-NEXT: 'if_condition_from_comparison' returned 7
func.func @if_condition_from_comparison() -> i32 {
  %a = tfrt.constant.i32 3
  %b = tfrt.constant.i32 4
  %le = "tfrt.lessequal.i32"(%a, %b) : (i32, i32) -> i1
  %r = tfrt.if %le, %a, %b : (i32, i32) -> (i32) {
    %sum = tfrt.add.i32 %a, %b
    tfrt.return %sum : i32
  } else {
    tfrt.return %a : i32
  }
  tfrt.return %r : i32
}

// An error condition makes every result that error; neither branch runs.
// CHECK-LABEL: --- Running 'if_error_condition':
// CHECK-NEXT: 'if_error_condition' returned <<error: something bad happened>>,<<error: something bad happened>>
func.func @if_error_condition() -> (i32, i32) {
  // DIAG: control_flow.mlir:[[# @LINE + 1]]:11: error: runtime error: something bad happened
  %cond = "tfrt_test.fail"() : () -> i1
  %a = tfrt.constant.i32 1
  %r:2 = tfrt.if %cond, %a : (i32) -> (i32, i32) {
    %ch = tfrt.new.chain
    "tfrt_test.print_hello"(%ch) : (!tfrt.chain) -> !tfrt.chain
    tfrt.return %a, %a : i32, i32
  } else {
    %ch = tfrt.new.chain
    "tfrt_test.print_hello"(%ch) : (!tfrt.chain) -> !tfrt.chain
    tfrt.return %a, %a : i32, i32
  }
  tfrt.return %r#0, %r#1 : i32, i32
}

// A condition that arrives later (from a work-queue task) still selects.
// CHECK-LABEL: --- Running 'if_async_condition':
// CHECK-NEXT: 'if_async_condition' returned 8
func.func @if_async_condition() -> i32 {
  %zero = tfrt.constant.i32 0
  %one = tfrt.constant.i32 1
  %x = "tfrt_test.async_add.i32"(%zero, %one) : (i32, i32) -> i32
  %cond = tfrt.equal.i32 %x, %one
  %seven = tfrt.constant.i32 7
  %r = tfrt.if %cond, %seven, %x : (i32, i32) -> (i32) {
    %y = tfrt.add.i32 %seven, %x
    tfrt.return %y : i32
  } else {
    tfrt.return %seven : i32
  }
  tfrt.return %r : i32
}

// CHECK: --- Not running 'identity' because it has arguments.
func.func @identity(%x: i32) -> i32 {
  tfrt.return %x : i32
}

// tfrt.cond picks a function by symbol: a_true_fn or b_false_fn.
// CHECK-LABEL: --- Running 'cond':
// CHECK-NEXT: 'cond' returned 10,11,11
func.func @cond() -> (i32, i32, i32) {
  %true = tfrt.constant.i1 1
  %false = tfrt.constant.i1 0
  %a = tfrt.constant.i32 10
  %r1 = tfrt.cond %true @identity @add_one (%a) : (i32) -> (i32)
  %r2 = tfrt.cond %false @identity @add_one (%a) : (i32) -> (i32)
  %r3 = "tfrt.cond"(%true, %a) {a_true_fn = @add_one, b_false_fn = @identity} : (i1, i32) -> i32
  tfrt.return %r1, %r2, %r3 : i32, i32, i32
}

// CHECK: --- Not running 'branch0' because it has arguments.
func.func @branch0(%x: i32) -> i32 {
  %c = tfrt.constant.i32 100
  %y = tfrt.add.i32 %x, %c
  tfrt.return %y : i32
}

// CHECK: --- Not running 'branch1' because it has arguments.
func.func @branch1(%x: i32) -> i32 {
  %c = tfrt.constant.i32 200
  %y = tfrt.add.i32 %x, %c
  tfrt.return %y : i32
}

// CHECK: --- Not running 'branch2' because it has arguments.
func.func @branch2(%x: i32) -> i32 {
  %c = tfrt.constant.i32 300
  %y = tfrt.add.i32 %x, %c
  tfrt.return %y : i32
}

// An index out of range, negative included, selects the last branch.
// CHECK-LABEL: --- Running 'case':
// CHECK-NEXT: 'case' returned 101,201,301,301,301,101
func.func @case() -> (i32, i32, i32, i32, i32, i32) {
  %a = tfrt.constant.i32 1
  %i0 = tfrt.constant.i32 0
  %i1 = tfrt.constant.i32 1
  %i2 = tfrt.constant.i32 2
  %i7 = tfrt.constant.i32 7
  %neg = tfrt.constant.i32 -1
  %r0 = tfrt.case %i0 [@branch0, @branch1, @branch2] (%a) : (i32) -> (i32)
  %r1 = tfrt.case %i1 [@branch0, @branch1, @branch2] (%a) : (i32) -> (i32)
  %r2 = tfrt.case %i2 [@branch0, @branch1, @branch2] (%a) : (i32) -> (i32)
  %r7 = tfrt.case %i7 [@branch0, @branch1, @branch2] (%a) : (i32) -> (i32)
  %rn = tfrt.case %neg [@branch0, @branch1, @branch2] (%a) : (i32) -> (i32)
  %g = "tfrt.case"(%i0, %a) {branches = [@branch0, @branch2]} : (i32, i32) -> i32
  tfrt.return %r0, %r1, %r2, %r7, %rn, %g : i32, i32, i32, i32, i32, i32
}

// An index that arrives later.
// CHECK-LABEL: --- Running 'case_async_index':
// CHECK-NEXT: 'case_async_index' returned 205
func.func @case_async_index() -> i32 {
  %index = "tfrt_test.async_constant.i32"() {value = 1 : i32} : () -> i32
  %five = tfrt.constant.i32 5
  %r = tfrt.case %index [@branch0, @branch1] (%five) : (i32) -> (i32)
  tfrt.return %r : i32
}

// CHECK-LABEL: --- Running 'case_error_index':
// CHECK-NEXT: 'case_error_index' returned <<error: Divide by zero>>
func.func @case_error_index() -> i32 {
  %a = tfrt.constant.i32 1
  %zero = tfrt.constant.i32 0
  // DIAG: control_flow.mlir:[[# @LINE + 1]]:12: error: runtime error: Divide by zero
  %q, %r = tfrt.div.i32 %a, %zero
  %x = tfrt.case %q [@branch0, @branch1] (%a) : (i32) -> (i32)
  tfrt.return %x : i32
}

// The body returns the loop values, then the condition for the next round.
// CHECK: --- Not running 'sum_body' because it has arguments.
func.func @sum_body(%i: i32, %acc: i32) -> (i32, i32, i1) {
  %one = tfrt.constant.i32 1
  %next = tfrt.add.i32 %i, %one
  %acc2 = tfrt.add.i32 %acc, %i
  %ten = tfrt.constant.i32 10
  %more = "tfrt.lessequal.i32"(%next, %ten) : (i32, i32) -> i1
  tfrt.return %next, %acc2, %more : i32, i32, i1
}

// CHECK-LABEL: --- Running 'while_sum':
// CHECK-NEXT: 'while_sum' returned 11,55
func.func @while_sum() -> (i32, i32) {
  %true = tfrt.constant.i1 1
  %i = tfrt.constant.i32 1
  %acc = tfrt.constant.i32 0
  %r:2 = tfrt.while %true @sum_body(%i, %acc) parallel_iterations(1) : (i32, i32) -> (i32, i32)
  tfrt.return %r#0, %r#1 : i32, i32
}

// A false first condition runs no iteration.
// CHECK-LABEL: --- Running 'while_never':
// CHECK-NEXT: 'while_never' returned 5,6
func.func @while_never() -> (i32, i32) {
  %false = tfrt.constant.i1 0
  %a = tfrt.constant.i32 5
  %b = tfrt.constant.i32 6
  %r:2 = "tfrt.while"(%false, %a, %b) {body_fn = @sum_body, parallel_iterations = 4 : i64} : (i1, i32, i32) -> (i32, i32)
  tfrt.return %r#0, %r#1 : i32, i32
}

// CHECK: --- Not running 'async_countdown' because it has arguments.
func.func @async_countdown(%n: i32) -> (i32, i1) {
  %minus_one = tfrt.constant.i32 -1
  %zero = tfrt.constant.i32 0
  %next = "tfrt_test.async_add.i32"(%n, %minus_one) : (i32, i32) -> i32
  %done = tfrt.equal.i32 %next, %zero
  %false = tfrt.constant.i1 0
  %more = tfrt.if %done, %false : (i1) -> (i1) {
    tfrt.return %false : i1
  } else {
    %true = tfrt.constant.i1 1
    tfrt.return %true : i1
  }
  tfrt.return %next, %more : i32, i1
}

// A body whose values arrive from other tasks.
// CHECK-LABEL: --- Running 'while_async_body':
// CHECK-NEXT: 'while_async_body' returned 0
func.func @while_async_body() -> i32 {
  %true = tfrt.constant.i1 1
  %n = tfrt.constant.i32 20
  %r = tfrt.while %true @async_countdown(%n) parallel_iterations(1) : (i32) -> (i32)
  tfrt.return %r : i32
}

// CHECK-LABEL: --- Running 'while_error_condition':
// CHECK-NEXT: 'while_error_condition' returned <<error: something bad happened>>
func.func @while_error_condition() -> i32 {
  // DIAG: control_flow.mlir:[[# @LINE + 1]]:11: error: runtime error: something bad happened
  %cond = "tfrt_test.fail"() : () -> i1
  %n = tfrt.constant.i32 20
  %r = tfrt.while %cond @async_countdown(%n) parallel_iterations(1) : (i32) -> (i32)
  tfrt.return %r : i32
}

// CHECK: --- Not running 'fail_on_third' because it has arguments.
func.func @fail_on_third(%i: i32) -> (i32, i1) {
  %one = tfrt.constant.i32 1
  %next = tfrt.add.i32 %i, %one
  %three = tfrt.constant.i32 3
  %is_third = tfrt.equal.i32 %next, %three
  %more = tfrt.if %is_third : () -> (i1) {
    // DIAG: control_flow.mlir:[[# @LINE + 1]]:12: error: runtime error: something bad happened
    %bad = "tfrt_test.fail"() : () -> i1
    tfrt.return %bad : i1
  } else {
    %true = tfrt.constant.i1 1
    tfrt.return %true : i1
  }
  tfrt.return %next, %more : i32, i1
}

// A condition that turns into an error ends the loop with that error.
// CHECK-LABEL: --- Running 'while_error_in_body':
// CHECK-NEXT: 'while_error_in_body' returned <<error: something bad happened>>
func.func @while_error_in_body() -> i32 {
  %true = tfrt.constant.i1 1
  %zero = tfrt.constant.i32 0
  %r = tfrt.while %true @fail_on_third(%zero) parallel_iterations(1) : (i32) -> (i32)
  tfrt.return %r : i32
}

// CHECK: --- Not running 'hello_once' because it has arguments.
func.func @hello_once(%x: i32) -> i32 {
  %ch = tfrt.new.chain
  %ch1 = "tfrt_test.print_hello"(%ch) : (!tfrt.chain) -> !tfrt.chain
  %y = tfrt.add.i32 %x, %x
  tfrt.return %y : i32
}

// tfrt.once runs its function once per request: the second execution (even
// with other operands, even inside a loop) gets the first one's results.
// CHECK-LABEL: --- Running 'once':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: 'once' returned 10,10,10
func.func @once() -> (i32, i32, i32) {
  %a = tfrt.constant.i32 5
  %b = tfrt.constant.i32 6
  %r1 = tfrt.once @hello_once(%a) : (i32) -> (i32)
  %r2 = "tfrt.once"(%b) {function = @hello_once} : (i32) -> i32
  %n = tfrt.constant.i32 3
  %r3 = tfrt.repeat.i32 %n, %b : i32 {
    %o = tfrt.once @hello_once(%b) : (i32) -> (i32)
    tfrt.return %o : i32
  }
  tfrt.return %r1, %r2, %r3 : i32, i32, i32
}

// A new request runs it again.
// CHECK-LABEL: --- Running 'once_again':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: 'once_again' returned 14
func.func @once_again() -> i32 {
  %a = tfrt.constant.i32 7
  %r = tfrt.once @hello_once(%a) : (i32) -> (i32)
  tfrt.return %r : i32
}

// CHECK-LABEL: --- Running 'repeat':
// CHECK-NEXT: 'repeat' returned 5,3.200000e+01
func.func @repeat() -> (i32, f32) {
  %n = tfrt.constant.i32 5
  %a = tfrt.constant.i32 0
  %b = tfrt.constant.f32 1.0
  %r:2 = tfrt.repeat.i32 %n, %a, %b : i32, f32 {
    %one = tfrt.constant.i32 1
    %a2 = tfrt.add.i32 %a, %one
    %b2 = tfrt.add.f32 %b, %b
    tfrt.return %a2, %b2 : i32, f32
  }
  tfrt.return %r#0, %r#1 : i32, f32
}

// A count of zero (or less) returns the inputs.
// CHECK-LABEL: --- Running 'repeat_zero':
// CHECK-NEXT: 'repeat_zero' returned 9,9
func.func @repeat_zero() -> (i32, i32) {
  %zero = tfrt.constant.i32 0
  %neg = tfrt.constant.i32 -4
  %a = tfrt.constant.i32 9
  %r = tfrt.repeat.i32 %zero, %a : i32 {
    %b = tfrt.add.i32 %a, %a
    tfrt.return %b : i32
  }
  %s = tfrt.repeat.i32 %neg, %a : i32 {
    %b = tfrt.add.i32 %a, %a
    tfrt.return %b : i32
  }
  tfrt.return %r, %s : i32, i32
}

// Without loop values the body runs for its side effects only; threading a
// chain orders them.
// CHECK-LABEL: --- Running 'repeat_side_effects':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: int32 = 1
// CHECK-NEXT: int32 = 2
// CHECK-NEXT: 'repeat_side_effects' returned 2
func.func @repeat_side_effects() -> i32 {
  %three = tfrt.constant.i32 3
  tfrt.repeat.i32 %three {
    %ch = tfrt.new.chain
    "tfrt_test.print_hello"(%ch) : (!tfrt.chain) -> !tfrt.chain
    tfrt.return
  }
  %two = tfrt.constant.i32 2
  %zero = tfrt.constant.i32 0
  %ch0 = tfrt.new.chain
  %x, %ch1 = tfrt.repeat.i32 %two, %zero, %ch0 : i32, !tfrt.chain {
    %one = tfrt.constant.i32 1
    %y = tfrt.add.i32 %zero, %one
    %ch2 = tfrt.print.i32 %y, %ch0
    tfrt.return %y, %ch2 : i32, !tfrt.chain
  }
  tfrt.return %x : i32
}

// Nested loops: 4 x 3 increments.
// CHECK-LABEL: --- Running 'nested_repeat':
// CHECK-NEXT: 'nested_repeat' returned 12
func.func @nested_repeat() -> i32 {
  %four = tfrt.constant.i32 4
  %three = tfrt.constant.i32 3
  %zero = tfrt.constant.i32 0
  %r:2 = tfrt.repeat.i32 %four, %zero, %three : i32, i32 {
    %inner = tfrt.repeat.i32 %three, %zero : i32 {
      %one = tfrt.constant.i32 1
      %next = tfrt.add.i32 %zero, %one
      tfrt.return %next : i32
    }
    tfrt.return %inner, %three : i32, i32
  }
  tfrt.return %r#0 : i32
}

// Many iterations of a synchronous body do not grow the stack.
// CHECK-LABEL: --- Running 'long_repeat':
// CHECK-NEXT: 'long_repeat' returned 100000
func.func @long_repeat() -> i32 {
  %n = tfrt.constant.i32 100000
  %zero = tfrt.constant.i32 0
  %r = tfrt.repeat.i32 %n, %zero : i32 {
    %one = tfrt.constant.i32 1
    %next = tfrt.add.i32 %zero, %one
    tfrt.return %next : i32
  }
  tfrt.return %r : i32
}

// An error loop value flows through the later iterations, whose kernels
// are skipped: one diagnostic, from the first iteration.
// CHECK-LABEL: --- Running 'repeat_error_value':
// CHECK-NEXT: 'repeat_error_value' returned <<error: Divide by zero>>
func.func @repeat_error_value() -> i32 {
  %n = tfrt.constant.i32 5
  %zero = tfrt.constant.i32 0
  %r = tfrt.repeat.i32 %n, %zero : i32 {
    // DIAG: control_flow.mlir:[[# @LINE + 1]]:16: error: runtime error: Divide by zero
    %q, %rem = tfrt.div.i32 %zero, %zero
    tfrt.return %q : i32
  }
  tfrt.return %r : i32
}

// CHECK-LABEL: --- Running 'repeat_error_count':
// CHECK-NEXT: 'repeat_error_count' returned <<error: something bad happened>>
func.func @repeat_error_count() -> i32 {
  // DIAG: control_flow.mlir:[[# @LINE + 1]]:8: error: runtime error: something bad happened
  %n = "tfrt_test.fail"() : () -> i32
  %zero = tfrt.constant.i32 0
  %r = tfrt.repeat.i32 %n, %zero : i32 {
    tfrt.return %zero : i32
  }
  tfrt.return %r : i32
}
// DIAG-NOT: error
