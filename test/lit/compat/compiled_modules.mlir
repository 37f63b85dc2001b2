// Nested modules marked `tfrt.compiled` are compilation units: the
// executable carries them whole (in the CompiledModules section, kept even
// by --disable-optional-sections, for a kernel or a JIT to compile at run
// time), ops refer to their functions by nested symbol, and they come back
// from the decompiler where they were, through any number of round trips.
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf
// RUN: sluice_translate --sbf-to-mlir %t.sbf > %t.first.mlir
// RUN: FileCheck %s < %t.first.mlir
// RUN: sluice_translate --mlir-to-sbf %t.first.mlir | sluice_translate --sbf-to-mlir > %t.second.mlir
// RUN: diff %t.first.mlir %t.second.mlir
// RUN: sluice_translate --mlir-to-sbf --disable-optional-sections %s | sluice_translate --sbf-to-mlir 2>/dev/null | FileCheck %s --check-prefix=CARRIED
// The program around the modules runs as usual; a kernel receives a
// reference into a module as its text.
// RUN: %sluice_run %t.sbf | FileCheck %s --check-prefix=EXEC
// A nested symbol must name a function of a compiled module.
// RUN: sluice_translate --mlir-to-sbf -split-input-file -verify-diagnostics %S/Inputs/compiled_module_errors.mlir -o /dev/null

// CHECK: module {
// CHECK-NEXT: module @kernel attributes {tfrt.compiled} {
// CHECK-NEXT:   func.func @main(%arg0: i32) -> i32 {
// CHECK-NEXT:     %0 = "kernel_dialect.twice"(%arg0) : (i32) -> i32
// CHECK-NEXT:     return %0 : i32
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @other() {
// CHECK-NEXT:     return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CARRIED: "builtin.module"() <{sym_name = "kernel"}> ({
// CARRIED: "kernel_dialect.twice"
// CARRIED: }) {tfrt.compiled} : () -> ()
// CARRIED: "builtin.module"() <{sym_name = "late"}> ({
module @kernel attributes {tfrt.compiled} {
  func.func @main(%x: i32) -> i32 {
    %y = "kernel_dialect.twice"(%x) : (i32) -> i32
    func.return %y : i32
  }
  func.func @other() {
    func.return
  }
}

// CHECK-NEXT: func.func @launch() -> !tfrt.chain {
// CHECK-NEXT:   %0 = tfrt.new.chain
// CHECK-NEXT:   %1 = "tfrt_test.get_string"() {value = @kernel::@main} : () -> !tfrt.string
// CHECK-NEXT:   %2 = "tfrt_test.print_string"(%1, %0) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
// CHECK-NEXT:   tfrt.return %2 : !tfrt.chain
// CHECK-NEXT: }
// EXEC-LABEL: --- Running 'launch':
// EXEC-NEXT: string = @kernel::@main
func.func @launch() -> !tfrt.chain {
  %ch = tfrt.new.chain
  %name = "tfrt_test.get_string"() {value = @kernel::@main} : () -> !tfrt.string
  %printed = "tfrt_test.print_string"(%name, %ch) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
  tfrt.return %printed : !tfrt.chain
}

// EXEC-LABEL: --- Running 'main':
// EXEC-NEXT: 'main' returned 7
// CHECK-NEXT: func.func @main() -> i32 {
func.func @main() -> i32 {
  %seven = tfrt.constant.i32 7
  tfrt.return %seven : i32
}

// CHECK: module @late attributes {tfrt.compiled} {
// CHECK-NEXT: func.func @f()
// CHECK: }
// CHECK-NEXT: }
module @late attributes {tfrt.compiled} {
  func.func @f() {
    func.return
  }
}
