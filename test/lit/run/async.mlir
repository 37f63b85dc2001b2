// Asynchronous execution: tfrt_test.do.async, the async_* kernels whose
// results complete from work-queue tasks, delays, sleeps on the blocking
// pool, tfrt.parallel_for.i32 / tfrt.parallel_call.i32, thread ids and
// tfrt_test.as_chain. Results do not depend on the queue.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr
// Single-threaded, everything runs on the main thread (id 0); with worker
// threads the body of tfrt_test.do.async runs on one of them.
// The main thread is 0 even when a worker asks first.
// RUN: sluice_run -work_queue_type=s %s -functions=worker_asks_first,thread_ids | FileCheck %s --check-prefix=SINGLE
// RUN: sluice_run -work_queue_type=mstd:2,4 %s -functions=worker_asks_first,thread_ids | FileCheck %s --check-prefix=MULTI
// RUN: sluice_run -work_queue_type=mstd %s -functions=parallel_for | FileCheck %s --check-prefix=DEFAULT

// CHECK-LABEL: --- Running 'do_async':
// CHECK-NEXT: 'do_async' returned 3,4
func.func @do_async() -> (i32, i32) {
  %x = tfrt.constant.i32 1
  %c = tfrt.constant.i32 2
  %y:2 = tfrt_test.do.async %x, %c : (i32, i32) -> (i32, i32) {
    %sum = tfrt.add.i32 %x, %c
    %twice = tfrt.add.i32 %c, %c
    tfrt.return %sum, %twice : i32, i32
  }
  tfrt.return %y#0, %y#1 : i32, i32
}

// The region's own results may themselves be pending.
// CHECK-LABEL: --- Running 'do_async_nested':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: 'do_async_nested' returned 12
func.func @do_async_nested() -> i32 {
  %x = tfrt.constant.i32 5
  %ch = tfrt.new.chain
  %y = tfrt_test.do.async %x, %ch : (i32, !tfrt.chain) -> (i32) {
    %ch1 = "tfrt_test.print_hello"(%ch) : (!tfrt.chain) -> !tfrt.chain
    %z = tfrt_test.do.async %x : (i32) -> (i32) {
      %two = tfrt.constant.i32 2
      %w = "tfrt_test.async_add.i32"(%x, %two) : (i32, i32) -> i32
      tfrt.return %w : i32
    }
    %r = tfrt.add.i32 %z, %x
    tfrt.return %r : i32
  }
  tfrt.return %y : i32
}

// CHECK-LABEL: --- Running 'do_async_no_results':
// CHECK-NEXT: int32 = 6
// CHECK-NEXT: --- Running 'async_kernels':
func.func @do_async_no_results() {
  %x = tfrt.constant.i32 6
  %ch = tfrt.new.chain
  tfrt_test.do.async %x, %ch : (i32, !tfrt.chain) -> () {
    tfrt.print.i32 %x, %ch
    tfrt.return
  }
  tfrt.return
}

// CHECK-NEXT: 'async_kernels' returned 3,3,3,3,77,77,9,-2147483648
func.func @async_kernels() -> (i32, i32, i32, i32, i32, i32, i64, i32) {
  %a = tfrt.constant.i32 1
  %b = tfrt.constant.i32 2
  %sum = "tfrt_test.async_add.i32"(%a, %b) : (i32, i32) -> i32
  %c1 = "tfrt_test.async_copy.i32"(%sum) : (i32) -> i32
  %c2 = "tfrt_test.async_copy.with_delay.i32"(%c1) : (i32) -> i32
  %c3 = "tfrt_test.async_copy_2.i32"(%c2) : (i32) -> i32
  %k = "tfrt_test.async_constant.i32"() {value = 77 : i32} : () -> i32
  %d = "tfrt_test.copy.with_delay.i32"(%k) : (i32) -> i32
  %l = tfrt.constant.i64 9
  %d64 = "tfrt_test.copy.with_delay.i64"(%l) : (i64) -> i64
  %max = tfrt.constant.i32 2147483647
  %wrap = "tfrt_test.async_add.i32"(%max, %a) : (i32, i32) -> i32
  tfrt.return %sum, %c1, %c2, %c3, %k, %d, %d64, %wrap : i32, i32, i32, i32, i32, i32, i64, i32
}

// A chain of async kernels: each waits for the previous one's task.
// CHECK-LABEL: --- Running 'async_chain':
// CHECK-NEXT: int32 = 3
// CHECK-NEXT: int32 = 6
// CHECK-NEXT: 'async_chain' returned 6
func.func @async_chain() -> i32 {
  %ch0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %three = "tfrt_test.async_add.i32"(%one, %two) : (i32, i32) -> i32
  %ch1 = tfrt.print.i32 %three, %ch0
  %six = "tfrt_test.async_add.i32"(%three, %three) : (i32, i32) -> i32
  %ch2 = tfrt.print.i32 %six, %ch1
  tfrt.return %six : i32
}

// An error operand skips the async kernel too.
// CHECK-LABEL: --- Running 'async_error_operand':
// CHECK-NEXT: 'async_error_operand' returned <<error: something bad happened>>
func.func @async_error_operand() -> i32 {
  // DIAG: async.mlir:[[# @LINE + 1]]:10: error: runtime error: something bad happened
  %bad = "tfrt_test.fail"() : () -> i32
  %copy = "tfrt_test.async_copy.i32"(%bad) : (i32) -> i32
  tfrt.return %copy : i32
}

// tfrt_test.usleep has no result: the runner's quiesce waits for it.
// CHECK-LABEL: --- Running 'sleeps':
// CHECK-DAG: Slept for 1000 microseconds
// CHECK-DAG: Slept for 2000 microseconds
// CHECK: 'sleeps' returned !tfrt.chain value
func.func @sleeps() -> !tfrt.chain {
  %n = tfrt.constant.i32 1000
  "tfrt_test.usleep"(%n) : (i32) -> ()
  %m = tfrt.constant.i32 2000
  %ch = "tfrt_test.blocking.usleep"(%m) : (i32) -> !tfrt.chain
  tfrt.return %ch : !tfrt.chain
}

// The chain of blocking.usleep orders what follows it.
// CHECK-LABEL: --- Running 'blocking_usleep_orders':
// CHECK-NEXT: Slept for 500 microseconds
// CHECK-NEXT: hello host executor!
// CHECK-NOT: returned
func.func @blocking_usleep_orders() {
  %n = tfrt.constant.i32 500
  %ch = "tfrt_test.blocking.usleep"(%n) : (i32) -> !tfrt.chain
  "tfrt_test.print_hello"(%ch) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// tfrt_test.as_chain waits for all its operands, whatever their types.
// CHECK-LABEL: --- Running 'as_chain':
// CHECK-NEXT: int32 = 5
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: 'as_chain' returned !tfrt.chain value
func.func @as_chain() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %five = "tfrt_test.async_add.i32"(%two, %three) : (i32, i32) -> i32
  %ch1 = tfrt.print.i32 %five, %ch0
  %f = tfrt.constant.f32 1.0
  %all = "tfrt_test.as_chain"(%five, %ch1, %f) : (i32, !tfrt.chain, f32) -> !tfrt.chain
  %ch2 = "tfrt_test.print_hello"(%all) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch2 : !tfrt.chain
}

// [1, 11) in blocks of 3 is [1, 4), [4, 7), [7, 10), [10, 11): each block
// adds its length to one counter, its start to another, and counts itself.
// The lengths cover the range exactly once; the starts add up to 22.
// CHECK-LABEL: --- Running 'parallel_for':
// CHECK-NEXT: 'parallel_for' returned 10,22,4
// DEFAULT: 'parallel_for' returned 10,22,4
func.func @parallel_for() -> (i32, i32, i32) {
  %ch0 = tfrt.new.chain
  %sum = "tfrt_test.atomic.create.i32"(%ch0) : (!tfrt.chain) -> !test.atomic.i32
  %starts = "tfrt_test.atomic.create.i32"(%ch0) : (!tfrt.chain) -> !test.atomic.i32
  %blocks = "tfrt_test.atomic.create.i32"(%ch0) : (!tfrt.chain) -> !test.atomic.i32
  %start = tfrt.constant.i32 1
  %end = tfrt.constant.i32 11
  %size = tfrt.constant.i32 3
  %done = tfrt.parallel_for.i32 %start to %end fixed %size, %sum, %starts, %blocks : !test.atomic.i32, !test.atomic.i32, !test.atomic.i32 {
    %n = "tfrt.minus.i32"(%end, %start) : (i32, i32) -> i32
    %c1 = "tfrt_test.atomic.add.i32"(%sum, %n) : (!test.atomic.i32, i32) -> !tfrt.chain
    %c2 = "tfrt_test.atomic.add.i32"(%starts, %start) : (!test.atomic.i32, i32) -> !tfrt.chain
    %c3 = "tfrt_test.atomic.inc.i32"(%blocks) : (!test.atomic.i32) -> !tfrt.chain
    %c = tfrt.merge.chains %c1, %c2, %c3 : !tfrt.chain, !tfrt.chain, !tfrt.chain
    tfrt.return %c : !tfrt.chain
  }
  %v, %ch1 = "tfrt_test.atomic.get.i32"(%sum, %done) : (!test.atomic.i32, !tfrt.chain) -> (i32, !tfrt.chain)
  %s, %ch2 = "tfrt_test.atomic.get.i32"(%starts, %done) : (!test.atomic.i32, !tfrt.chain) -> (i32, !tfrt.chain)
  %b, %ch3 = "tfrt_test.atomic.get.i32"(%blocks, %done) : (!test.atomic.i32, !tfrt.chain) -> (i32, !tfrt.chain)
  tfrt.return %v, %s, %b : i32, i32, i32
}

// A body may end in a plain tfrt.return; an empty range runs no block.
// CHECK-LABEL: --- Running 'parallel_for_plain_body':
// CHECK-NEXT: 'parallel_for_plain_body' returned !tfrt.chain value,!tfrt.chain value
func.func @parallel_for_plain_body() -> (!tfrt.chain, !tfrt.chain) {
  %start = tfrt.constant.i32 0
  %end = tfrt.constant.i32 2
  %one = tfrt.constant.i32 1
  %done = tfrt.parallel_for.i32 %start to %end fixed %one {
    tfrt.return
  }
  %empty = tfrt.parallel_for.i32 %end to %start fixed %one {
    %x = tfrt.constant.i32 1
    %ch = tfrt.new.chain
    tfrt.print.i32 %x, %ch
    tfrt.return
  }
  tfrt.return %done, %empty : !tfrt.chain, !tfrt.chain
}

// CHECK: --- Not running 'count_block' because it has arguments.
func.func @count_block(%start: i32, %end: i32, %counter: !test.atomic.i32) -> !tfrt.chain {
  %c = "tfrt_test.atomic.inc.i32"(%counter) : (!test.atomic.i32) -> !tfrt.chain
  tfrt.return %c : !tfrt.chain
}

// [5, 25) in blocks of 4: five calls of @count_block.
// CHECK-LABEL: --- Running 'parallel_call':
// CHECK-NEXT: 'parallel_call' returned 5
func.func @parallel_call() -> i32 {
  %ch0 = tfrt.new.chain
  %counter = "tfrt_test.atomic.create.i32"(%ch0) : (!tfrt.chain) -> !test.atomic.i32
  %start = tfrt.constant.i32 5
  %end = tfrt.constant.i32 25
  %size = tfrt.constant.i32 4
  %done = tfrt.parallel_call.i32 %start to %end fixed %size @count_block(%counter) : !test.atomic.i32
  %v, %ch1 = "tfrt_test.atomic.get.i32"(%counter, %done) : (!test.atomic.i32, !tfrt.chain) -> (i32, !tfrt.chain)
  tfrt.return %v : i32
}

// A failing block makes the chain its error.
// CHECK-LABEL: --- Running 'parallel_for_failing_block':
// CHECK-NEXT: 'parallel_for_failing_block' returned <<error: something bad happened>>
func.func @parallel_for_failing_block() -> !tfrt.chain {
  %start = tfrt.constant.i32 0
  %end = tfrt.constant.i32 3
  %size = tfrt.constant.i32 2
  %done = tfrt.parallel_for.i32 %start to %end fixed %size {
    // Both blocks fail, each with its diagnostic.
    // DIAG-COUNT-2: async.mlir:[[# @LINE + 1]]:12: error: runtime error: something bad happened
    %bad = "tfrt_test.fail"() : () -> i32
    %ch = "tfrt_test.as_chain"(%bad) : (i32) -> !tfrt.chain
    tfrt.return %ch : !tfrt.chain
  }
  tfrt.return %done : !tfrt.chain
}

// CHECK-LABEL: --- Running 'parallel_for_bad_block_size':
// CHECK-NEXT: 'parallel_for_bad_block_size' returned <<error: block size must be positive, got 0>>
func.func @parallel_for_bad_block_size() -> !tfrt.chain {
  %start = tfrt.constant.i32 0
  %end = tfrt.constant.i32 2
  %zero = tfrt.constant.i32 0
  // DIAG: async.mlir:[[# @LINE + 1]]:11: error: runtime error: block size must be positive, got 0
  %done = tfrt.parallel_for.i32 %start to %end fixed %zero {
    tfrt.return
  }
  tfrt.return %done : !tfrt.chain
}

// CHECK-LABEL: --- Running 'worker_asks_first':
// CHECK-NEXT: 'worker_asks_first' returned {{[0-9]+}}
// SINGLE: 'worker_asks_first' returned 0
// MULTI: 'worker_asks_first' returned {{[1-9][0-9]*}}
func.func @worker_asks_first() -> i32 {
  %ch = tfrt.new.chain
  %worker = tfrt_test.do.async %ch : (!tfrt.chain) -> (i32) {
    %id = "tfrt_test.get_thread_id"(%ch) : (!tfrt.chain) -> i32
    tfrt.return %id : i32
  }
  tfrt.return %worker : i32
}

// CHECK-LABEL: --- Running 'thread_ids':
// CHECK-NEXT: 'thread_ids' returned 0,{{[0-9]+}}
// SINGLE: 'thread_ids' returned 0,0
// MULTI: 'thread_ids' returned 0,{{[1-9][0-9]*}}
func.func @thread_ids() -> (i32, i32) {
  %ch = tfrt.new.chain
  %main = "tfrt_test.get_thread_id"(%ch) : (!tfrt.chain) -> i32
  %worker = tfrt_test.do.async %ch : (!tfrt.chain) -> (i32) {
    %id = "tfrt_test.get_thread_id"(%ch) : (!tfrt.chain) -> i32
    tfrt.return %id : i32
  }
  tfrt.return %main, %worker : i32, i32
}
// DIAG-NOT: error
