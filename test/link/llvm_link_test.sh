#!/usr/bin/env bash
# Checks how each binary links LLVM, from its ELF dynamic section and its
# symbol table:
#   --runtime BINARY: no LLVM at all: no libLLVM/libMLIR among its NEEDED
#     libraries, and no llvm:: symbol in its symbol table (defined or not,
#     inline copies included): a binary that only loads .sbf needs nothing
#     of LLVM, its command line included.
#   --mlir BINARY: needs libLLVM, defines no llvm:: symbol of its own (a
#     second copy of LLVM Support would register its command-line options
#     twice and abort), and starts: `--help` exits 0 and lists its options
#     once.
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

# Global symbols the binary itself defines in namespace llvm (mangled
# _ZN4llvm / _ZNK4llvm), weak inline copies aside.
own_llvm_symbols() {
  nm --defined-only --extern-only "$1" |
    awk '$2 ~ /^[TDBR]$/ && $3 ~ /^_ZN?K?4llvm/ {print $3}'
}

check_runtime() {
  local binary="$1" name
  name="$(basename "$binary")"
  local libs
  libs="$(needed "$binary")"
  [ -n "$libs" ] || fail "$name: readelf found no NEEDED entries"
  if grep -E 'lib(LLVM|MLIR)' <<<"$libs"; then
    fail "$name needs the libraries above; it should need no LLVM at all"
  fi
  local symbols count
  symbols="$(nm -C "$binary" | grep 'llvm::' || true)"
  count="$(grep -c 'llvm::' <<<"$symbols" || true)"
  if [ "$count" -ne 0 ]; then
    echo "$symbols" | head -20 >&2
    fail "$name holds $count llvm:: symbols (the first 20 above)"
  fi
  echo "ok: $name needs $(wc -l <<<"$libs") libraries, none of them LLVM's," \
    "and holds no llvm:: symbol"
}

check_mlir() {
  local binary="$1" name
  name="$(basename "$binary")"
  grep -q '^libLLVM' <<<"$(needed "$binary")" ||
    fail "$name does not need libLLVM: is it still an MLIR tool?"
  local own
  own="$(own_llvm_symbols "$binary")"
  if [ -n "$own" ]; then
    echo "$own" | head -20 >&2
    fail "$name defines $(wc -l <<<"$own") llvm:: symbols (above) next to libLLVM's"
  fi
  local help status=0
  help="$("$binary" --help 2>&1)" || status=$?
  [ "$status" -eq 0 ] || fail "$name --help exited with $status: $help"
  [ "$(grep -c -- '^ *--mlir-to-sbf ' <<<"$help")" -eq 1 ] ||
    fail "$name --help does not list --mlir-to-sbf exactly once: $help"
  echo "ok: $name takes LLVM from libLLVM only"
}

[ "$#" -gt 0 ] || fail "usage: $0 (--runtime|--mlir) BINARY ..."
while [ "$#" -gt 0 ]; do
  case "$1" in
    --runtime) check_runtime "$2" ;;
    --mlir) check_mlir "$2" ;;
    *) fail "unknown argument $1" ;;
  esac
  shift 2
done
echo "PASS"
