// Every tool takes --liveness_timeout_ms, whose default is
// SLUICE_LIVENESS_TIMEOUT_MS; a value out of range, in the flag or the
// variable, is refused before the tool starts anything, and the processes
// the launcher starts get the launcher's value.

// RUN: sluice_worker --liveness_timeout_ms=5 2> %t.err; test $? -eq 1
// RUN: env SLUICE_LIVENESS_TIMEOUT_MS=abc sluice_lighthouse --help 2>> %t.err; test $? -eq 1
// RUN: env SLUICE_LIVENESS_TIMEOUT_MS=50 sluice_run %s 2>> %t.err; test $? -eq 1
// RUN: FileCheck %s --check-prefix=REFUSED --match-full-lines < %t.err
// REFUSED: sluice_worker: --liveness_timeout_ms=5 is out of range: expected 100 to 604800000
// REFUSED-NEXT: sluice_lighthouse: SLUICE_LIVENESS_TIMEOUT_MS='abc': expected milliseconds, 100 to 604800000
// REFUSED-NEXT: sluice_run: SLUICE_LIVENESS_TIMEOUT_MS='50': expected milliseconds, 100 to 604800000

// RUN: env SLUICE_LIVENESS_TIMEOUT_MS=2500 sluice_monitor --help | FileCheck %s --check-prefix=HELP
// HELP: --liveness_timeout_ms=<int>
// HELP-SAME: SLUICE_LIVENESS_TIMEOUT_MS, otherwise 3000 (100 to 604800000)

// RUN: sluice_launch --nproc=1 --liveness_timeout_ms=1500 -- sh -c 'echo "rank sees $SLUICE_LIVENESS_TIMEOUT_MS"' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: [0] rank sees 1500

func.func @unused() {
  tfrt.return
}
