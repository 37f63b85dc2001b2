// The example program of docs/tensor_math.md, taken from the guide itself,
// so that the guide shows a program that runs and the values it prints.
// RUN: awk '/^<!-- tested by test\/lit\/math\/doc_example.mlir -->$/ {getline; copy = 1; next} copy && /^```$/ {exit} copy' %S/../../../docs/tensor_math.md > %t.mlir
// RUN: %sluice_run %t.mlir | FileCheck %s

// CHECK: --- Running 'train_one_step':
// CHECK-NEXT: 'train_one_step' returned DenseHostTensor dtype = f64, shape = [], values = [6.931472e-01],DenseHostTensor dtype = f64, shape = [2, 2], values = [7.500000e-01, -7.500000e-01, 7.500000e-01, -7.500000e-01],DenseHostTensor dtype = f64, shape = [], values = [1.104774e-02],DenseHostTensor dtype = f64, shape = [], values = [1.000000e+00]
// CHECK-EMPTY:
