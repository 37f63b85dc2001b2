// sluice_translate refuses programs nested deeper than 256 levels of
// brackets before MLIR's parser sees them, and compiles and decompiles
// programs at the limit (test/lit/run/Inputs/nested.py writes them).
// RUN: python3 %S/../run/Inputs/nested.py arrays 256 > %t.arrays256.mlir
// RUN: sluice_translate --mlir-to-sbf %t.arrays256.mlir -o %t.arrays256.sbf
// RUN: sluice_translate --sbf-to-mlir %t.arrays256.sbf | FileCheck %s --check-prefix=ARRAYS
// ARRAYS: "tfrt_test.flat"() {value = {{\[+}}7 : i32{{\]+}}} : () -> i32
// RUN: sluice_run %t.arrays256.sbf | FileCheck %s --check-prefix=RUN-ARRAYS
// RUN-ARRAYS: 'flat' returned 7
// RUN: python3 %S/../run/Inputs/nested.py ifs 256 > %t.ifs256.mlir
// RUN: sluice_translate --mlir-to-sbf %t.ifs256.mlir -o %t.ifs256.sbf
// RUN: sluice_translate --sbf-to-mlir %t.ifs256.sbf | FileCheck %s --check-prefix=IFS
// IFS-COUNT-255: tfrt.if
// RUN: sluice_run %t.ifs256.sbf | FileCheck %s --check-prefix=RUN-IFS
// RUN-IFS: 'deep_if' returned 7

// RUN: python3 %S/../run/Inputs/nested.py arrays 257 > %t.arrays257.mlir
// RUN: not sluice_translate --mlir-to-sbf %t.arrays257.mlir -o %t.arrays257.sbf 2>&1 | FileCheck %s --check-prefix=TOO-DEEP
// TOO-DEEP: arrays257.mlir:2:290: error: nesting deeper than 256 levels; sluice limits programs to 256 levels of brackets ((), [], {} and <>)
// RUN: python3 %S/../run/Inputs/nested.py arrays 8000 > %t.arrays8000.mlir
// RUN: not sluice_translate --mlir-to-sbf %t.arrays8000.mlir 2>&1 | FileCheck %s --check-prefix=TOO-DEEP-8000
// TOO-DEEP-8000: arrays8000.mlir:2:290: error: nesting deeper than 256 levels
// RUN: python3 %S/../run/Inputs/nested.py ifs 3000 > %t.ifs3000.mlir
// RUN: not sluice_translate --mlir-to-sbf %t.ifs3000.mlir 2>&1 | FileCheck %s --check-prefix=TOO-DEEP-IFS
// TOO-DEEP-IFS: ifs3000.mlir:514:29: error: nesting deeper than 256 levels

func.func @unused() {
  tfrt.return
}
