// Every tfrt_math op parses, prints back in its custom form, and survives
// the generic form and a round trip through the executable.
// RUN: sluice_opt %s | FileCheck %s
// RUN: sluice_opt %s -mlir-print-op-generic | sluice_opt | FileCheck %s
// RUN: sluice_translate --mlir-to-sbf %s | sluice_translate --sbf-to-mlir | FileCheck %s

// CHECK-LABEL: func.func @all_ops
// CHECK-SAME: (%[[A:.*]]: !t.tensor, %[[B:.*]]: !t.tensor, %[[L:.*]]: !t.tensor, %[[CH:.*]]: !tfrt.chain, %[[N:.*]]: i64)
func.func @all_ops(%a: !t.tensor, %b: !t.tensor, %labels: !t.tensor,
                   %ch: !tfrt.chain, %n: i64) -> !tfrt.chain {
  // CHECK-NEXT: tfrt_math.matmul.f32 %[[A]], %[[B]] {transpose_a = false, transpose_b = true}
  %0 = tfrt_math.matmul.f32 %a, %b {transpose_a = false, transpose_b = true}
  // CHECK-NEXT: tfrt_math.matmul.f64 %[[A]], %[[B]], %[[CH]]{{$}}
  %1 = tfrt_math.matmul.f64 %a, %b, %ch
  // CHECK-NEXT: tfrt_math.add.i32 %[[A]], %[[B]]{{$}}
  %2 = tfrt_math.add.i32 %a, %b
  // CHECK-NEXT: tfrt_math.sub.i64 %[[A]], %[[B]], %[[CH]]{{$}}
  %3 = tfrt_math.sub.i64 %a, %b, %ch
  // CHECK-NEXT: tfrt_math.mul.f32 %[[A]], %[[B]]{{$}}
  %4 = tfrt_math.mul.f32 %a, %b
  // CHECK-NEXT: tfrt_math.div.f64 %[[A]], %[[B]]{{$}}
  %5 = tfrt_math.div.f64 %a, %b
  // CHECK-NEXT: tfrt_math.scale.f32 %[[A]] {factor = 5.000000e-01 : f32}
  %6 = tfrt_math.scale.f32 %a {factor = 0.5 : f32}
  // CHECK-NEXT: tfrt_math.relu.i32 %[[A]]{{$}}
  %7 = tfrt_math.relu.i32 %a
  // CHECK-NEXT: tfrt_math.relu_grad.f32 %[[B]], %[[A]]{{$}}
  %8 = tfrt_math.relu_grad.f32 %b, %a
  // CHECK-NEXT: tfrt_math.sigmoid.f64 %[[A]]{{$}}
  %9 = tfrt_math.sigmoid.f64 %a
  // CHECK-NEXT: tfrt_math.sigmoid_grad.f64 %[[B]], %[[A]]{{$}}
  %10 = tfrt_math.sigmoid_grad.f64 %b, %a
  // CHECK-NEXT: tfrt_math.tanh.f32 %[[A]], %[[CH]]{{$}}
  %11 = tfrt_math.tanh.f32 %a, %ch
  // CHECK-NEXT: tfrt_math.tanh_grad.f32 %[[B]], %[[A]]{{$}}
  %12 = tfrt_math.tanh_grad.f32 %b, %a
  // CHECK-NEXT: {{.*}} = tfrt_math.softmax_cross_entropy.f32 %[[A]], %[[L]]{{$}}
  %loss, %grad = tfrt_math.softmax_cross_entropy.f32 %a, %labels
  // CHECK-NEXT: tfrt_math.accuracy.f64 %[[A]], %[[L]]{{$}}
  %13 = tfrt_math.accuracy.f64 %a, %labels
  // CHECK-NEXT: tfrt_math.sum.i64 %[[A]] {axis = 1 : i64}
  %14 = tfrt_math.sum.i64 %a {axis = 1 : i64}
  // CHECK-NEXT: tfrt_math.sum.f32 %[[A]]{{$}}
  %15 = tfrt_math.sum.f32 %a
  // CHECK-NEXT: tfrt_math.mean.f32 %[[A]] {axis = -1 : i64}
  %16 = tfrt_math.mean.f32 %a {axis = -1 : i64}
  // CHECK-NEXT: tfrt_math.max.i32 %[[A]]{{$}}
  %17 = tfrt_math.max.i32 %a
  // CHECK-NEXT: tfrt_math.argmax.f32 %[[A]] {axis = 1 : i64}
  %18 = tfrt_math.argmax.f32 %a {axis = 1 : i64}
  // CHECK-NEXT: tfrt_math.random_uniform.f32 [2, 3] {high = 1.000000e+00 : f32, low = -1.000000e+00 : f32, seed = 7 : i64}
  %19 = tfrt_math.random_uniform.f32 [2, 3] {low = -1.0 : f32, high = 1.0 : f32, seed = 7 : i64}
  // CHECK-NEXT: tfrt_math.random_normal.f64 [4] {mean = 0.000000e+00 : f64, seed = -1 : i64, stddev = 2.000000e+00 : f64}
  %20 = tfrt_math.random_normal.f64 [4] {mean = 0.0 : f64, stddev = 2.0 : f64, seed = -1 : i64}
  // CHECK-NEXT: tfrt_math.slice_rows %[[A]], %[[N]], %[[N]], %[[CH]]{{$}}
  %21 = tfrt_math.slice_rows %a, %n, %n, %ch
  tfrt.return %ch : !tfrt.chain
}
