// The example program of docs/tensors.md, taken from the guide itself, so
// that the guide shows a program that runs and the output it prints.
// RUN: awk '/^<!-- tested by test\/lit\/tensor\/doc_example.mlir -->$/ {getline; copy = 1; next} copy && /^```$/ {exit} copy' %S/../../../docs/tensors.md > %t.mlir
// RUN: %sluice_run %t.mlir | FileCheck %s

// CHECK: --- Running 'main':
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 3], values = [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 3], values = [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00]
// CHECK-NEXT: HostBuffer<pointer=0x{{[0-9a-f]+}}, size=24>
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [3], values = [4.000000e+00, 5.000000e+00, 6.000000e+00]
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2, 3], values = [1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]
// CHECK-NEXT: 'main' returned [2, 3],0
// CHECK-EMPTY:
