#!/usr/bin/env bash
# Checks that a binary linking NCCL binds none of the NCCL entry points newer
# than the oldest NCCL supported. Binaries are linked with -z now: a libnccl
# without such a symbol would stop the process at load, so nccl_real_api.cc
# looks them up at run time instead. The NCCL calls may sit in the binary
# (static links, --config=tsan) or in the workspace's shared libraries it
# needs (tests' default dynamic links); both are read.
#
# usage: nccl_symbols_test.sh [--no-cuda]   (--no-cuda: built without CUDA)
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# A build without CUDA links the stand-in NCCL, built with the binary: no
# machine's libnccl is loaded, so none can lack a symbol.
if [ "${1:-}" = "--no-cuda" ]; then
  echo "SKIP: this build of Sluice has no CUDA (@cuda//:defs.bzl HAS_CUDA is" \
    "False): no libnccl is linked"
  exit 0
fi

# Called through dlsym only.
late=(ncclCommShrink ncclCommSplit)
# Called directly: shows that the NCCL calls were found at all.
direct=(ncclAllReduce ncclGetVersion)

root="${TEST_SRCDIR:?run under bazel test}/${TEST_WORKSPACE:-sluice}"
binary="${root}/test/unit/collective/nccl_gpu_group_test"
[ -x "$binary" ] || fail "no binary at $binary"

# The binary, and those of its NEEDED libraries that the workspace built.
objects=("$binary")
needed="$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
[ -n "$needed" ] || fail "readelf found no NEEDED entries in $binary"
while read -r lib; do
  for candidate in "$root"/_solib_*/"$lib"; do
    if [ -f "$candidate" ]; then objects+=("$candidate"); fi
  done
done <<<"$needed"

# "SYMBOL OBJECT" for each undefined dynamic symbol, without @version.
undefined="$(for object in "${objects[@]}"; do
  nm -D --undefined-only "$object" |
    awk -v object="$(basename "$object")" \
      '{sub(/@.*/, "", $NF); print $NF, object}'
done)"
[ -n "$undefined" ] || fail "nm found no undefined symbols"
binders() {
  awk -v symbol="$1" '$1 == symbol {print $2}' <<<"$undefined" | paste -sd' '
}

for symbol in "${late[@]}"; do
  by="$(binders "$symbol")"
  [ -z "$by" ] ||
    fail "$symbol is bound at load by $by; it must be looked up with dlsym"
done
for symbol in "${direct[@]}"; do
  [ -n "$(binders "$symbol")" ] ||
    fail "$symbol is not referenced by ${objects[*]##*/}; are the NCCL" \
      "calls still linked in?"
done

echo "ok: ${#objects[@]} objects read; none binds ${late[*]}; they bind" \
  "${direct[*]}"
echo "PASS"
