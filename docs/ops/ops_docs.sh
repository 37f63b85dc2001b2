#!/usr/bin/env bash
# Keeps docs/ops/*.md equal to what mlir-tblgen generates from the ODS
# files.
#
# usage: ops_docs.sh check GENERATED.md...   (a test: fails on a difference,
#                                            a missing or an extra file)
#        ops_docs.sh update GENERATED.md...  (bazel run: rewrites docs/ops/)
set -euo pipefail

mode="$1"
shift

if [[ "${mode}" == "update" ]]; then
  target="${BUILD_WORKSPACE_DIRECTORY:?run it with bazel run //docs/ops:update}/docs/ops"
  for generated in "$@"; do
    cp "${generated}" "${target}/$(basename "${generated}")"
    chmod 644 "${target}/$(basename "${generated}")"
  done
  echo "wrote $# files to ${target}"
  exit 0
fi

committed_dir="docs/ops"
status=0
declare -A expected
for generated in "$@"; do
  name="$(basename "${generated}")"
  expected["${name}"]=1
  if [[ ! -f "${committed_dir}/${name}" ]]; then
    echo "FAIL: docs/ops/${name} is missing (bazel run //docs/ops:update)"
    status=1
  elif ! diff -u "${committed_dir}/${name}" "${generated}"; then
    echo "FAIL: docs/ops/${name} differs from its ODS (bazel run //docs/ops:update)"
    status=1
  fi
done
for committed in "${committed_dir}"/*.md; do
  name="$(basename "${committed}")"
  if [[ "${name}" != "README.md" && -z "${expected[${name}]:-}" ]]; then
    echo "FAIL: docs/ops/${name} is no dialect's reference"
    status=1
  fi
done
[[ "${status}" == 0 ]] && echo "PASS: docs/ops matches the ODS of $# dialects"
exit "${status}"
