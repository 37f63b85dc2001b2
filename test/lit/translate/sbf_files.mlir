// Compiled programs as files: `-` for standard input and output, a program
// compiled without its optional sections (runs, cannot be decompiled), and
// damaged files, which both tools refuse with the reason instead of
// crashing.

// The compiled program, its decompiled text and that text compiled again
// all run the same, on either queue.
// RUN: sluice_translate --mlir-to-sbf %s -o %t.sbf
// RUN: sluice_run %t.sbf | FileCheck %s --check-prefix=EXEC
// RUN: sluice_translate --sbf-to-mlir %t.sbf -o %t.mlir
// RUN: sluice_run -work_queue_type=mstd:2 %t.mlir | FileCheck %s --check-prefix=EXEC
// RUN: cat %s | sluice_translate --mlir-to-sbf - -o - | sluice_translate --sbf-to-mlir - | sluice_translate --mlir-to-sbf | sluice_run - | FileCheck %s --check-prefix=EXEC
// EXEC-LABEL: --- Running 'sum_to_ten':
// EXEC-NEXT: 'sum_to_ten' returned 55
// EXEC-NEXT: --- Running 'greet':
// EXEC-NEXT: string = hello
// EXEC-NEXT: 'greet' returned !tfrt.chain value

// Without the optional sections the file is smaller, still runs, and the
// decompiler warns that it prints what it can (test/lit/compat).
// RUN: sluice_translate --mlir-to-sbf --disable-optional-sections %s -o %t.small.sbf
// RUN: sluice_run %t.small.sbf | FileCheck %s --check-prefix=EXEC
// RUN: test $(wc -c < %t.small.sbf) -lt $(wc -c < %t.sbf)
// RUN: sluice_translate --sbf-to-mlir %t.small.sbf 2>&1 | FileCheck %s --check-prefix=NO-OPTIONAL
// NO-OPTIONAL: warning: Missing AttributeTypes, AttributeNames or RegisterTypes sections.

// Diagnostics of a compiled program point at the source, with or without
// the optional sections.
// RUN: sluice_translate --mlir-to-sbf %S/Inputs/runtime_error.mlir -o %t.error.sbf
// RUN: not sluice_run %t.error.sbf 2>&1 | FileCheck %s --check-prefix=LOCATION
// RUN: sluice_translate --mlir-to-sbf --disable-optional-sections %S/Inputs/runtime_error.mlir | not sluice_run 2>&1 | FileCheck %s --check-prefix=LOCATION
// LOCATION: --- Running 'fails':
// LOCATION-NEXT: runtime_error.mlir:4:10: error: runtime error: something bad happened
// LOCATION-NEXT: 'fails' returned <<error: something bad happened>>

// Truncated at several points: in the header, in the section table, in a
// section. Each is an `invalid sbf file` error naming what is wrong: a file
// with its header is refused by its checksum before anything else.
// RUN: head -c 10 %t.sbf > %t.cut10.sbf
// RUN: not sluice_translate --sbf-to-mlir %t.cut10.sbf 2>&1 | FileCheck %s --check-prefix=CUT10
// RUN: not sluice_run %t.cut10.sbf 2>&1 | FileCheck %s --check-prefix=CUT10-SLUICE
// CUT10: cut10.sbf:0:0: error: invalid sbf file: Header at offset 0: file has 10 bytes, fewer than the 16-byte header
// CUT10-SLUICE: error: invalid sbf file: Header at offset 0: file has 10 bytes, fewer than the 16-byte header
// CUT10-SLUICE-NOT: Running
// RUN: head -c 40 %t.sbf > %t.cut40.sbf
// RUN: not sluice_translate --sbf-to-mlir %t.cut40.sbf 2>&1 | FileCheck %s --check-prefix=CUT40
// RUN: not sluice_run %t.cut40.sbf 2>&1 | FileCheck %s --check-prefix=CUT40
// CUT40: error: invalid sbf file: Header at offset 12: checksum mismatch (header says 0x{{[0-9a-f]+}}, contents give 0x{{[0-9a-f]+}}): the file is corrupt or was changed after it was written
// CUT40-NOT: Running
// RUN: head -c 300 %t.sbf > %t.cut300.sbf
// RUN: not sluice_translate --sbf-to-mlir %t.cut300.sbf 2>&1 | FileCheck %s --check-prefix=CUT300
// RUN: not sluice_run %t.cut300.sbf 2>&1 | FileCheck %s --check-prefix=CUT300
// CUT300: error: invalid sbf file: Header at offset 12: checksum mismatch (header says 0x{{[0-9a-f]+}}, contents give 0x{{[0-9a-f]+}}): the file is corrupt or was changed after it was written
// CUT300-NOT: Running
// The same through standard input.
// RUN: head -c 300 %t.sbf | not sluice_run - 2>&1 | FileCheck %s --check-prefix=CUT300
// RUN: head -c 300 %t.sbf | not sluice_translate --sbf-to-mlir - 2>&1 | FileCheck %s --check-prefix=CUT300

// An empty file and text that is no SBF.
// RUN: head -c 0 %t.sbf > %t.empty.sbf
// RUN: not sluice_translate --sbf-to-mlir %t.empty.sbf 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: invalid sbf file: Header at offset 0: file has 0 bytes, fewer than the 16-byte header
// RUN: printf 'this is not a compiled program' > %t.text.sbf
// RUN: not sluice_translate --sbf-to-mlir %t.text.sbf 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: error: invalid sbf file: Header at offset 0: bad magic 74 68 69 73, expected {{.*}} ("SLBF")
// RUN: not sluice_translate --sbf-to-mlir %t.does_not_exist.sbf 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: sluice_translate: cannot open '{{.*}}does_not_exist.sbf': No such file or directory

// An input that never ends is refused once it passes the 256 MiB limit,
// through standard input as well as by name.
// RUN: not sluice_translate --sbf-to-mlir /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS
// ENDLESS: sluice_translate: '/dev/zero' goes on past the 256 MiB an input may hold
// RUN: not sluice_translate --mlir-to-sbf - < /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS-STDIN
// ENDLESS-STDIN: sluice_translate: '<stdin>' goes on past the 256 MiB an input may hold
// RUN: not sluice_opt /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS-OPT
// ENDLESS-OPT: sluice_opt: '/dev/zero' goes on past the 256 MiB an input may hold

func.func @body(%i: i32, %acc: i32) -> (i32, i32, i1) {
  %one = tfrt.constant.i32 1
  %acc2 = tfrt.add.i32 %acc, %i
  %next = tfrt.add.i32 %i, %one
  %ten = tfrt.constant.i32 10
  %more = "tfrt.lessequal.i32"(%next, %ten) : (i32, i32) -> i1
  tfrt.return %next, %acc2, %more : i32, i32, i1
}

func.func @sum_to_ten() -> i32 {
  %true = tfrt.constant.i1 1
  %one = tfrt.constant.i32 1
  %zero = tfrt.constant.i32 0
  %r:2 = tfrt.while %true @body(%one, %zero) parallel_iterations(1) : (i32, i32) -> (i32, i32)
  tfrt.return %r#1 : i32
}

func.func @greet() -> !tfrt.chain {
  %ch0 = tfrt.new.chain
  %hello = "tfrt_test.get_string"() {value = "hello"} : () -> !tfrt.string
  %ch1 = tfrt_test.do.async %hello, %ch0 : (!tfrt.string, !tfrt.chain) -> (!tfrt.chain) {
    %c = "tfrt_test.print_string"(%hello, %ch0) : (!tfrt.string, !tfrt.chain) -> !tfrt.chain
    tfrt.return %c : !tfrt.chain
  }
  tfrt.return %ch1 : !tfrt.chain
}
