// Programs nested deeper than 256 levels of brackets are refused before
// MLIR's parser, which recurses once per level, sees them; programs at the
// limit compile and run. The deep programs are generated: an attribute of
// arrays (tfrt_test.flat walks them recursively at run time) and tfrt.if
// nested in tfrt.if.
// RUN: python3 %S/Inputs/nested.py arrays 256 > %t.arrays256.mlir
// RUN: %sluice_run %t.arrays256.mlir | FileCheck %s --check-prefix=ARRAYS
// ARRAYS: 'flat' returned 7
// RUN: python3 %S/Inputs/nested.py arrays 257 > %t.arrays257.mlir
// RUN: not %sluice_run %t.arrays257.mlir 2>&1 | FileCheck %s --check-prefix=TOO-DEEP-ARRAYS
// TOO-DEEP-ARRAYS: arrays257.mlir:2:290: error: nesting deeper than 256 levels; sluice limits programs to 256 levels of brackets ((), [], {} and <>)
// TOO-DEEP-ARRAYS-NOT: Running
// RUN: python3 %S/Inputs/nested.py arrays 8000 > %t.arrays8000.mlir
// RUN: not %sluice_run %t.arrays8000.mlir 2>&1 | FileCheck %s --check-prefix=WAY-TOO-DEEP
// WAY-TOO-DEEP: arrays8000.mlir:2:290: error: nesting deeper than 256 levels

// RUN: python3 %S/Inputs/nested.py ifs 256 > %t.ifs256.mlir
// RUN: %sluice_run %t.ifs256.mlir | FileCheck %s --check-prefix=IFS
// IFS: 'deep_if' returned 7
// RUN: python3 %S/Inputs/nested.py ifs 257 > %t.ifs257.mlir
// RUN: not %sluice_run %t.ifs257.mlir 2>&1 | FileCheck %s --check-prefix=TOO-DEEP-IFS
// TOO-DEEP-IFS: {{ifs257|ifs3000}}.mlir:514:29: error: nesting deeper than 256 levels
// TOO-DEEP-IFS-NOT: Running
// RUN: python3 %S/Inputs/nested.py ifs 3000 > %t.ifs3000.mlir
// RUN: not %sluice_run %t.ifs3000.mlir 2>&1 | FileCheck %s --check-prefix=TOO-DEEP-IFS

// Brackets in strings and comments do not count.
// RUN: %sluice_run %s | FileCheck %s
// CHECK: 'brackets_in_strings' returned !tfrt.string value
// [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[
func.func @brackets_in_strings() -> !tfrt.string {
  %s = "tfrt_test.get_string"() {value = "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((\" ((("} : () -> !tfrt.string
  tfrt.return %s : !tfrt.string
}
