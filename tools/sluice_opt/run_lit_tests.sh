#!/usr/bin/env bash
# Runs the `// RUN:` lines of .mlir test files the way lit would, for the few
# substitutions these tests use: %s (the file), %t (a scratch path per file),
# and the tools sluice_opt and FileCheck, found first on PATH.
#
# usage: run_lit_tests.sh SLUICE_OPT FILECHECK TEST.mlir...
set -uo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 SLUICE_OPT FILECHECK TEST.mlir..." >&2
  exit 2
fi

tools_dir="$(mktemp -d "${TEST_TMPDIR:-/tmp}/lit_tools.XXXXXX")"
ln -s "$(realpath "$1")" "${tools_dir}/sluice_opt"
ln -s "$(realpath "$2")" "${tools_dir}/FileCheck"
export PATH="${tools_dir}:${PATH}"
shift 2

failures=0
runs=0
for test_file in "$@"; do
  scratch="${tools_dir}/$(basename "${test_file}" .mlir)"
  # A RUN line ending in a backslash continues on the next RUN line.
  command=""
  while IFS= read -r line; do
    line="${line#*RUN:}"
    if [[ "${line}" == *\\ ]]; then
      command+="${line%\\} "
      continue
    fi
    command+="${line}"
    command="${command//%s/${test_file}}"
    command="${command//%t/${scratch}}"
    runs=$((runs + 1))
    if output="$(bash -o pipefail -c "${command}" 2>&1)"; then
      echo "PASS: ${test_file}:${command}"
    else
      echo "FAIL: ${test_file}:${command}"
      echo "${output}"
      failures=$((failures + 1))
    fi
    command=""
  done < <(grep -E '^// RUN:' "${test_file}")
done

echo "${runs} RUN lines, ${failures} failed"
if [[ ${runs} -eq 0 ]]; then
  echo "no RUN lines found" >&2
  exit 1
fi
[[ ${failures} -eq 0 ]]
