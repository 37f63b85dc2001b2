// Every tfrt_dht and ts op prints back in TFRT's syntax, from the custom
// and the generic form, and survives compile → decompile unchanged.
// RUN: sluice_opt %s | FileCheck %s
// RUN: sluice_opt %s -mlir-print-op-generic | sluice_opt | FileCheck %s
// RUN: sluice_opt %s > %t.once && sluice_opt %t.once > %t.twice && diff %t.once %t.twice
// RUN: sluice_translate --mlir-to-sbf %s | sluice_translate --sbf-to-mlir > %t.decompiled
// RUN: FileCheck %s < %t.decompiled
// RUN: diff %t.once %t.decompiled
// RUN: sluice_translate --mlir-to-sbf %s | sluice_translate --sbf-to-mlir --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @tensors()
func.func @tensors() -> !tfrt.chain {
  // CHECK-NEXT: %[[C0:.*]] = tfrt.new.chain
  %c0 = tfrt.new.chain
  // CHECK-NEXT: %[[A:.*]] = tfrt_dht.create_uninitialized_tensor.i32.2 [3, 2]
  // GENERIC: "tfrt_dht.create_uninitialized_tensor.i32.2"() {shape = [3, 2]} : () -> !t.tensor
  %a = tfrt_dht.create_uninitialized_tensor.i32.2 [3 : i64, 2 : i64]
  // CHECK-NEXT: %[[S:.*]] = tfrt_dht.create_uninitialized_tensor.bool.0 []
  %s = tfrt_dht.create_uninitialized_tensor.bool.0 []
  // CHECK-NEXT: %[[C1:.*]] = tfrt_dht.fill_tensor_with_constant.i32 %[[A]], %[[C0]] 0 : i32
  // GENERIC: "tfrt_dht.fill_tensor_with_constant.i32"(%{{.*}}, %{{.*}}) {value = 0 : i32} : (!t.tensor, !tfrt.chain) -> !tfrt.chain
  %c1 = tfrt_dht.fill_tensor_with_constant.i32 %a, %c0 0 : i32
  // CHECK-NEXT: tfrt_dht.fill_tensor_with_constant.bool %[[S]], %[[C1]] true
  %c2 = tfrt_dht.fill_tensor_with_constant.bool %s, %c1 true
  // CHECK-NEXT: %[[F:.*]] = tfrt_dht.create_uninitialized_tensor.f32.1 [2]
  %f = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  // CHECK-NEXT: tfrt_dht.fill_tensor_with_constant.f32 %[[F]], %{{.*}} 1.000000e+00 : f32
  %c3 = tfrt_dht.fill_tensor_with_constant.f32 %f, %c2 1.0 : f32
  // CHECK-NEXT: tfrt_dht.set_tensor_with_constant_values.i32 %[[A]], %{{.*}} [1 : i32, -1 : i32, 2 : i32, -2 : i32, 3 : i32, -3 : i32]
  // GENERIC: "tfrt_dht.set_tensor_with_constant_values.i32"(%{{.*}}, %{{.*}}) {values = [1 : i32, -1 : i32, 2 : i32, -2 : i32, 3 : i32, -3 : i32]}
  %c4 = tfrt_dht.set_tensor_with_constant_values.i32 %a, %c3 [1 : i32, -1 : i32, 2 : i32, -2 : i32, 3 : i32, -3 : i32]
  // CHECK-NEXT: tfrt_dht.set_tensor_with_constant_values.i1 %[[S]], %{{.*}} [false]
  %c5 = tfrt_dht.set_tensor_with_constant_values.i1 %s, %c4 [false]
  // CHECK-NEXT: tfrt_dht.set_tensor_with_constant_values.f32 %[[F]], %{{.*}} [5.000000e-01 : f32, 2.500000e-01 : f32]
  %c6 = tfrt_dht.set_tensor_with_constant_values.f32 %f, %c5 [0.5 : f32, 0.25 : f32]
  // CHECK-NEXT: %[[V:.*]] = tfrt.constant.f32 3.000000e+00
  %v = tfrt.constant.f32 3.0
  // Written in generic form by TFRT, printed so here too.
  // CHECK-NEXT: "tfrt_dht.set_tensor_with_values.f32"(%[[F]], %{{.*}}, %[[V]], %[[V]]) : (!t.tensor, !tfrt.chain, f32, f32) -> !tfrt.chain
  %c7 = "tfrt_dht.set_tensor_with_values.f32"(%f, %c6, %v, %v) : (!t.tensor, !tfrt.chain, f32, f32) -> !tfrt.chain
  // CHECK-NEXT: %[[EQ:.*]]:2 = tfrt_dht.tensor_equal.i32 %[[A]], %[[A]], %{{.*}}
  // GENERIC: "tfrt_dht.tensor_equal.i32"(%{{.*}}, %{{.*}}, %{{.*}}) : (!t.tensor, !t.tensor, !tfrt.chain) -> (i1, !tfrt.chain)
  %eq, %c8 = tfrt_dht.tensor_equal.i32 %a, %a, %c7
  // CHECK-NEXT: tfrt_dht.print_tensor %[[A]], %[[EQ]]#1
  %c9 = tfrt_dht.print_tensor %a, %c8
  // CHECK-NEXT: %[[SHAPE:.*]] = tfrt_dht.get_tensor_shape %[[A]]
  %shape = tfrt_dht.get_tensor_shape %a
  // CHECK-NEXT: ts.print_shape %[[SHAPE]], %{{.*}}
  ts.print_shape %shape, %c9
  // CHECK-NEXT: "tfrt_dht.print_tensor_shape"(%[[A]], %{{.*}}) : (!t.tensor, !tfrt.chain) -> !tfrt.chain
  %c10 = "tfrt_dht.print_tensor_shape"(%a, %c9) : (!t.tensor, !tfrt.chain) -> !tfrt.chain
  // CHECK-NEXT: tfrt.return
  tfrt.return %c10 : !tfrt.chain
}

// CHECK-LABEL: func.func @buffers()
func.func @buffers() -> !tfrt.chain {
  %c0 = tfrt.new.chain
  // CHECK: %[[SIZE:.*]] = tfrt.constant.i64 64
  %size = tfrt.constant.i64 64
  // CHECK-NEXT: %[[ALIGN:.*]] = tfrt.constant.i64 8
  %alignment = tfrt.constant.i64 8
  // CHECK-NEXT: %[[BUF:.*]] = tfrt_dht.allocate_buffer %[[SIZE]], %[[ALIGN]]
  // GENERIC: "tfrt_dht.allocate_buffer"(%{{.*}}, %{{.*}}) : (i64, i64) -> !ht.host_buffer
  %buffer = "tfrt_dht.allocate_buffer"(%size, %alignment) : (i64, i64) -> !ht.host_buffer
  // CHECK-NEXT: %[[SLICE:.*]] = tfrt_dht.get_buffer_slice %[[BUF]], %[[ALIGN]], %[[ALIGN]]
  %slice = tfrt_dht.get_buffer_slice %buffer, %alignment, %alignment
  // CHECK-NEXT: %[[SH:.*]] = ts.build_shape [2, 1]
  // GENERIC: "ts.build_shape"() {value = [2, 1]} : () -> !ts.shape
  %shape = ts.build_shape [2 : i64, 1 : i64]
  // CHECK-NEXT: %[[T:.*]]:2 = tfrt_dht.make_tensor.f32 %[[SLICE]], %[[SH]], %{{.*}}
  // GENERIC: "tfrt_dht.make_tensor.f32"(%{{.*}}, %{{.*}}, %{{.*}}) : (!ht.host_buffer, !ts.shape, !tfrt.chain) -> (!t.tensor, !tfrt.chain)
  %t, %c1 = "tfrt_dht.make_tensor.f32"(%slice, %shape, %c0) : (!ht.host_buffer, !ts.shape, !tfrt.chain) -> (!t.tensor, !tfrt.chain)
  // CHECK-NEXT: %[[B:.*]]:2 = tfrt_dht.get_buffer %[[T]]#0, %[[T]]#1
  %b, %c2 = tfrt_dht.get_buffer %t, %c1
  // CHECK-NEXT: tfrt_dht.print_buffer %[[B]]#0, %[[B]]#1
  %c3 = tfrt_dht.print_buffer %b, %c2
  tfrt.return %c3 : !tfrt.chain
}

// CHECK-LABEL: func.func @every_dtype()
func.func @every_dtype() {
  // CHECK-NEXT: tfrt_dht.create_uninitialized_tensor.i1.1 [1]
  %0 = tfrt_dht.create_uninitialized_tensor.i1.1 [1 : i64]
  // CHECK-NEXT: tfrt_dht.create_uninitialized_tensor.bool.2 [1, 2]
  %1 = tfrt_dht.create_uninitialized_tensor.bool.2 [1 : i64, 2 : i64]
  // CHECK-NEXT: tfrt_dht.create_uninitialized_tensor.i64.3 [1, 2, 3]
  %2 = tfrt_dht.create_uninitialized_tensor.i64.3 [1 : i64, 2 : i64, 3 : i64]
  // CHECK-NEXT: tfrt_dht.create_uninitialized_tensor.f64.4 [1, 2, 3, 4]
  %3 = tfrt_dht.create_uninitialized_tensor.f64.4 [1 : i64, 2 : i64, 3 : i64, 4 : i64]
  %c0 = tfrt.new.chain
  // CHECK: tfrt_dht.fill_tensor_with_constant.i64 %{{.*}}, %{{.*}} -5 : i64
  %c1 = tfrt_dht.fill_tensor_with_constant.i64 %2, %c0 -5 : i64
  // CHECK-NEXT: tfrt_dht.fill_tensor_with_constant.f64 %{{.*}}, %{{.*}} 2.500000e+00 : f64
  %c2 = tfrt_dht.fill_tensor_with_constant.f64 %3, %c1 2.5 : f64
  // CHECK-NEXT: tfrt_dht.set_tensor_with_constant_values.i64 %{{.*}}, %{{.*}} [1, 2, 3, 4, 5, 6]
  %c3 = tfrt_dht.set_tensor_with_constant_values.i64 %2, %c2 [1 : i64, 2 : i64, 3 : i64, 4 : i64, 5 : i64, 6 : i64]
  // CHECK-NEXT: tfrt_dht.set_tensor_with_constant_values.bool %{{.*}}, %{{.*}} [true, false]
  %c4 = tfrt_dht.set_tensor_with_constant_values.bool %1, %c3 [true, false]
  // CHECK-NEXT: tfrt_dht.tensor_equal.f64
  %eq, %c5 = tfrt_dht.tensor_equal.f64 %3, %3, %c4
  tfrt.return
}
