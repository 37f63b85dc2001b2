// What a sync function may not return, refused at compile time with TFRT's
// messages, at the tfrt.return.
// RUN: sluice_translate --mlir-to-sbf -split-input-file -verify-diagnostics %s -o /dev/null
// RUN: not sluice_translate --mlir-to-sbf -split-input-file %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not sluice_run %s 2>&1 | FileCheck %s --check-prefix=EXEC
// CHECK: error: return value 0 is an argument in a sync function
// CHECK: error: return value 1 is duplicated in a sync function
// CHECK: error: return value 1 is an argument in a sync function
// EXEC: error: return value 0 is an argument in a sync function
// EXEC-NOT: Running

func.func @returns_argument(%x: i32) -> i32 attributes {tfrt.sync} {
  // expected-error @+1 {{return value 0 is an argument in a sync function}}
  tfrt.return %x : i32
}

// -----

func.func @returns_twice(%x: i32) -> (i32, i32) attributes {tfrt.sync} {
  %y = tfrt.add.i32 %x, %x
  // expected-error @+1 {{return value 1 is duplicated in a sync function}}
  tfrt.return %y, %y : i32, i32
}

// -----

func.func @second_is_argument(%x: i32) -> (i32, i32) attributes {tfrt.sync} {
  %y = tfrt.add.i32 %x, %x
  // expected-error @+1 {{return value 1 is an argument in a sync function}}
  tfrt.return %y, %x : i32, i32
}

// -----

// Functions that are not sync may do both.
func.func @not_sync(%x: i32) -> (i32, i32, i32) {
  %y = tfrt.add.i32 %x, %x
  tfrt.return %x, %y, %y : i32, i32, i32
}
