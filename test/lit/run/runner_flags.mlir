// sluice_run's command line: which functions run and in what order
// (-functions, -test_init_function), the work queue (-work_queue_type),
// error codes (-print_error_code), where the program comes from (a file,
// standard input, compiled or not), --help and bad flag values.
// (-host_allocator_type: allocators.mlir; -verify-diagnostics:
// verify_diagnostics.mlir; -timeout: timeout.mlir.)

// By default every function runs, in file order.
// RUN: not %sluice_run %s 2>/dev/null | FileCheck %s --check-prefix=ALL
// ALL: --- Running 'init':
// ALL-NEXT: int32 = 0
// ALL-NEXT: --- Running 'first':
// ALL-NEXT: 'first' returned 1
// ALL-NEXT: --- Running 'second':
// ALL-NEXT: 'second' returned 2
// ALL-NEXT: --- Not running 'takes_argument' because it has arguments.
// ALL-NEXT: --- Running 'errors':
// ALL-NEXT: 'errors' returned <<error: something bad happened>>,<<error: Divide by zero>>
// ALL-NOT: Running

// -functions: only these, in the given order; a function with arguments is
// still reported as not run.
// RUN: %sluice_run %s -functions=second,first,takes_argument | FileCheck %s --check-prefix=ORDER
// RUN: %sluice_run %s --functions=second --functions=first,takes_argument | FileCheck %s --check-prefix=ORDER
// ORDER: --- Running 'second':
// ORDER-NEXT: 'second' returned 2
// ORDER-NEXT: --- Running 'first':
// ORDER-NEXT: 'first' returned 1
// ORDER-NEXT: --- Not running 'takes_argument' because it has arguments.
// ORDER-NOT: Running

// A name that is not a function of the program: nothing runs.
// RUN: not %sluice_run %s -functions=first,a > %t.stdout 2> %t.stderr
// RUN: FileCheck %s --check-prefix=UNKNOWN < %t.stderr
// RUN: FileCheck %s --check-prefix=NOTHING --allow-empty < %t.stdout
// UNKNOWN: {{^}}sluice_run: couldn't find function a{{$}}
// NOTHING-NOT: Running

// -test_init_function runs first, then the others without it.
// RUN: not %sluice_run %s -test_init_function=init 2>/dev/null | FileCheck %s --check-prefix=INIT
// INIT: --- Running 'init':
// INIT-NEXT: int32 = 0
// INIT-NEXT: --- Running 'first':
// INIT-NOT: 'init'
// INIT: --- Running 'errors':
// RUN: %sluice_run %s -test_init_function=second -functions=first | FileCheck %s --check-prefix=INIT-FUNCTIONS
// INIT-FUNCTIONS: --- Running 'second':
// INIT-FUNCTIONS-NEXT: 'second' returned 2
// INIT-FUNCTIONS-NEXT: --- Running 'first':
// INIT-FUNCTIONS-NEXT: 'first' returned 1
// INIT-FUNCTIONS-NOT: Running
// Named in -functions too, the init function still runs once, first.
// RUN: %sluice_run %s -test_init_function=second -functions=first,second | FileCheck %s --check-prefix=INIT-FUNCTIONS
// RUN: not %sluice_run %s -test_init_function=no_such_init 2>&1 | FileCheck %s --check-prefix=UNKNOWN-INIT
// UNKNOWN-INIT: sluice_run: couldn't find function no_such_init
// UNKNOWN-INIT-NOT: Running

// Output is flushed line by line: stdout and stderr interleave in the order
// things happened.
// RUN: not sluice_run -work_queue_type=s %s -functions=first,errors 2>&1 | FileCheck %s --check-prefix=INTERLEAVED
// INTERLEAVED: --- Running 'first':
// INTERLEAVED-NEXT: 'first' returned 1
// INTERLEAVED-NEXT: --- Running 'errors':
// INTERLEAVED-NEXT: runner_flags.mlir:{{[0-9]+}}:10: error: runtime error: something bad happened
// INTERLEAVED-NEXT: runner_flags.mlir:{{[0-9]+}}:12: error: runtime error: Divide by zero
// INTERLEAVED-NEXT: 'errors' returned <<error: something bad happened>>,<<error: Divide by zero>>

// -print_error_code adds the status code's name.
// RUN: not %sluice_run %s -functions=errors -print_error_code 2>/dev/null | FileCheck %s --check-prefix=CODE
// CODE: 'errors' returned <<error: something bad happened, code: INTERNAL>>,<<error: Divide by zero, code: INTERNAL>>

// Every work queue gives the same output; both flag spellings work.
// RUN: %sluice_run %s -functions=first,second | FileCheck %s --check-prefix=QUEUE
// RUN: sluice_run -work_queue_type=s %s -functions=first,second | FileCheck %s --check-prefix=QUEUE
// RUN: sluice_run -work_queue_type=mstd %s -functions=first,second | FileCheck %s --check-prefix=QUEUE
// RUN: sluice_run -work_queue_type=mstd:1 %s -functions=first,second | FileCheck %s --check-prefix=QUEUE
// RUN: sluice_run --work_queue_type=mstd:3 %s -functions=first,second | FileCheck %s --check-prefix=QUEUE
// RUN: sluice_run --work_queue_type=mstd:2,1 %s -functions=first,second | FileCheck %s --check-prefix=QUEUE
// QUEUE: --- Running 'first':
// QUEUE-NEXT: 'first' returned 1
// QUEUE-NEXT: --- Running 'second':
// QUEUE-NEXT: 'second' returned 2

// Bad queue specs are refused before anything runs.
// RUN: not sluice_run -work_queue_type=bogus %s 2>&1 | FileCheck %s --check-prefix=BAD-QUEUE
// BAD-QUEUE: sluice_run: invalid work queue spec 'bogus'
// BAD-QUEUE-NOT: Running
// RUN: not sluice_run -work_queue_type=mstd:0 %s 2>&1 | FileCheck %s --check-prefix=ZERO-THREADS
// ZERO-THREADS: sluice_run: invalid work queue spec 'mstd:0'
// ZERO-THREADS-NOT: Running
// RUN: not sluice_run -work_queue_type=mstd:two %s 2>&1 | FileCheck %s --check-prefix=BAD-COUNT
// BAD-COUNT: sluice_run: invalid work queue spec 'mstd:two'

// Flags the command line refuses: one line naming the tool, exit status 1.
// RUN: sluice_run -timeout=soon %s > %t.bad 2>&1; test $? -eq 1
// RUN: FileCheck %s --check-prefix=BAD-FLAG --match-full-lines < %t.bad
// BAD-FLAG: sluice_run: --timeout=soon is not a number: expected 0 to 604800
// BAD-FLAG-NOT: Running
// RUN: sluice_run -no_such_flag %s > %t.unknown 2>&1; test $? -eq 1
// RUN: FileCheck %s --check-prefix=NO-FLAG --match-full-lines < %t.unknown
// NO-FLAG: sluice_run: unknown flag '-no_such_flag' (try 'sluice_run --help')
// RUN: not sluice_run -print_error_code=maybe %s 2>&1 | FileCheck %s --check-prefix=NOT-BOOL
// NOT-BOOL: sluice_run: --print_error_code=maybe is neither true nor false
// RUN: not sluice_run %s -functions 2>&1 | FileCheck %s --check-prefix=NO-VALUE
// NO-VALUE: sluice_run: --functions needs a value
// RUN: not sluice_run %s %s 2>&1 | FileCheck %s --check-prefix=TWO-INPUTS
// TWO-INPUTS: sluice_run: unexpected argument '{{.*}}runner_flags.mlir'

// The program may come on standard input, as MLIR text or compiled; `-`
// names it explicitly. The kind is recognised by content, not by name.
// RUN: cat %s | %sluice_run -functions=second | FileCheck %s --check-prefix=STDIN
// RUN: cat %s | %sluice_run - -functions=second | FileCheck %s --check-prefix=STDIN
// RUN: sluice_translate --mlir-to-sbf %s -o - | %sluice_run -functions=second | FileCheck %s --check-prefix=STDIN
// RUN: sluice_translate --mlir-to-sbf %s -o %t.mlir
// RUN: %sluice_run %t.mlir -functions=second | FileCheck %s --check-prefix=STDIN
// RUN: cp %s %t.sbf
// RUN: %sluice_run %t.sbf -functions=second | FileCheck %s --check-prefix=STDIN
// STDIN: --- Running 'second':
// STDIN-NEXT: 'second' returned 2

// An empty program runs nothing and succeeds.
// RUN: %sluice_run %S/Inputs/empty.mlir | FileCheck %s --check-prefix=EMPTY --allow-empty
// EMPTY-NOT: Running

// An input that cannot be read.
// RUN: not sluice_run %t.does_not_exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: sluice_run: cannot open '{{.*}}does_not_exist.mlir': No such file or directory
// RUN: not sluice_run %S 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// DIRECTORY: sluice_run: cannot read '{{.*}}': Is a directory

// An input that never ends, or one past the 256 MiB limit, is refused as
// soon as it passes the limit, before anything is compiled.
// RUN: not sluice_run /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS
// ENDLESS: sluice_run: '/dev/zero' goes on past the 256 MiB an input may hold
// RUN: not sluice_run - < /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS-STDIN
// ENDLESS-STDIN: sluice_run: '<stdin>' goes on past the 256 MiB an input may hold
// RUN: rm -f %t.large && truncate -s 300M %t.large
// RUN: not sluice_run %t.large 2>&1 | FileCheck %s --check-prefix=LARGE
// LARGE: sluice_run: '{{.*}}.large' holds 300 MiB, more than the 256 MiB an input may hold
// RUN: rm -f %t.large

// --help lists every option, one line each.
// RUN: sluice_run --help | FileCheck %s --check-prefix=HELP
// HELP: USAGE: sluice_run [options] <program.mlir | program.sbf | - for stdin>
// HELP-DAG: {{^ *}}--functions=<string> {{.*}}- run only these functions, in this order
// HELP-DAG: {{^ *}}--host_allocator_type=<string> {{.*}}- malloc | leak_check {{.*}}| profiled | test_fixed_size_1k
// HELP-DAG: {{^ *}}--print_error_code {{.*}}- print error values with their status code
// HELP-DAG: {{^ *}}--test_init_function=<string> {{.*}}- run this function first, then the rest
// HELP-DAG: {{^ *}}--timeout=<number> {{.*}}- cancel each function after this many seconds
// HELP-DAG: {{^ *}}--verify-diagnostics {{.*}}- check runtime errors against expected-error annotations
// HELP-DAG: {{^ *}}--work_queue_type=<string> {{.*}}- s (single-threaded, the default) | mstd | mstd:N | mstd:N,M
// RUN: sluice_run --version | FileCheck %s --check-prefix=VERSION
// VERSION: sluice_run (Sluice)

// Its region is a function of the program too, but is never listed.
func.func @init() {
  %ch = tfrt.new.chain
  %zero = tfrt.constant.i32 0
  %one = tfrt.constant.i32 1
  tfrt.repeat.i32 %one, %zero, %ch : i32, !tfrt.chain {
    %ch1 = tfrt.print.i32 %zero, %ch
    tfrt.return %zero, %ch1 : i32, !tfrt.chain
  }
  tfrt.return
}

func.func @first() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}

func.func @second() -> i32 {
  %two = tfrt.constant.i32 2
  tfrt.return %two : i32
}

func.func @takes_argument(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @errors() -> (i32, i32) {
  %bad = "tfrt_test.fail"() : () -> i32
  %one = tfrt.constant.i32 1
  %zero = tfrt.constant.i32 0
  %q, %r = tfrt.div.i32 %one, %zero
  tfrt.return %bad, %q : i32, i32
}
