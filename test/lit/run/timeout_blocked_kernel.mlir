// A kernel blocked outside the executor (here a 2,000 s sleep on the
// blocking pool) does not stop when its request is cancelled, so
// -timeout's bound is kept by ending the process: 1 s after the deadline
// (4 s in a sanitizer's build) the runner says which function it gave up
// on and exits with status 1, whatever the work queue. `timeout 60` only
// bounds the test if that fails.
// RUN: not timeout 60 %sluice_run %s -timeout=0.5 > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: not timeout 60 %sluice_run %s -timeout=0.5 -work_queue_type=mstd:2 > %t.mstd.out 2> %t.mstd.err
// RUN: FileCheck %s < %t.mstd.out
// RUN: FileCheck %s --check-prefix=ERR < %t.mstd.err

// CHECK: --- Running 'blocked':
// CHECK-NOT: returned
// ERR: sluice_run: 'blocked' is still running {{1|4}}s after its --timeout of 0.5 s: a kernel blocked outside the executor does not stop when cancelled; exiting without it
func.func @blocked() -> !tfrt.chain {
  %n = tfrt.constant.i32 2000000000
  %slept = "tfrt_test.blocking.usleep"(%n) : (i32) -> !tfrt.chain
  tfrt.return %slept : !tfrt.chain
}
