// tfrt_test.benchmark runs its region serially after num_warmup_runs
// warm-up runs, until max_count measured runs or duration_secs, then prints
// its figures, each line prefixed `BM:name:`. Timings vary; their shape and
// the counts do not.
// RUN: not %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.stderr

// CHECK-LABEL: --- Running 'synchronous_body':
// CHECK-NEXT: {{^}}BM:add:Duration(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:add:Count: 100{{$}}
// CHECK-NEXT: {{^}}BM:add:Time Min(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:add:Time 50%(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:add:Time 95%(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:add:Time 99%(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:add:CPU Min(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:add:CPU 50%(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:add:CPU 95%(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:add:CPU 99%(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:add:CPU utilization(percent): {{[0-9]\.[0-9]+e[+-][0-9]+$}}
// CHECK-NEXT: --- Running 'asynchronous_body':
func.func @synchronous_body() {
  %c = tfrt.constant.i32 1
  %d = tfrt.constant.i32 2
  tfrt_test.benchmark "add"(%c : i32, %d : i32) duration_secs = 10, max_count = 100, num_warmup_runs = 10 {
    %x = tfrt.add.i32 %c, %d
    tfrt.return %x : i32
  }
  tfrt.return
}

// A run ends when its results are available; the result chain resolves
// after the report. num_warmup_runs defaults to 1.
// CHECK-NEXT: {{^}}BM:async:Duration(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:async:Count: 5{{$}}
// CHECK-COUNT-8: {{^}}BM:async:{{(Time|CPU) (Min|50%|95%|99%)}}(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:async:CPU utilization(percent): {{.+$}}
// CHECK-NEXT: 'asynchronous_body' returned !tfrt.chain value
func.func @asynchronous_body() -> !tfrt.chain {
  %c = tfrt.constant.i32 1
  %done = tfrt_test.benchmark "async"(%c : i32) duration_secs = 10, max_count = 5 {
    %x = "tfrt_test.async_add.i32"(%c, %c) : (i32, i32) -> i32
    %y = "tfrt_test.async_copy.with_delay.i32"(%x) : (i32) -> i32
    tfrt.return %y : i32
  }
  tfrt.return %done : !tfrt.chain
}

// Runs are serial: each sees the counter the previous one left. Two warm-up
// runs and three measured runs make five increments.
// CHECK-LABEL: --- Running 'runs_are_serial':
// CHECK: {{^}}BM:serial:Count: 3{{$}}
// CHECK: 'runs_are_serial' returned 5
func.func @runs_are_serial() -> i32 {
  %ch0 = tfrt.new.chain
  %counter = "tfrt_test.atomic.create.i32"(%ch0) : (!tfrt.chain) -> !test.atomic.i32
  %done = tfrt_test.benchmark "serial"(%counter : !test.atomic.i32) duration_secs = 10, max_count = 3, num_warmup_runs = 2 {
    %ch = "tfrt_test.atomic.inc.i32"(%counter) : (!test.atomic.i32) -> !tfrt.chain
    tfrt.return %ch : !tfrt.chain
  }
  %v, %ch1 = "tfrt_test.atomic.get.i32"(%counter, %done) : (!test.atomic.i32, !tfrt.chain) -> (i32, !tfrt.chain)
  tfrt.return %v : i32
}

// The duration limit stops the benchmark long before max_count.
// CHECK-LABEL: --- Running 'duration_limit':
// CHECK: {{^}}BM:short:Count: 1{{$}}
func.func @duration_limit() -> !tfrt.chain {
  %n = tfrt.constant.i32 1000
  %done = tfrt_test.benchmark "short"(%n : i32) duration_secs = 0, max_count = 1000000, num_warmup_runs = 0 {
    %ch = "tfrt_test.blocking.usleep"(%n) : (i32) -> !tfrt.chain
    tfrt.return %ch : !tfrt.chain
  }
  tfrt.return %done : !tfrt.chain
}

// The generic form names the attributes, as i32.
// CHECK-LABEL: --- Running 'generic_form':
// CHECK-NEXT: {{^}}BM:generic:Duration(ns): {{[0-9]+$}}
// CHECK-NEXT: {{^}}BM:generic:Count: 3{{$}}
func.func @generic_form() -> !tfrt.chain {
  %done = "tfrt_test.benchmark"() ({
    %one = tfrt.constant.i32 1
    tfrt.return %one : i32
  }) {name = "generic", duration_secs = 10 : i32, max_count = 3 : i32, num_warmup_runs = 0 : i32} : () -> !tfrt.chain
  tfrt.return %done : !tfrt.chain
}

// A failing run stops the benchmark without a report; the chain is the
// error.
// CHECK-LABEL: --- Running 'failing_body':
// CHECK-NOT: BM:
// CHECK: 'failing_body' returned <<error: something bad happened>>
func.func @failing_body() -> !tfrt.chain {
  %done = tfrt_test.benchmark "fails"() duration_secs = 10, max_count = 3 {
    // DIAG: benchmark.mlir:[[# @LINE + 1]]:12: error: runtime error: something bad happened
    %bad = "tfrt_test.fail"() : () -> i32
    tfrt.return %bad : i32
  }
  tfrt.return %done : !tfrt.chain
}
// DIAG-NOT: error
