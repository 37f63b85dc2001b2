// The example program of docs/variables.md, taken from the guide itself, so
// that the guide shows a program that runs and the output it prints.
// RUN: awk '/^<!-- tested by test\/lit\/dist\/variables_doc_example.mlir -->$/ {getline; copy = 1; next} copy && /^```$/ {exit} copy' %S/../../../docs/variables.md > %t.mlir
// RUN: %with_workers 1 --ps=2 -- %sluice_run %t.mlir | FileCheck %s

// CHECK: --- Running 'main':
// CHECK-NEXT: DenseHostTensor dtype = f32, shape = [2], values = [1.450000e+00, 1.100000e+00]
// CHECK-NEXT: 'main' returned !tfrt.chain value
// CHECK-EMPTY:
