// tfrt_test.get_uniqueness is true only when no one but the kernel can
// observe the value, the contract of kernels that reuse an input in place:
// a value read again later, returned, held by the caller (an argument, a
// region's operand) or by another register, or an indirect value whose
// source is still referenced, is not unique, whatever its reference count.
// RUN: %sluice_run %s | FileCheck %s
// RUN: sluice_translate --mlir-to-sbf %s | %sluice_run | FileCheck %s

// CHECK-LABEL: --- Running 'alone':
// CHECK-NEXT: 'alone' returned 1,1
func.func @alone() -> (i1, i1) {
  %a = tfrt.constant.i32 1
  %u = "tfrt_test.get_uniqueness"(%a) : (i32) -> i1
  %s = "tfrt_test.get_string"() {value = "x"} : () -> !tfrt.string
  %v = "tfrt_test.get_uniqueness"(%s) : (!tfrt.string) -> i1
  tfrt.return %u, %v : i1, i1
}

// The caller still holds the constant in its register for the add.
// CHECK-LABEL: --- Running 'constant_read_later':
// CHECK-NEXT: 'constant_read_later' returned 0,2
func.func @constant_read_later() -> (i1, i32) {
  %a = tfrt.constant.i32 1
  %u = "tfrt_test.get_uniqueness"(%a) : (i32) -> i1
  %b = tfrt.add.i32 %a, %a
  tfrt.return %u, %b : i1, i32
}

// CHECK-LABEL: --- Running 'computed_read_later':
// CHECK-NEXT: 'computed_read_later' returned 0,4,0,!tfrt.string value
func.func @computed_read_later() -> (i1, i32, i1, !tfrt.string) {
  %one = tfrt.constant.i32 1
  %a = tfrt.add.i32 %one, %one
  %u = "tfrt_test.get_uniqueness"(%a) : (i32) -> i1
  %b = tfrt.add.i32 %a, %a
  %s = "tfrt_test.get_string"() {value = "x"} : () -> !tfrt.string
  %v = "tfrt_test.get_uniqueness"(%s) : (!tfrt.string) -> i1
  %t = "tfrt_test.append_string"(%s, %s) : (!tfrt.string, !tfrt.string) -> !tfrt.string
  tfrt.return %u, %b, %v, %t : i1, i32, i1, !tfrt.string
}

// Its last reader: every other reader is done with it.
// CHECK-LABEL: --- Running 'computed_last_read':
// CHECK-NEXT: 'computed_last_read' returned 1,4
func.func @computed_last_read() -> (i1, i32) {
  %one = tfrt.constant.i32 1
  %a = tfrt.add.i32 %one, %one
  %b = tfrt.add.i32 %a, %a
  %ch = "tfrt_test.as_chain"(%b) : (i32) -> !tfrt.chain
  %x = "tfrt_test.identity"(%ch, %a) : (!tfrt.chain, i32) -> i32
  %u = "tfrt_test.get_uniqueness"(%x) : (i32) -> i1
  tfrt.return %u, %b : i1, i32
}

// CHECK-LABEL: --- Running 'returned':
// CHECK-NEXT: 'returned' returned 0,1
func.func @returned() -> (i1, i32) {
  %a = tfrt.constant.i32 1
  %u = "tfrt_test.get_uniqueness"(%a) : (i32) -> i1
  tfrt.return %u, %a : i1, i32
}

// One kernel taking the value twice sees it twice.
// CHECK-LABEL: --- Running 'taken_twice':
// CHECK-NEXT: 'taken_twice' returned 0,0
func.func @taken_twice() -> (i1, i1) {
  %a = tfrt.constant.i32 1
  %u:2 = "tfrt_test.get_uniqueness"(%a, %a) : (i32, i32) -> (i1, i1)
  tfrt.return %u#0, %u#1 : i1, i1
}

// CHECK-LABEL: --- Running 'shared_by_two':
// CHECK-NEXT: 'shared_by_two' returned 0,8
func.func @shared_by_two() -> (i1, i32) {
  %a = tfrt.constant.i32 8
  %b, %c = "tfrt_test.share_to_two"(%a) : (i32) -> (i32, i32)
  %u = "tfrt_test.get_uniqueness"(%b) : (i32) -> i1
  tfrt.return %u, %c : i1, i32
}

func.func @callee(%x: i32) -> i1 {
  %u = "tfrt_test.get_uniqueness"(%x) : (i32) -> i1
  tfrt.return %u : i1
}

// An argument is the caller's, even at its last use there.
// CHECK-LABEL: --- Running 'argument':
// CHECK-NEXT: 'argument' returned 0,2,0
func.func @argument() -> (i1, i32, i1) {
  %a = tfrt.constant.i32 1
  %u = tfrt.call @callee(%a) : (i32) -> i1
  %b = tfrt.add.i32 %a, %a
  %c = tfrt.constant.i32 3
  %v = tfrt.call @callee(%c) : (i32) -> i1
  tfrt.return %u, %b, %v : i1, i32, i1
}

// A region's operands are its arguments.
// CHECK-LABEL: --- Running 'in_region':
// CHECK-NEXT: 'in_region' returned 0
func.func @in_region() -> i1 {
  %a = tfrt.constant.i32 1
  %true = tfrt.constant.i1 true
  %u = tfrt.if %true, %a : (i32) -> (i1) {
    %v = "tfrt_test.get_uniqueness"(%a) : (i32) -> i1
    tfrt.return %v : i1
  } else {
    %false = tfrt.constant.i1 false
    tfrt.return %false : i1
  }
  tfrt.return %u : i1
}

// CHECK-LABEL: --- Running 'indirect':
// CHECK-NEXT: 'indirect' returned 0,2,1,0,2
func.func @indirect() -> (i1, i32, i1, i1, i32) {
  // The source is still read by the add.
  %a = tfrt.constant.i32 1
  %x = "tfrt_test.make_indirect"(%a) : (i32) -> i32
  %u = "tfrt_test.get_uniqueness"(%x) : (i32) -> i1
  %b = tfrt.add.i32 %a, %a
  // Nothing else holds the source.
  %c = tfrt.constant.i32 5
  %y = "tfrt_test.make_indirect"(%c) : (i32) -> i32
  %v = "tfrt_test.get_uniqueness"(%y) : (i32) -> i1
  // The indirect value itself is read again.
  %d = tfrt.constant.i32 1
  %z = "tfrt_test.make_indirect"(%d) : (i32) -> i32
  %w = "tfrt_test.get_uniqueness"(%z) : (i32) -> i1
  %e = tfrt.add.i32 %z, %z
  tfrt.return %u, %b, %v, %w, %e : i1, i32, i1, i1, i32
}
