// A value that has exactly one user is released as soon as that user ran,
// not when the whole function finishes (docs/execution.md, "A call"), so a
// long chain keeps only a few values alive. Watched through the vt kernels
// on the single-threaded queue, where the order is fixed.
// RUN: sluice_run -work_queue_type=s %s | FileCheck %s

// CHECK-LABEL: --- Running 'chain':
// CHECK-NEXT: constructed vt.value(1)
// CHECK-NEXT: constructed vt.value(2)
// CHECK-NEXT: constructed vt.value(4)
// CHECK-NEXT: constructed vt.value(3)
// CHECK-NEXT: destroyed vt.value(1)
// CHECK-NEXT: destroyed vt.value(2)
// CHECK-NEXT: constructed vt.value(7)
// CHECK-NEXT: destroyed vt.value(3)
// CHECK-NEXT: destroyed vt.value(4)
// CHECK-NEXT: print vt_value(7)
// CHECK-NEXT: destroyed vt.value(7)
func.func @chain() {
  %ch0 = tfrt.new.chain
  %one = "vt.constant"() {value = 1 : i32} : () -> !vt.value
  %two = "vt.constant"() {value = 2 : i32} : () -> !vt.value
  %four = "vt.constant"() {value = 4 : i32} : () -> !vt.value
  %three = "vt.add"(%one, %two) : (!vt.value, !vt.value) -> !vt.value
  %seven = "vt.add"(%three, %four) : (!vt.value, !vt.value) -> !vt.value
  %ch1 = "vt.print"(%seven, %ch0) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// The loop's initial value goes when the loop kernel has run, before the
// print that waits for the loop's result.
// CHECK-LABEL: --- Running 'loop':
// CHECK-NEXT: constructed vt.value(1)
// CHECK-NEXT: constructed vt.value(2)
// CHECK-NEXT: destroyed vt.value(1)
// CHECK-NEXT: print vt_value(2)
// CHECK-NEXT: destroyed vt.value(2)
func.func @loop() {
  %ch0 = tfrt.new.chain
  %one = "vt.constant"() {value = 1 : i32} : () -> !vt.value
  %n = tfrt.constant.i32 1
  %r = tfrt.repeat.i32 %n, %one : !vt.value {
    %twice = "vt.add"(%one, %one) : (!vt.value, !vt.value) -> !vt.value
    tfrt.return %twice : !vt.value
  }
  %ch1 = "vt.print"(%r, %ch0) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  tfrt.return
}

// A value used twice, or returned, stays until its last use.
// CHECK-LABEL: --- Running 'used_twice':
// CHECK-NEXT: constructed vt.value(5)
// CHECK-NEXT: print vt_value(5)
// CHECK-NEXT: print vt_value(5)
// CHECK-NEXT: 'used_twice' returned !vt.value value
// CHECK-NEXT: destroyed vt.value(5)
func.func @used_twice() -> !vt.value {
  %ch0 = tfrt.new.chain
  %five = "vt.constant"() {value = 5 : i32} : () -> !vt.value
  %ch1 = "vt.print"(%five, %ch0) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  %ch2 = "vt.print"(%five, %ch1) : (!vt.value, !tfrt.chain) -> !tfrt.chain
  tfrt.return %five : !vt.value
}
