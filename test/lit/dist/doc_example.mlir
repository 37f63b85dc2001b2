// The example program of docs/tfrt_dist.md, taken from the guide itself, so
// that the guide shows a program that runs and the output it prints.
// RUN: awk '/^<!-- tested by test\/lit\/dist\/doc_example.mlir -->$/ {getline; copy = 1; next} copy && /^```$/ {exit} copy' %S/../../../docs/tfrt_dist.md > %t.mlir
// RUN: %with_workers 2 --merge-output -- %sluice_run %t.mlir | FileCheck %s

// CHECK: --- Not running 'add' because it has arguments.
// CHECK-NEXT: --- Not running 'greet' because it has arguments.
// CHECK-NEXT: --- Running 'main':
// CHECK-NEXT: int32 = 42
// CHECK-NEXT: string = hello, cluster
// CHECK-NEXT: 'main' returned 42,!tfrt.chain value
// CHECK-EMPTY:
