// Every op form survives compile → decompile: custom syntax, generic ops
// of unknown dialects, regions, symbols, natives and attributes of every
// kind with their types. Decompiling is a fixed point: compiling the output
// again gives the same text. Compiler hints (`_tfrt_cost`,
// `tfrt.cost_threshold`) come back too.
// RUN: sluice_translate --mlir-to-sbf --allow-unregistered-dialect %s -o %t.sbf
// RUN: sluice_translate --sbf-to-mlir --allow-unregistered-dialect %t.sbf -o %t.once.mlir
// RUN: FileCheck %s < %t.once.mlir
// RUN: sluice_translate --mlir-to-sbf --allow-unregistered-dialect %t.once.mlir -o - | sluice_translate --sbf-to-mlir --allow-unregistered-dialect - -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// Generic printing.
// RUN: sluice_translate --sbf-to-mlir --allow-unregistered-dialect --mlir-print-op-generic %t.sbf | FileCheck %s --check-prefix=GENERIC
// Unregistered dialects need no flag, compiling or decompiling, as with
// TFRT's translator.
// RUN: sluice_translate --mlir-to-sbf %s | sluice_translate --sbf-to-mlir | diff %t.once.mlir -

// CHECK-LABEL: module {
// CHECK-NEXT: func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}
func.func private @native_add(i32, i32) -> i32 attributes {tfrt.native}

// CHECK-NEXT: func.func @callee(%[[X:.*]]: i32) -> i32 {
// CHECK-NEXT: tfrt.return %[[X]] : i32
func.func @callee(%x: i32) -> i32 {
  tfrt.return %x : i32
}

// GENERIC: "tfrt.constant.i32"() {value = -7 : i32} : () -> i32
// GENERIC: "tfrt.constant.ui32"() {value = 4000000000 : ui32} : () -> ui32
// GENERIC: "tfrt.constant.complex64"() {imaginary = -1.500000e+00 : f32, real = 1.000000e+00 : f32} : () -> complex<f32>
// CHECK-LABEL: func.func @constants() -> (i1, i32, i64, ui32, ui64, f16, bf16, f32, f64, complex<f32>, complex<f64>) attributes {tfrt.cost_threshold = 5 : i64} {
// CHECK-NEXT: tfrt.constant.i1 true
// CHECK-NEXT: tfrt.constant.i32 -7
// CHECK-NEXT: tfrt.constant.i64 9000000000
// CHECK-NEXT: tfrt.constant.ui32 4000000000
// CHECK-NEXT: tfrt.constant.ui64 18000000000000000000
// CHECK-NEXT: tfrt.constant.f16 1.500000e+00
// CHECK-NEXT: tfrt.constant.bf16 -2.000000e+00
// CHECK-NEXT: tfrt.constant.f32 1.000000e-01
// CHECK-NEXT: tfrt.constant.f64 -0.000000e+00
// CHECK-NEXT: tfrt.constant.complex64 1.000000e+00, -1.500000e+00
// CHECK-NEXT: tfrt.constant.complex128 3.000000e+00, 4.500000e+00
func.func @constants() -> (i1, i32, i64, ui32, ui64, f16, bf16, f32, f64, complex<f32>, complex<f64>) attributes {tfrt.cost_threshold = 5 : i64} {
  %a = tfrt.constant.i1 true
  %b = tfrt.constant.i32 -7
  %c = tfrt.constant.i64 9000000000
  %d = tfrt.constant.ui32 4000000000
  %e = tfrt.constant.ui64 18000000000000000000
  %f = tfrt.constant.f16 1.5
  %g = tfrt.constant.bf16 -2.0
  %h = tfrt.constant.f32 0.1
  %i = tfrt.constant.f64 -0.0
  %j = tfrt.constant.complex64 1.0, -1.5
  %k = tfrt.constant.complex128 3.0, 4.5
  tfrt.return %a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k : i1, i32, i64, ui32, ui64, f16, bf16, f32, f64, complex<f32>, complex<f64>
}

// Attributes come back sorted by name, with their types.
// CHECK-LABEL: func.func @attributes() {
// CHECK-NEXT: "tfrt_test.attrs"() {arr = [1 : i32, "two", [3.000000e+00 : f32]], b = false, dense = array<i32: 1, 2, 3>, i8v = 8 : i8, s = "text with \22quotes\22", sym = @callee, t = i64, u, ui16v = 16 : ui16} : () -> ()
// CHECK-NEXT: "tfrt_test.flat"() {value = {{\[\["string", \[1 : i32, 0 : i32\]\], \[1.000000e\+00 : f32\]\]}}} : () -> (!tfrt.string, i32, i32, f32)
// CHECK-NEXT: "my.op"() {e = [], f = 2.500000e-01 : f64, n = -1 : i64} : () -> !my.type
func.func @attributes() {
  "tfrt_test.attrs"() {s = "text with \"quotes\"", arr = [1 : i32, "two", [3.0 : f32]], dense = array<i32: 1, 2, 3>, t = i64, u, b = false, sym = @callee, i8v = 8 : i8, ui16v = 16 : ui16} : () -> ()
  "tfrt_test.flat"() {value = [["string", [1 : i32, 0 : i32]], [1.0 : f32]]} : () -> (!tfrt.string, i32, i32, f32)
  "my.op"() {n = -1 : i64, f = 0.25 : f64, e = []} : () -> !my.type
  tfrt.return
}

// CHECK-LABEL: func.func @control_flow(
// CHECK-SAME: %[[C:[^:]*]]: i1, %[[X:[^:]*]]: i32, %[[CH:[^:]*]]: !tfrt.chain) -> (i32, !tfrt.chain) {
// CHECK-NEXT: %[[R:.*]] = tfrt.if %[[C]], %[[X]] : (i32) -> (i32) {
// CHECK-NEXT: %[[Y:.*]] = tfrt.add.i32 %[[X]], %[[X]]
// CHECK-NEXT: tfrt.return %[[Y]] : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: tfrt.return %[[X]] : i32
// CHECK-NEXT: }
// CHECK-NEXT: tfrt.if %[[C]], %[[CH]] : (!tfrt.chain) -> () {
// CHECK: %[[S:.*]] = tfrt.cond %[[C]] @callee @callee (%[[R]]) : (i32) -> (i32)
// CHECK-NEXT: %[[T:.*]] = tfrt.case %[[X]] [@callee, @callee] (%[[S]]) : (i32) -> (i32)
// CHECK-NEXT: %[[U:.*]] = tfrt.once @callee(%[[T]]) : (i32) -> (i32)
// CHECK-NEXT: %[[V:.*]] = tfrt.call @native_add(%[[U]], %[[U]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[W:.*]]:2 = tfrt.repeat.i32 %[[V]], %[[V]], %[[CH]] : i32, !tfrt.chain {
// CHECK-NEXT: %[[M:.*]] = tfrt.merge.chains %[[CH]], %[[V]] : !tfrt.chain, i32
// CHECK-NEXT: tfrt.return %[[V]], %[[M]] : i32, !tfrt.chain
// CHECK-NEXT: }
// CHECK-NEXT: tfrt.repeat.i32 %[[X]] {
// CHECK-NEXT: tfrt.return
// CHECK-NEXT: }
// CHECK-NEXT: %[[D:.*]] = tfrt.parallel_for.i32 %[[X]] to %[[V]] fixed %[[X]], %[[CH]] : !tfrt.chain {
// CHECK-NEXT: tfrt.return %[[CH]] : !tfrt.chain
// CHECK-NEXT: }
// CHECK-NEXT: tfrt.parallel_call.i32 %[[X]] to %[[V]] fixed %[[X]] @pblock(%[[CH]]) : !tfrt.chain
// CHECK-NEXT: %[[Q:.*]]:2 = tfrt.div.i32 %[[X]], %[[X]]
// CHECK-NEXT: %[[P:.*]] = tfrt.print.i32 %[[Q]]#0, %[[D]]
// CHECK-NEXT: tfrt.return %[[W]]#0, %[[P]] : i32, !tfrt.chain
func.func @control_flow(%c: i1, %x: i32, %ch: !tfrt.chain) -> (i32, !tfrt.chain) {
  %r = tfrt.if %c, %x : (i32) -> (i32) {
    %y = tfrt.add.i32 %x, %x
    tfrt.return %y : i32
  } else {
    tfrt.return %x : i32
  }
  tfrt.if %c, %ch : (!tfrt.chain) -> () {
    tfrt.return
  }
  %s = tfrt.cond %c @callee @callee (%r) : (i32) -> (i32)
  %t = tfrt.case %x [@callee, @callee] (%s) : (i32) -> (i32)
  %u = tfrt.once @callee(%t) : (i32) -> (i32)
  %v = tfrt.call @native_add(%u, %u) : (i32, i32) -> i32
  %w:2 = tfrt.repeat.i32 %v, %v, %ch : i32, !tfrt.chain {
    %m = tfrt.merge.chains %ch, %v : !tfrt.chain, i32
    tfrt.return %v, %m : i32, !tfrt.chain
  }
  tfrt.repeat.i32 %x {
    tfrt.return
  }
  %d = tfrt.parallel_for.i32 %x to %v fixed %x, %ch : !tfrt.chain {
    tfrt.return %ch : !tfrt.chain
  }
  %e = tfrt.parallel_call.i32 %x to %v fixed %x @pblock(%ch) : !tfrt.chain
  %q, %rem = tfrt.div.i32 %x, %x
  %ch2 = tfrt.print.i32 %q, %d
  tfrt.return %w#0, %ch2 : i32, !tfrt.chain
}

func.func @pblock(%s: i32, %e: i32, %ch: !tfrt.chain) -> !tfrt.chain {
  tfrt.return %ch : !tfrt.chain
}

func.func @loop_body(%x: i32) -> (i32, i1) {
  %f = tfrt.constant.i1 false
  tfrt.return %x, %f : i32, i1
}

// CHECK-LABEL: func.func @while(
// CHECK-NEXT: tfrt.while %{{.*}} @loop_body(%{{.*}}) parallel_iterations(4) : (i32) -> (i32)
func.func @while(%c: i1, %x: i32) -> i32 {
  %r = tfrt.while %c @loop_body(%x) parallel_iterations(4) : (i32) -> (i32)
  tfrt.return %r : i32
}

// CHECK-LABEL: func.func @test_ops(
// CHECK-NEXT: %[[N:.*]]:3 = tfrt_test.count3.i32 %{{.*}}
// CHECK-NEXT: tfrt_test.test_cost %[[N]]#0 {_tfrt_cost = 10 : i64, id = 3 : i64} : i32
// CHECK-NEXT: %[[Y:.*]] = tfrt_test.do.async %{{.*}}, %[[N]]#1 : (i32, i32) -> (i32) {
// CHECK: tfrt_test.benchmark "bm"(%[[N]]#2 : i32, %[[Y]] : i32) duration_secs = 1, max_count = 10, num_warmup_runs = 2 {
// CHECK: "vt.constant"() {value = 2 : i32} : () -> !vt.value
// CHECK-NEXT: "tfrt_tutorial.create_coordinate"(%{{.*}}, %{{.*}}) : (i32, i32) -> !my.coordinate
func.func @test_ops(%x: i32) -> (i32, !tfrt.chain) {
  %a, %b, %c = tfrt_test.count3.i32 %x
  %z = tfrt_test.test_cost %a {id = 3 : i64, _tfrt_cost = 10 : i64} : i32
  %y = tfrt_test.do.async %x, %b : (i32, i32) -> (i32) {
    %s = tfrt.add.i32 %x, %b
    tfrt.return %s : i32
  }
  %bm = tfrt_test.benchmark "bm"(%c : i32, %y : i32) duration_secs = 1, max_count = 10, num_warmup_runs = 2 {
    %s = tfrt.add.i32 %c, %y
    tfrt.return %s : i32
  }
  %v = "vt.constant"() {value = 2 : i32} : () -> !vt.value
  %co = "tfrt_tutorial.create_coordinate"(%x, %x) : (i32, i32) -> !my.coordinate
  tfrt.return %z, %bm : i32, !tfrt.chain
}

// Regions of ops no dialect knows come back in generic form, with their
// block arguments.
// CHECK-LABEL: func.func @unknown_region_op(
// CHECK-NEXT: "my.region_op"(%{{.*}}) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: i32):
// CHECK-NEXT: %[[B:.*]] = tfrt.add.i32 %[[A]], %[[A]]
// CHECK-NEXT: tfrt.return %[[B]] : i32
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%[[C:.*]]: i32):
// CHECK-NEXT: tfrt.return %[[C]] : i32
// CHECK-NEXT: }) {attr = 3 : i32} : (i32) -> i32
func.func @unknown_region_op(%x: i32) -> i32 {
  %r = "my.region_op"(%x) ({
  ^bb0(%a: i32):
    %b = tfrt.add.i32 %a, %a
    tfrt.return %b : i32
  }, {
  ^bb0(%a: i32):
    tfrt.return %a : i32
  }) {attr = 3 : i32} : (i32) -> i32
  tfrt.return %r : i32
}
