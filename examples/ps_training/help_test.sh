#!/bin/bash
# ps_train --help: exits 0 and shows the example's own flags and the shared
# tool flags only, none of the options of the libraries it links.
set -euo pipefail
binary=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

help=$("$binary" --help) || fail "--help exited with $?"
lines=$(wc -l <<<"$help")
((lines <= 30)) || fail "--help prints $lines lines, not at most 30:
$help"
for flag in --model= --cluster= --epochs= --steps_per_epoch= \
    --checkpoint_dir= --signal_every_steps= --liveness_timeout_ms= --help \
    --version; do
  grep -qe "^ *$flag" <<<"$help" || fail "--help does not name $flag:
$help"
done
! grep -qiE "llvm|generic options|--print-|--mlir" <<<"$help" ||
  fail "--help shows library options:
$help"
echo PASS
