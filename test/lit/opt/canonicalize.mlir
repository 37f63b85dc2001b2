// tfrt.merge.chains folds away single chains and waits for each value once.
// RUN: sluice_opt %s -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @single_chain
// CHECK-SAME: (%[[CH:.*]]: !tfrt.chain)
func.func @single_chain(%ch: !tfrt.chain) -> !tfrt.chain {
  // CHECK-NEXT: tfrt.return %[[CH]] : !tfrt.chain
  %m = tfrt.merge.chains %ch : !tfrt.chain
  tfrt.return %m : !tfrt.chain
}

// CHECK-LABEL: func.func @duplicates
// CHECK-SAME: (%[[A:.*]]: !tfrt.chain, %[[B:.*]]: !tfrt.chain, %[[X:.*]]: i32)
func.func @duplicates(%a: !tfrt.chain, %b: !tfrt.chain, %x: i32) -> !tfrt.chain {
  // CHECK-NEXT: %[[M:.*]] = tfrt.merge.chains %[[A]], %[[B]], %[[X]] : !tfrt.chain, !tfrt.chain, i32
  // CHECK-NEXT: tfrt.return %[[M]] : !tfrt.chain
  %m = tfrt.merge.chains %a, %b, %a, %x, %b, %x : !tfrt.chain, !tfrt.chain, !tfrt.chain, i32, !tfrt.chain, i32
  tfrt.return %m : !tfrt.chain
}

// Merging one chain with itself is that chain.
// CHECK-LABEL: func.func @same_chain_twice
// CHECK-SAME: (%[[A:.*]]: !tfrt.chain)
func.func @same_chain_twice(%a: !tfrt.chain) -> !tfrt.chain {
  // CHECK-NEXT: tfrt.return %[[A]] : !tfrt.chain
  %m = tfrt.merge.chains %a, %a : !tfrt.chain, !tfrt.chain
  tfrt.return %m : !tfrt.chain
}

// A single value that is not a chain still becomes one through the merge.
// CHECK-LABEL: func.func @single_value
// CHECK-SAME: (%[[X:.*]]: i32)
func.func @single_value(%x: i32) -> !tfrt.chain {
  // CHECK-NEXT: %[[M:.*]] = tfrt.merge.chains %[[X]] : i32
  // CHECK-NEXT: tfrt.return %[[M]] : !tfrt.chain
  %m = tfrt.merge.chains %x, %x : i32, i32
  tfrt.return %m : !tfrt.chain
}

// Merges inside regions are simplified too.
// CHECK-LABEL: func.func @in_region
func.func @in_region(%n: i32, %ch: !tfrt.chain) -> !tfrt.chain {
  // CHECK: tfrt.repeat.i32 %{{.*}}, %[[CH:.*]] : !tfrt.chain {
  // CHECK-NEXT: tfrt.return %[[CH]] : !tfrt.chain
  %r = tfrt.repeat.i32 %n, %ch : !tfrt.chain {
    %m = tfrt.merge.chains %ch, %ch : !tfrt.chain, !tfrt.chain
    tfrt.return %m : !tfrt.chain
  }
  tfrt.return %r : !tfrt.chain
}
