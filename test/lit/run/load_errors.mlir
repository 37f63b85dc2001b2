// Programs that fail before anything runs: parse, verifier and compile
// errors, and ops no kernel implements. Each prints an MLIR-style
// diagnostic at the offending location and exits 1, with nothing on stdout.
// (Errors while running are in errors.mlir and the other run/ tests; more
// compile errors, one per case, in translate/errors.mlir.)

// RUN: not %sluice_run %S/Inputs/parse_error.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=PARSE < %t.err
// RUN: FileCheck %s --check-prefix=NOTHING --allow-empty < %t.out
// PARSE: parse_error.mlir:10:23: error: custom op 'tfrt.add.i32' 1 operands present, but expected 2
// NOTHING-NOT: {{.}}

// RUN: not %sluice_run %S/Inputs/verifier_error.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=VERIFIER < %t.err
// RUN: FileCheck %s --check-prefix=NOTHING --allow-empty < %t.out
// VERIFIER: verifier_error.mlir:9:3: error: 'tfrt.return' op has 2 operands, but enclosing function returns 1

// RUN: not %sluice_run %S/Inputs/return_type_error.mlir 2>&1 | FileCheck %s --check-prefix=RETURN-TYPE
// RETURN-TYPE: return_type_error.mlir:4:3: error: type of return operand 0 ('i32') doesn't match function result type ('!tfrt.chain')
// RETURN-TYPE-NOT: Running

// RUN: not %sluice_run %S/Inputs/bad_callee.mlir 2>&1 | FileCheck %s --check-prefix=CALLEE
// CALLEE: bad_callee.mlir:4:10: error: 'tfrt.call' op 'nowhere' does not reference a valid function
// CALLEE-NOT: Running

// RUN: not %sluice_run %S/Inputs/no_return.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=NO-RETURN < %t.err
// RUN: FileCheck %s --check-prefix=NOTHING --allow-empty < %t.out
// NO-RETURN: no_return.mlir:9:3: error: all functions need to have a tfrt.return

// RUN: not %sluice_run %S/Inputs/external_function.mlir 2>&1 | FileCheck %s --check-prefix=EXTERNAL
// EXTERNAL: external_function.mlir:2:1: error: external functions are not allowed
// EXTERNAL-NOT: Running

// RUN: not %sluice_run %S/Inputs/multi_block.mlir 2>&1 | FileCheck %s --check-prefix=MULTI-BLOCK
// MULTI-BLOCK: multi_block.mlir:2:1: error: multi-block regions cannot be emitted to SBF files
// MULTI-BLOCK-NOT: Running

// RUN: not %sluice_run %S/Inputs/capture.mlir 2>&1 | FileCheck %s --check-prefix=CAPTURE
// CAPTURE: capture.mlir:6:12: error: SBF executor only supports references to kernels within the current region
// CAPTURE-NOT: Running

// An unknown kernel is found when the program loads, compiled in memory or
// from an .sbf file, and reported at the op's location.
// RUN: not %sluice_run %S/Inputs/unknown_kernel.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=UNKNOWN < %t.err
// RUN: FileCheck %s --check-prefix=NOTHING --allow-empty < %t.out
// RUN: sluice_translate --mlir-to-sbf --allow-unregistered-dialect %S/Inputs/unknown_kernel.mlir -o %t.sbf
// RUN: not %sluice_run %t.sbf 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: unknown_kernel.mlir:10:10: error: unknown kernel name 'my.kernel'
// UNKNOWN-NOT: Running

// RUN: not %sluice_run %S/Inputs/unknown_kernel_in_region.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN-IN-REGION
// UNKNOWN-IN-REGION: unknown_kernel_in_region.mlir:6:12: error: unknown kernel name 'tfrt.no_such_kernel'
// UNKNOWN-IN-REGION-NOT: Running

// A native function nobody registered (natives.mlir runs it too).
// RUN: not %sluice_run %S/Inputs/unknown_native.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN-NATIVE
// UNKNOWN-NATIVE: error: unknown native function 'native_nobody_registered'
// UNKNOWN-NATIVE-NOT: Running

// Truncated or garbled compiled programs are refused with the reason.
// RUN: sluice_translate --mlir-to-sbf %s -o %t.whole.sbf
// RUN: head -c 40 %t.whole.sbf > %t.truncated.sbf
// RUN: not %sluice_run %t.truncated.sbf 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: head -c 40 %t.whole.sbf | not %sluice_run - 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: sluice_run: error: invalid sbf file:
// TRUNCATED-NOT: Running

func.func @main() -> i32 {
  %one = tfrt.constant.i32 1
  tfrt.return %one : i32
}
