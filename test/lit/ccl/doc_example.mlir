// The example program of docs/collectives.md, taken from the guide itself,
// so that the guide shows a program that compiles (running it needs a
// store and three ranks: //test/integration/collective does that).
// RUN: awk '/^<!-- tested by test\/lit\/ccl\/doc_example.mlir -->$/ {getline; copy = 1; next} copy && /^```$/ {exit} copy' %S/../../../docs/collectives.md > %t.mlir
// RUN: sluice_opt %t.mlir | FileCheck %s
// RUN: sluice_translate -mlir-to-sbf %t.mlir -o %t.sbf

// CHECK: tfrt_ccl.create_group %{{.*}} {connect_timeout_ms = 30000 : i64, store = "127.0.0.1:29510"}
// CHECK: tfrt_ccl.allreduce %{{.*}} {reduction = "avg", timeout_ms = 30000 : i64} : !t.tensor
