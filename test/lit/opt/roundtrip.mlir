// Every tfrt and tfrt_test op with custom syntax prints back in that syntax,
// and printing is a fixed point: the output parses to the same output, also
// from the generic form.
// RUN: sluice_opt %s | FileCheck %s
// RUN: sluice_opt %s | sluice_opt | FileCheck %s
// RUN: sluice_opt %s -mlir-print-op-generic | sluice_opt | FileCheck %s
// RUN: sluice_opt %s > %t.once && sluice_opt %t.once > %t.twice && diff %t.once %t.twice

// CHECK-LABEL: func.func @constants()
func.func @constants() {
  // CHECK-NEXT: tfrt.new.chain
  %ch = tfrt.new.chain
  // CHECK-NEXT: tfrt.constant.i1 false
  %b0 = tfrt.constant.i1 0
  // CHECK-NEXT: tfrt.constant.i1 true
  %b1 = tfrt.constant.i1 true
  // CHECK-NEXT: tfrt.constant.i32 42
  %i32 = tfrt.constant.i32 42
  // CHECK-NEXT: tfrt.constant.i64 -43
  %i64 = tfrt.constant.i64 -43
  // CHECK-NEXT: tfrt.constant.ui32 7
  %ui32 = tfrt.constant.ui32 7
  // CHECK-NEXT: tfrt.constant.ui64 18446744073709551615
  %ui64 = tfrt.constant.ui64 18446744073709551615
  // CHECK-NEXT: tfrt.constant.f16 1.500000e+00
  %f16 = tfrt.constant.f16 1.5
  // CHECK-NEXT: tfrt.constant.bf16 2.500000e+00
  %bf16 = tfrt.constant.bf16 2.5
  // CHECK-NEXT: tfrt.constant.f32 1.000000e+00
  %f32 = tfrt.constant.f32 1.0
  // CHECK-NEXT: tfrt.constant.f64 -3.250000e+00
  %f64 = tfrt.constant.f64 -3.25
  // CHECK-NEXT: tfrt.constant.complex64 1.000000e+00, -1.500000e+00
  %c64 = tfrt.constant.complex64 1.0, -1.5
  // CHECK-NEXT: tfrt.constant.complex128 2.000000e+00, 5.000000e-01
  %c128 = tfrt.constant.complex128 2.0, 0.5
  // CHECK-NEXT: tfrt.return
  tfrt.return
}

// CHECK-LABEL: func.func @arithmetic
// CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[A:.*]]: i64, %[[F:.*]]: f32, %[[D:.*]]: f64, %[[B:.*]]: i1, %[[CH:.*]]: !tfrt.chain)
func.func @arithmetic(%x: i32, %y: i32, %a: i64, %f: f32, %d: f64, %b: i1,
                      %ch: !tfrt.chain) -> !tfrt.chain {
  // CHECK-NEXT: tfrt.add.i32 %[[X]], %[[Y]]
  %0 = tfrt.add.i32 %x, %y
  // CHECK-NEXT: tfrt.add.i64 %[[A]], %[[A]]
  %1 = tfrt.add.i64 %a, %a
  // CHECK-NEXT: tfrt.add.f32 %[[F]], %[[F]]
  %2 = tfrt.add.f32 %f, %f
  // CHECK-NEXT: tfrt.add.f64 %[[D]], %[[D]]
  %3 = tfrt.add.f64 %d, %d
  // CHECK-NEXT: tfrt.mul.i32 %[[X]], %[[Y]]
  %4 = tfrt.mul.i32 %x, %y
  // CHECK-NEXT: tfrt.mul.i64 %[[A]], %[[A]]
  %5 = tfrt.mul.i64 %a, %a
  // CHECK-NEXT: %[[QR:.*]]:2 = tfrt.div.i32 %[[X]], %[[Y]]
  %q, %r = tfrt.div.i32 %x, %y
  // CHECK-NEXT: tfrt.div.i64 %[[A]], %[[A]]
  %q64:2 = tfrt.div.i64 %a, %a
  // CHECK-NEXT: tfrt.equal.i32 %[[QR]]#0, %[[QR]]#1
  %6 = tfrt.equal.i32 %q, %r
  // CHECK-NEXT: tfrt.equal.i64 %[[A]], %[[A]]
  %7 = tfrt.equal.i64 %a, %a
  // CHECK-NEXT: tfrt.and.i1 %[[B]], %[[B]]
  %8 = tfrt.and.i1 %b, %b
  // CHECK-NEXT: %[[P0:.*]] = tfrt.print.i1 %[[B]], %[[CH]]
  %p0 = tfrt.print.i1 %b, %ch
  // CHECK-NEXT: %[[P1:.*]] = tfrt.print.i32 %[[X]], %[[P0]]
  %p1 = tfrt.print.i32 %x, %p0
  // CHECK-NEXT: %[[P2:.*]] = tfrt.print.i64 %[[A]], %[[P1]]
  %p2 = tfrt.print.i64 %a, %p1
  // CHECK-NEXT: %[[P3:.*]] = tfrt.print.f32 %[[F]], %[[P2]]
  %p3 = tfrt.print.f32 %f, %p2
  // CHECK-NEXT: %[[P4:.*]] = tfrt.print.f64 %[[D]], %[[P3]]
  %p4 = tfrt.print.f64 %d, %p3
  // CHECK-NEXT: %[[M:.*]] = tfrt.merge.chains %[[P4]], %[[X]] : !tfrt.chain, i32
  %m = tfrt.merge.chains %p4, %x : !tfrt.chain, i32
  // CHECK-NEXT: tfrt.return %[[M]] : !tfrt.chain
  tfrt.return %m : !tfrt.chain
}

func.func @id(%x: i32) -> i32 {
  tfrt.return %x : i32
}

func.func @loop_body(%x: i32, %y: i32) -> (i32, i32, i1) {
  %done = tfrt.constant.i1 false
  tfrt.return %x, %y, %done : i32, i32, i1
}

func.func @block(%start: i32, %end: i32, %x: f32) -> !tfrt.chain {
  %ch = tfrt.new.chain
  tfrt.return %ch : !tfrt.chain
}

func.func @sync_block(%start: i32, %end: i32) {
  tfrt.return
}

// CHECK: func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}
func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}

// CHECK-LABEL: func.func @calls
// CHECK-SAME: (%[[C:.*]]: i1, %[[I:.*]]: i32, %[[F:.*]]: f32)
// CHECK-SAME: attributes {tfrt.cost_threshold = 10 : i64}
func.func @calls(%c: i1, %i: i32, %f: f32) attributes {tfrt.cost_threshold = 10 : i64} {
  // CHECK-NEXT: tfrt.call @id(%[[I]]) : (i32) -> i32
  %0 = tfrt.call @id(%i) : (i32) -> i32
  // CHECK-NEXT: tfrt.call @native_add(%[[I]], %[[I]]) {_tfrt_cost = 3 : i64} : (i32, i32) -> i32
  %1 = tfrt.call @native_add(%i, %i) {_tfrt_cost = 3 : i64} : (i32, i32) -> i32
  // CHECK-NEXT: tfrt.cond %[[C]] @id @id (%[[I]]) : (i32) -> (i32)
  %2 = tfrt.cond %c @id @id (%i) : (i32) -> (i32)
  // CHECK-NEXT: tfrt.cond %[[C]] @sync_block @sync_block (%[[I]], %[[I]]) : (i32, i32) -> ()
  tfrt.cond %c @sync_block @sync_block (%i, %i) : (i32, i32) -> ()
  // CHECK-NEXT: tfrt.case %[[I]] [@id, @id] (%[[I]]) : (i32) -> (i32)
  %3 = tfrt.case %i [@id, @id] (%i) : (i32) -> (i32)
  // CHECK-NEXT: tfrt.while %[[C]] @loop_body(%[[I]], %[[I]]) parallel_iterations(2) : (i32, i32) -> (i32, i32)
  %4:2 = tfrt.while %c @loop_body(%i, %i) parallel_iterations(2) : (i32, i32) -> (i32, i32)
  // CHECK-NEXT: tfrt.once @id(%[[I]]) : (i32) -> (i32)
  %5 = tfrt.once @id(%i) : (i32) -> (i32)
  // CHECK-NEXT: tfrt.parallel_call.i32 %[[I]] to %[[I]] fixed %[[I]] @block(%[[F]]) : f32
  %6 = tfrt.parallel_call.i32 %i to %i fixed %i @block(%f) : f32
  // CHECK-NEXT: tfrt.parallel_call.i32 %[[I]] to %[[I]] fixed %[[I]] @sync_block()
  %7 = tfrt.parallel_call.i32 %i to %i fixed %i @sync_block()
  // CHECK-NEXT: tfrt.return
  tfrt.return
}

// CHECK-LABEL: func.func @regions
// CHECK-SAME: (%[[C:.*]]: i1, %[[I:.*]]: i32, %[[J:.*]]: i32, %[[F:.*]]: f32)
func.func @regions(%c: i1, %i: i32, %j: i32, %f: f32) -> i32 {
  // CHECK-NEXT: %[[R:.*]] = tfrt.if %[[C]], %[[I]], %[[J]] : (i32, i32) -> (i32) {
  // CHECK-NEXT:   tfrt.return %[[I]] : i32
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   %[[S:.*]] = tfrt.add.i32 %[[I]], %[[J]]
  // CHECK-NEXT:   tfrt.return %[[S]] : i32
  // CHECK-NEXT: }
  %r = tfrt.if %c, %i, %j : (i32, i32) -> (i32) {
    tfrt.return %i : i32
  } else {
    %s = tfrt.add.i32 %i, %j
    tfrt.return %s : i32
  }
  // An omitted else is an empty one.
  // CHECK-NEXT: tfrt.if %[[C]], %[[I]] attributes {_tfrt_cost = 1 : i64} : (i32) -> () {
  // CHECK-NEXT:   tfrt.new.chain
  // CHECK-NEXT:   tfrt.print.i32
  // CHECK-NEXT:   tfrt.return
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   tfrt.return
  // CHECK-NEXT: }
  tfrt.if %c, %i attributes {_tfrt_cost = 1 : i64} : (i32) -> () {
    %ch = tfrt.new.chain
    %ch1 = tfrt.print.i32 %i, %ch
    tfrt.return
  }
  // CHECK-NEXT: %[[L:.*]]:2 = tfrt.repeat.i32 %[[I]], %[[J]], %[[F]] : i32, f32 {
  // CHECK-NEXT:   %[[N:.*]] = tfrt.add.i32 %[[J]], %[[J]]
  // CHECK-NEXT:   tfrt.return %[[N]], %[[F]] : i32, f32
  // CHECK-NEXT: }
  %l:2 = tfrt.repeat.i32 %i, %j, %f : i32, f32 {
    %n = tfrt.add.i32 %j, %j
    tfrt.return %n, %f : i32, f32
  }
  // CHECK-NEXT: tfrt.repeat.i32 %[[I]] {
  // CHECK-NEXT:   tfrt.return
  // CHECK-NEXT: }
  tfrt.repeat.i32 %i {
    tfrt.return
  }
  // CHECK-NEXT: tfrt.parallel_for.i32 %[[I]] to %[[J]] fixed %[[I]], %[[F]] : f32 {
  // CHECK-NEXT:   "tfrt_test.use"(%[[I]], %[[J]], %[[F]]) : (i32, i32, f32) -> ()
  // CHECK-NEXT:   tfrt.return
  // CHECK-NEXT: }
  %d0 = tfrt.parallel_for.i32 %i to %j fixed %i, %f : f32 {
    "tfrt_test.use"(%i, %j, %f) : (i32, i32, f32) -> ()
    tfrt.return
  }
  // CHECK-NEXT: tfrt.parallel_for.i32 %[[I]] to %[[J]] fixed %[[J]] {
  // CHECK-NEXT:   %[[CH:.*]] = tfrt.new.chain
  // CHECK-NEXT:   tfrt.return %[[CH]] : !tfrt.chain
  // CHECK-NEXT: }
  %d1 = tfrt.parallel_for.i32 %i to %j fixed %j {
    %ch = tfrt.new.chain
    tfrt.return %ch : !tfrt.chain
  }
  // CHECK-NEXT: tfrt.return %[[R]] : i32
  tfrt.return %r : i32
}

// An operand bound twice names one argument; the region still round-trips.
// CHECK-LABEL: func.func @repeated_operand
// CHECK-SAME: (%[[C:.*]]: i1, %[[I:.*]]: i32)
func.func @repeated_operand(%c: i1, %i: i32) -> i32 {
  // CHECK-NEXT: tfrt.if %[[C]], %[[I]], %[[I]] : (i32, i32) -> (i32) {
  // CHECK-NEXT:   tfrt.add.i32 %[[I]], %[[I]]
  %r = tfrt.if %c, %i, %i : (i32, i32) -> (i32) {
    %s = tfrt.add.i32 %i, %i
    tfrt.return %s : i32
  } else {
    tfrt.return %i : i32
  }
  // CHECK: tfrt.parallel_for.i32 %[[I]] to %[[I]] fixed %[[I]], %[[I]] : i32 {
  %d = tfrt.parallel_for.i32 %i to %i fixed %i, %i : i32 {
    tfrt.return
  }
  tfrt.return %r : i32
}

// CHECK-LABEL: func.func @test_ops
// CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i32)
func.func @test_ops(%x: i32, %y: i32) {
  // CHECK-NEXT: %[[A:.*]] = tfrt_test.do.async %[[X]], %[[Y]] : (i32, i32) -> (i32) {
  // CHECK-NEXT:   tfrt.return %[[Y]] : i32
  // CHECK-NEXT: }
  %a = tfrt_test.do.async %x, %y : (i32, i32) -> (i32) {
    tfrt.return %y : i32
  }
  // CHECK-NEXT: tfrt_test.do.async : () -> () {
  tfrt_test.do.async : () -> () {
    tfrt.return
  }
  // CHECK: tfrt_test.do.async %[[X]] attributes {name = "a"} : (i32) -> (i32) {
  %b = tfrt_test.do.async %x attributes {name = "a"} : (i32) -> (i32) {
    tfrt.return %x : i32
  }
  // CHECK: tfrt_test.benchmark "add.i32"(%[[X]] : i32, %[[Y]] : i32) duration_secs = 1, max_count = 100, num_warmup_runs = 10 {
  // CHECK-NEXT:   %[[S:.*]] = tfrt.add.i32 %[[X]], %[[Y]]
  // CHECK-NEXT:   tfrt.return %[[S]] : i32
  // CHECK-NEXT: }
  %bm = tfrt_test.benchmark "add.i32"(%x : i32, %y : i32) duration_secs = 1, max_count = 100, num_warmup_runs = 10 {
    %s = tfrt.add.i32 %x, %y
    tfrt.return %s : i32
  }
  // Settings print in one order whatever order they were written in.
  // CHECK-NEXT: tfrt_test.benchmark "empty"() duration_secs = 2, max_count = 5 attributes {_tfrt_cost = 3 : i64} {
  %bm2 = tfrt_test.benchmark "empty"() max_count = 5, duration_secs = 2 attributes {_tfrt_cost = 3 : i64} {
    tfrt.return
  }
  // CHECK: %[[N:.*]]:3 = tfrt_test.count3.i32 %[[X]]
  %n:3 = tfrt_test.count3.i32 %x
  // CHECK-NEXT: tfrt.constant.i64 1
  // CHECK-NEXT: tfrt_test.count3.i64
  %l = tfrt.constant.i64 1
  %m:3 = tfrt_test.count3.i64 %l
  // CHECK-NEXT: tfrt_test.test_cost %[[X]], %[[N]]#2 {_tfrt_cost = 100 : i64, id = 0 : i64} : i32, i32
  %t = tfrt_test.test_cost %x, %n#2 {id = 0 : i64, _tfrt_cost = 100 : i64} : i32, i32
  tfrt.return
}

// ODS ops without custom syntax print generically, with or without the one
// extra trailing chain any kernel may be given.
// CHECK-LABEL: func.func @generic_syntax_ops
// CHECK-SAME: (%[[X:.*]]: i32, %[[A:.*]]: i64, %[[F:.*]]: f32, %[[D:.*]]: f64, %[[CH:.*]]: !tfrt.chain)
func.func @generic_syntax_ops(%x: i32, %a: i64, %f: f32, %d: f64,
                              %ch: !tfrt.chain) {
  // CHECK-NEXT: "tfrt.div.f32"(%[[F]], %[[F]]) : (f32, f32) -> f32
  %0 = "tfrt.div.f32"(%f, %f) : (f32, f32) -> f32
  // CHECK-NEXT: "tfrt.div.f64"(%[[D]], %[[D]], %[[CH]]) : (f64, f64, !tfrt.chain) -> f64
  %1 = "tfrt.div.f64"(%d, %d, %ch) : (f64, f64, !tfrt.chain) -> f64
  // CHECK-NEXT: "tfrt.multiply.f32"(%[[F]], %[[F]]) : (f32, f32) -> f32
  %2 = "tfrt.multiply.f32"(%f, %f) : (f32, f32) -> f32
  // CHECK-NEXT: "tfrt.multiply.f64"(%[[D]], %[[D]]) : (f64, f64) -> f64
  %3 = "tfrt.multiply.f64"(%d, %d) : (f64, f64) -> f64
  // CHECK-NEXT: "tfrt.minimum.f32"(%[[F]], %[[F]], %[[CH]]) : (f32, f32, !tfrt.chain) -> f32
  %4 = "tfrt.minimum.f32"(%f, %f, %ch) : (f32, f32, !tfrt.chain) -> f32
  // CHECK-NEXT: "tfrt.minimum.f64"(%[[D]], %[[D]]) : (f64, f64) -> f64
  %5 = "tfrt.minimum.f64"(%d, %d) : (f64, f64) -> f64
  // CHECK-NEXT: "tfrt.minus.i32"(%[[X]], %[[X]]) : (i32, i32) -> i32
  %6 = "tfrt.minus.i32"(%x, %x) : (i32, i32) -> i32
  // CHECK-NEXT: "tfrt.minus.i64"(%[[A]], %[[A]], %[[CH]]) : (i64, i64, !tfrt.chain) -> i64
  %7 = "tfrt.minus.i64"(%a, %a, %ch) : (i64, i64, !tfrt.chain) -> i64
  // CHECK-NEXT: "tfrt.lessequal.i32"(%[[X]], %[[X]]) : (i32, i32) -> i1
  %8 = "tfrt.lessequal.i32"(%x, %x) : (i32, i32) -> i1
  // CHECK-NEXT: "tfrt.lessequal.i64"(%[[A]], %[[A]]) : (i64, i64) -> i1
  %9 = "tfrt.lessequal.i64"(%a, %a) : (i64, i64) -> i1
  // CHECK-NEXT: "tfrt.cast.i64_to_f32"(%[[A]]) : (i64) -> f32
  %10 = "tfrt.cast.i64_to_f32"(%a) : (i64) -> f32
  // CHECK-NEXT: "tfrt.cast.f32_to_i64"(%[[F]], %[[CH]]) : (f32, !tfrt.chain) -> i64
  %11 = "tfrt.cast.f32_to_i64"(%f, %ch) : (f32, !tfrt.chain) -> i64
  // CHECK-NEXT: "tfrt.cast.i64_to_f64"(%[[A]]) : (i64) -> f64
  %12 = "tfrt.cast.i64_to_f64"(%a) : (i64) -> f64
  // CHECK-NEXT: "tfrt.cast.f64_to_i64"(%[[D]]) : (f64) -> i64
  %13 = "tfrt.cast.f64_to_i64"(%d) : (f64) -> i64
  // CHECK-NEXT: tfrt.return
  tfrt.return
}

// Ops without ODS definitions and unknown !tfrt types stay as written.
// CHECK-LABEL: func.func @generic_ops
func.func @generic_ops(%a: i32, %b: i32) -> !tfrt.chain {
  // CHECK-NEXT: %[[CH:.*]] = tfrt.new.chain
  %ch = tfrt.new.chain
  // CHECK-NEXT: "tfrt_test.get_string"() {value = "bark"} : () -> !tfrt.string
  %s = "tfrt_test.get_string"() {value = "bark"} : () -> !tfrt.string
  // CHECK-NEXT: "tfrt_test.allocate_resource"(%[[CH]]) : (!tfrt.chain) -> (!tfrt.test.resource, !tfrt.chain)
  %r, %ch1 = "tfrt_test.allocate_resource"(%ch) : (!tfrt.chain) -> (!tfrt.test.resource, !tfrt.chain)
  // CHECK-NEXT: "tfrt_test.flat"() {value = {{.}}["string", [1 : i32, 0 : i32]], [1.000000e+00 : f32]]} : () -> (!tfrt.string, i32, i32, f32)
  %fs, %f1, %f2, %f3 = "tfrt_test.flat"() {value = [["string", [1 : i32, 0 : i32]], [1.0 : f32]]} : () -> (!tfrt.string, i32, i32, f32)
  // CHECK-NEXT: "tfrt.unknown"() : () -> !tfrt.unknown<"with params">
  %u = "tfrt.unknown"() : () -> !tfrt.unknown<"with params">
  tfrt.return %ch : !tfrt.chain
}
