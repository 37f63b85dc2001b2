// merge_chains_canonicalize.mlir: merges canonicalization simplifies, whose
// prints still come out in order.
func.func @main() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %one = tfrt.constant.i32 1
  %two = tfrt.constant.i32 2
  %three = tfrt.constant.i32 3
  %ch1 = tfrt.print.i32 %one, %ch0
  %m1 = tfrt.merge.chains %ch0, %ch1, %ch0 : !tfrt.chain, !tfrt.chain, !tfrt.chain
  %ch2 = tfrt.print.i32 %two, %m1
  %m2 = tfrt.merge.chains %ch1, %ch2, %two : !tfrt.chain, !tfrt.chain, i32
  %ch3 = tfrt.print.i32 %three, %m2
  tfrt.return %ch3 : !tfrt.chain
}
