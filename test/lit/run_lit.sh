#!/usr/bin/env bash
# Runs lit (from llvm-19-tools) over one folder of .mlir tests with Sluice's
# tools on PATH.
#
# usage: run_lit.sh QUEUE TEST_DIR CUDA TOOL...
#   CUDA: 1 when the tools were built with CUDA, 0 when against the stand-in
#   (@cuda//:defs.bzl); each TOOL a built binary
set -euo pipefail

queue="$1"
test_dir="$2"
cuda="$3"
shift 3

tools_dir="$(mktemp -d "${TEST_TMPDIR:-/tmp}/lit_tools.XXXXXX")"
for tool in "$@"; do
  ln -s "$(realpath "${tool}")" "${tools_dir}/$(basename "${tool}")"
done
ln -s /usr/lib/llvm-19/bin/FileCheck "${tools_dir}/FileCheck"
ln -s /usr/lib/llvm-19/bin/not "${tools_dir}/not"

# lit wants the configuration next to the tests: give it the source tree's
# folder (runfiles are symlinks to it).
config_dir="$(dirname "$(realpath "$(dirname "$0")/lit.cfg.py")")"
exec python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v \
  --param "tools_dir=${tools_dir}" --param "queue=${queue}" \
  --param "cuda=${cuda}" \
  "${config_dir}/${test_dir}"
