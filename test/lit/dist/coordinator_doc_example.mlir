// The coordinator example of docs/tfrt_dist.md, taken from the guide
// itself, so that the guide shows a program that runs and what it prints.
// RUN: awk '/^<!-- tested by test\/lit\/dist\/coordinator_doc_example.mlir -->$/ {getline; copy = 1; next} copy && /^```$/ {exit} copy' %S/../../../docs/tfrt_dist.md > %t.mlir
// RUN: %with_workers 2 -- %sluice_run -work_queue_type=mstd %t.mlir | FileCheck %s

// CHECK: --- Not running 'add' because it has arguments.
// CHECK-NEXT: --- Running 'hundred':
// CHECK-NEXT: 'hundred' returned 100
// CHECK-NEXT: --- Running 'main':
// CHECK-NEXT: 'main' returned 101,202,!tfrt.chain value
// CHECK-EMPTY:
