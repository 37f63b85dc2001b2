#!/bin/bash
# An example's --help: exits 0 and shows the example's own flags and the
# shared tool flags only, none of the options of the libraries it links.
# Arguments: the binary, then every flag its help must name ("--model=").
set -euo pipefail
binary=$1
shift
fail() { echo "FAIL: $*" >&2; exit 1; }

help=$("$binary" --help) || fail "--help exited with $?"
lines=$(wc -l <<<"$help")
((lines <= 30)) || fail "--help prints $lines lines, not at most 30:
$help"
for flag in "$@" --liveness_timeout_ms= --help --version; do
  grep -qe "^ *$flag" <<<"$help" || fail "--help does not name $flag:
$help"
done
! grep -qiE "llvm|generic options|--print-|--mlir" <<<"$help" ||
  fail "--help shows library options:
$help"
echo PASS
