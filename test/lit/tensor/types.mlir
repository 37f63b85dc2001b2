// !t.tensor, !ts.shape and !ht.host_buffer parse, print back, and survive a
// round trip through the executable.
// RUN: sluice_opt %s | FileCheck %s
// RUN: sluice_opt %s -mlir-print-op-generic | sluice_opt | FileCheck %s
// RUN: sluice_translate --mlir-to-sbf %s | sluice_translate --sbf-to-mlir | FileCheck %s

// CHECK-LABEL: func.func @pass_through
// CHECK-SAME: (%{{.*}}: !t.tensor, %{{.*}}: !ts.shape, %{{.*}}: !ht.host_buffer) -> (!t.tensor, !ts.shape, !ht.host_buffer)
func.func @pass_through(%t: !t.tensor, %s: !ts.shape, %b: !ht.host_buffer)
    -> (!t.tensor, !ts.shape, !ht.host_buffer) {
  // CHECK-NEXT: tfrt.return %{{.*}}, %{{.*}}, %{{.*}} : !t.tensor, !ts.shape, !ht.host_buffer
  tfrt.return %t, %s, %b : !t.tensor, !ts.shape, !ht.host_buffer
}
