// tfrt.merge.chains under -canonicalize: duplicate operands go, so do
// operands another operand already waits for (through a merge or a print,
// whose kernels are strict), and a merge of a single chain becomes that
// chain, used elsewhere or not. Waits nothing else implies stay.
// RUN: sluice_opt -allow-unregistered-dialect -canonicalize -split-input-file %s | FileCheck %s
// The programs still run as before.
// RUN: %sluice_run %S/Inputs/merge_chains_program.mlir | FileCheck %s --check-prefix=EXEC
// RUN: sluice_opt -canonicalize %S/Inputs/merge_chains_program.mlir | sluice_translate --mlir-to-sbf | %sluice_run | FileCheck %s --check-prefix=EXEC
// RUN: sluice_opt -canonicalize %S/Inputs/merge_chains_program.mlir | FileCheck %s --check-prefix=SIMPLER

// A function argument merged alone, also returned.
// CHECK-LABEL: func.func @single_returned
// CHECK-SAME: (%[[CH:.*]]: !tfrt.chain)
// CHECK-NOT: tfrt.merge.chains
// CHECK: tfrt.return %[[CH]], %[[CH]] : !tfrt.chain, !tfrt.chain
func.func @single_returned(%ch: !tfrt.chain) -> (!tfrt.chain, !tfrt.chain) {
  %out = tfrt.merge.chains %ch : !tfrt.chain
  tfrt.return %out, %ch : !tfrt.chain, !tfrt.chain
}

// -----

// A function argument merged alone, used nowhere else.
// CHECK-LABEL: func.func @single
// CHECK-SAME: (%[[CH:.*]]: !tfrt.chain)
// CHECK-NOT: tfrt.merge.chains
// CHECK: tfrt.return %[[CH]] : !tfrt.chain
func.func @single(%ch: !tfrt.chain) -> !tfrt.chain {
  %out = tfrt.merge.chains %ch : !tfrt.chain
  tfrt.return %out : !tfrt.chain
}

// -----

// CHECK-LABEL: func.func @duplicates
// CHECK-SAME: (%[[A:.*]]: !tfrt.chain, %[[B:.*]]: !tfrt.chain)
// CHECK-NEXT: %[[M:.*]] = tfrt.merge.chains %[[A]], %[[B]] : !tfrt.chain, !tfrt.chain
// CHECK-NEXT: tfrt.return %[[M]] : !tfrt.chain
func.func @duplicates(%a: !tfrt.chain, %b: !tfrt.chain) -> !tfrt.chain {
  %m = tfrt.merge.chains %a, %b, %a, %b, %a : !tfrt.chain, !tfrt.chain, !tfrt.chain, !tfrt.chain, !tfrt.chain
  tfrt.return %m : !tfrt.chain
}

// -----

// The argument chain is covered by the print that takes it: the merge is the
// print's chain.
// CHECK-LABEL: func.func @argument_covered_by_print
// CHECK-SAME: (%[[CH:.*]]: !tfrt.chain, %[[X:.*]]: i32)
// CHECK-NEXT: %[[P:.*]] = tfrt.print.i32 %[[X]], %[[CH]]
// CHECK-NEXT: tfrt.return %[[P]] : !tfrt.chain
func.func @argument_covered_by_print(%ch: !tfrt.chain, %x: i32) -> !tfrt.chain {
  %printed = tfrt.print.i32 %x, %ch
  %m = tfrt.merge.chains %ch, %printed, %x, %ch : !tfrt.chain, !tfrt.chain, i32, !tfrt.chain
  tfrt.return %m : !tfrt.chain
}

// -----

// Covered through a nested merge and a second print.
// CHECK-LABEL: func.func @covered_transitively
// CHECK-SAME: (%[[A:.*]]: !tfrt.chain, %[[B:.*]]: !tfrt.chain, %[[X:.*]]: i32)
// CHECK-NEXT: %[[INNER:.*]] = tfrt.merge.chains %[[A]], %[[B]] : !tfrt.chain, !tfrt.chain
// CHECK-NEXT: %[[P:.*]] = tfrt.print.i32 %[[X]], %[[INNER]]
// CHECK-NEXT: tfrt.return %[[P]] : !tfrt.chain
func.func @covered_transitively(%a: !tfrt.chain, %b: !tfrt.chain, %x: i32) -> !tfrt.chain {
  %inner = tfrt.merge.chains %a, %b : !tfrt.chain, !tfrt.chain
  %printed = tfrt.print.i32 %x, %inner
  %m = tfrt.merge.chains %b, %printed, %a : !tfrt.chain, !tfrt.chain, !tfrt.chain
  tfrt.return %m : !tfrt.chain
}

// -----

// An argument used elsewhere but not waited for by another operand stays:
// the print below is ordered after both chains only through the merge.
// CHECK-LABEL: func.func @used_elsewhere_stays
// CHECK-SAME: (%[[A:.*]]: !tfrt.chain, %[[B:.*]]: !tfrt.chain, %[[X:.*]]: i32)
// CHECK-NEXT: %[[M:.*]] = tfrt.merge.chains %[[A]], %[[B]] : !tfrt.chain, !tfrt.chain
// CHECK-NEXT: %[[P:.*]] = tfrt.print.i32 %[[X]], %[[M]]
// CHECK-NEXT: tfrt.return %[[P]], %[[A]], %[[B]] : !tfrt.chain, !tfrt.chain, !tfrt.chain
func.func @used_elsewhere_stays(%a: !tfrt.chain, %b: !tfrt.chain, %x: i32) -> (!tfrt.chain, !tfrt.chain, !tfrt.chain) {
  %m = tfrt.merge.chains %a, %b : !tfrt.chain, !tfrt.chain
  %printed = tfrt.print.i32 %x, %m
  tfrt.return %printed, %a, %b : !tfrt.chain, !tfrt.chain, !tfrt.chain
}

// -----

// Kernels MLIR does not know may be non-strict: what they take is not
// assumed covered.
// CHECK-LABEL: func.func @unknown_kernels_cover_nothing
// CHECK: tfrt.merge.chains %{{.*}}, %{{.*}} : !tfrt.chain, !tfrt.chain
func.func @unknown_kernels_cover_nothing(%ch: !tfrt.chain) -> !tfrt.chain {
  %done = "my.kernel"(%ch) : (!tfrt.chain) -> !tfrt.chain
  %m = tfrt.merge.chains %ch, %done : !tfrt.chain, !tfrt.chain
  tfrt.return %m : !tfrt.chain
}

// -----

// A value that is not a chain still becomes one through the merge.
// CHECK-LABEL: func.func @single_value
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK-NEXT: %[[M:.*]] = tfrt.merge.chains %[[X]] : i32
// CHECK-NEXT: tfrt.return %[[M]] : !tfrt.chain
func.func @single_value(%x: i32) -> !tfrt.chain {
  %m = tfrt.merge.chains %x, %x : i32, i32
  tfrt.return %m : !tfrt.chain
}

// EXEC-LABEL: --- Running 'main':
// EXEC-NEXT: int32 = 1
// EXEC-NEXT: int32 = 2
// EXEC-NEXT: int32 = 3
// EXEC-NEXT: 'main' returned !tfrt.chain value
// SIMPLER-NOT: tfrt.merge.chains
