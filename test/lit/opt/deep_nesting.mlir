// sluice_opt refuses programs nested deeper than 256 levels of brackets
// before MLIR's parser sees them, from a file or standard input, and runs
// its passes on programs at the limit (test/lit/run/Inputs/nested.py
// writes them).
// RUN: python3 %S/../run/Inputs/nested.py arrays 256 > %t.arrays256.mlir
// RUN: sluice_opt %t.arrays256.mlir -inline -canonicalize -cse | FileCheck %s --check-prefix=ARRAYS
// ARRAYS: "tfrt_test.flat"() {value = {{\[+}}7 : i32{{\]+}}} : () -> i32
// RUN: python3 %S/../run/Inputs/nested.py ifs 256 > %t.ifs256.mlir
// RUN: sluice_opt %t.ifs256.mlir -inline -canonicalize -cse -symbol-dce | FileCheck %s --check-prefix=IFS
// IFS: func.func @deep_if

// RUN: python3 %S/../run/Inputs/nested.py arrays 257 > %t.arrays257.mlir
// RUN: not sluice_opt %t.arrays257.mlir 2>&1 | FileCheck %s --check-prefix=TOO-DEEP
// TOO-DEEP: arrays257.mlir:2:290: error: nesting deeper than 256 levels; sluice limits programs to 256 levels of brackets ((), [], {} and <>)
// RUN: python3 %S/../run/Inputs/nested.py arrays 8000 | not sluice_opt 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: <stdin>:2:290: error: nesting deeper than 256 levels
// RUN: python3 %S/../run/Inputs/nested.py ifs 3000 > %t.ifs3000.mlir
// RUN: not sluice_opt %t.ifs3000.mlir -inline 2>&1 | FileCheck %s --check-prefix=TOO-DEEP-IFS
// TOO-DEEP-IFS: ifs3000.mlir:514:29: error: nesting deeper than 256 levels

func.func @unused() {
  tfrt.return
}
