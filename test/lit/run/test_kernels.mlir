// The small tfrt_test kernels that make the runtime observable: prints,
// count3, test_cost, logging, the AsyncValue self-tests, the shared
// context, debug info from locations, and the tutorial kernels.
// RUN: %sluice_run %s 2> %t.stderr | FileCheck %s
// RUN: FileCheck %s --check-prefix=LOG < %t.stderr

// CHECK-LABEL: --- Running 'prints':
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: true
// CHECK-NEXT: false
// CHECK-NEXT: hello host executor!
// CHECK-NEXT: 'prints' returned !tfrt.chain value
func.func @prints() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %ch1 = "tfrt_test.print_hello"(%ch0) : (!tfrt.chain) -> !tfrt.chain
  %true = tfrt.constant.i1 true
  %false = tfrt.constant.i1 false
  %ch2 = "tfrt_test.print_bool"(%ch1, %true) : (!tfrt.chain, i1) -> !tfrt.chain
  %ch3 = "tfrt_test.print_bool"(%ch2, %false) : (!tfrt.chain, i1) -> !tfrt.chain
  %ch4 = "tfrt_test.print_hello"(%ch3) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return %ch4 : !tfrt.chain
}

// Both forms of the ODS op.
// CHECK-LABEL: --- Running 'count3':
// CHECK-NEXT: 'count3' returned 11,12,13,-2147483648
func.func @count3() -> (i32, i32, i32, i32) {
  %x = tfrt.constant.i32 10
  %a, %b, %c = tfrt_test.count3.i32 %x
  %max = tfrt.constant.i32 2147483645
  %d:3 = "tfrt_test.count3.i32"(%max) : (i32) -> (i32, i32, i32)
  tfrt.return %a, %b, %c, %d#2 : i32, i32, i32, i32
}

// `_tfrt_cost` is a hint and never reaches the kernel; `id` does.
// CHECK-LABEL: --- Running 'test_cost':
// CHECK-NEXT: id: 7
// CHECK-NEXT: id: 8
// CHECK-NEXT: 'test_cost' returned 0,0
func.func @test_cost() -> (i32, i32) attributes {tfrt.cost_threshold = 3 : i64} {
  %x = tfrt.constant.i32 10
  %a = tfrt_test.test_cost %x {id = 7 : i64, _tfrt_cost = 100 : i64} : i32
  %b = "tfrt_test.test_cost"(%a) {id = 8 : i64, _tfrt_cost = 1 : i64} : (i32) -> i32
  tfrt.return %a, %b : i32, i32
}

// Six log lines on stderr, in order; nothing on stdout.
// CHECK-LABEL: --- Running 'logging':
// CHECK-NEXT: 'logging' returned !tfrt.chain value
// LOG: from TFRT_LOG(INFO): log me
// LOG-NEXT: from TFRT_LOG(WARNING): log me
// LOG-NEXT: from TFRT_LOG(ERROR): log me
// LOG-NEXT: from TFRT_LOG_IF(INFO, true): log me
// LOG-NEXT: from TFRT_LOG_IF(WARNING, true): log me
// LOG-NEXT: from TFRT_LOG_IF(ERROR, true): log me
// LOG-NOT: from
func.func @logging() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %text = "tfrt_test.get_string"() {value = "log me"} : () -> !tfrt.string
  %ch1 = "tfrt_test.logging"(%text, %ch0) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return %ch1 : !tfrt.chain
}

// The AsyncValue self-tests print what they observed and return it.
// CHECK-LABEL: --- Running 'async_value_self_tests':
// CHECK-NEXT: base1:base2:final_class:3
// CHECK-NEXT: available:2;unavailable;(3);available:3;unavailable;available:4
// CHECK-NEXT: string = base1:base2:final_class:3
// CHECK-NEXT: string = available:2;unavailable;(3);available:3;unavailable;available:4
func.func @async_value_self_tests() {
  %ch0 = tfrt.new.chain
  %get = "tfrt_test.async_value_get"() : () -> !tfrt.string
  %ch1 = "tfrt_test.as_chain"(%get) : (!tfrt.string) -> !tfrt.chain
  %ref = "tfrt_test.async_value_ref"(%ch1) : (!tfrt.chain) -> !tfrt.string
  %ch2 = "tfrt_test.as_chain"(%ref) : (!tfrt.string) -> !tfrt.chain
  %ch3 = "tfrt_test.print_string"(%get, %ch2) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %ch4 = "tfrt_test.print_string"(%ref, %ch3) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// One shared context per host: every use sees the same one.
// CHECK-LABEL: --- Running 'shared_context':
// CHECK-NEXT: string = sample_shared_context0
// CHECK-NEXT: string = sample_shared_context0
func.func @shared_context() {
  %ch0 = tfrt.new.chain
  %name, %ch1 = "tfrt_test.use_sample_shared_context"(%ch0) : (!tfrt.chain) -> (!tfrt.string, !tfrt.chain)
  %ch2 = "tfrt_test.print_string"(%name, %ch1) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  %again, %ch3 = "tfrt_test.use_sample_shared_context"(%ch2) : (!tfrt.chain) -> (!tfrt.string, !tfrt.chain)
  %ch4 = "tfrt_test.print_string"(%again, %ch3) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// A later request (a new function run) on the same host shares it too.
// CHECK-LABEL: --- Running 'shared_context_again':
// CHECK-NEXT: string = sample_shared_context0
func.func @shared_context_again() {
  %ch0 = tfrt.new.chain
  %name, %ch1 = "tfrt_test.use_sample_shared_context"(%ch0) : (!tfrt.chain) -> (!tfrt.string, !tfrt.chain)
  "tfrt_test.print_string"(%name, %ch1) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// The debug name comes from the op's location: a name, the names of a
// fused location, the callee of a call site; a file location has none.
// CHECK-LABEL: --- Running 'debug_info':
// CHECK-NEXT: my_kernel
// CHECK-NEXT: Kernel has no debug info
// CHECK-NEXT: {{^}}first{{.*}}second{{$}}
// CHECK-NEXT: {{^}}the_callee{{$}}
// CHECK-NEXT: {{^}}with_child_loc{{$}}
func.func @debug_info() {
  %ch0 = tfrt.new.chain
  %ch1 = "tfrt_test.print_debug_info"(%ch0) : (!tfrt.chain) -> !tfrt.chain loc("my_kernel")
  %ch2 = "tfrt_test.print_debug_info"(%ch1) : (!tfrt.chain) -> !tfrt.chain loc("somewhere.mlir":10:3)
  %ch3 = "tfrt_test.print_debug_info"(%ch2) : (!tfrt.chain) -> !tfrt.chain loc(fused["first", "second"])
  %ch4 = "tfrt_test.print_debug_info"(%ch3) : (!tfrt.chain) -> !tfrt.chain loc(callsite("the_callee" at "the_caller"))
  %ch5 = "tfrt_test.print_debug_info"(%ch4) : (!tfrt.chain) -> !tfrt.chain loc("with_child_loc"("other.mlir":1:2))
  tfrt.return
}

// CHECK-LABEL: --- Running 'debug_info_in_region':
// CHECK-NEXT: inside_repeat
// CHECK-NEXT: inside_repeat
// CHECK-NEXT: Kernel has no debug info
func.func @debug_info_in_region() {
  %ch0 = tfrt.new.chain
  %two = tfrt.constant.i32 2
  %ch1 = tfrt.repeat.i32 %two, %ch0 : !tfrt.chain {
    %c = "tfrt_test.print_debug_info"(%ch0) : (!tfrt.chain) -> !tfrt.chain loc("inside_repeat")
    tfrt.return %c : !tfrt.chain
  }
  "tfrt_test.print_debug_info"(%ch1) : (!tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// The tutorial kernels, with a payload type of a dialect nobody registered.
// CHECK-LABEL: --- Running 'tutorial':
// CHECK-NEXT: (2, 4)
// CHECK-NEXT: (-1, 0)
// CHECK-NEXT: 'tutorial' returned !my.coordinate value
func.func @tutorial() -> !my.coordinate {
  %ch0 = tfrt.new.chain
  %two = tfrt.constant.i32 2
  %four = tfrt.constant.i32 4
  %c = "tfrt_tutorial.create_coordinate"(%two, %four) : (i32, i32) -> !my.coordinate
  %ch1 = "tfrt_tutorial.print_coordinate"(%c, %ch0) : (!my.coordinate, !tfrt.chain) -> !tfrt.chain
  %minus_one = tfrt.constant.i32 -1
  %zero = tfrt.constant.i32 0
  %d = "tfrt_tutorial.create_coordinate"(%minus_one, %zero) : (i32, i32) -> !my.coordinate
  %ch2 = "tfrt_tutorial.print_coordinate"(%d, %ch1) : (!my.coordinate, !tfrt.chain) -> !tfrt.chain
  tfrt.return %c : !my.coordinate
}
