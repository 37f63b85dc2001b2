#!/usr/bin/env bash
# The guide's command for building a plugin without Bazel (docs/kernels.md,
# "Building a plugin without Bazel"), run with the system's g++ on the
# example's sources against this tree's headers; sluice_run must then run
# the example program with the plugin it made.
#
# usage: plugin_without_bazel_test.sh GUIDE BUILD SLUICE_RUN PROGRAM SOURCE...
# BUILD is how the tools were built, and so how the plugin must be: opt
# (with NDEBUG, as the guide's command assumes), assertions (without it),
# asan or tsan (without it, and with the sanitizer).
set -euo pipefail

guide="$1"
build="$2"
sluice_run="$(realpath "$3")"
program="$(realpath "$4")"
shift 4

fail() {
  echo "FAIL: $*"
  exit 1
}

# The block after the guide's "<!-- recipe: ...plugin_without_bazel_test.sh -->".
command="$(awk '/^<!-- recipe: examples\/kernel_plugin\/plugin_without_bazel_test.sh -->$/ {found=1; next}
  found && /^```/ {if (inside) exit; inside=1; next}
  inside {print}' "${guide}")"
[[ -n "${command}" ]] ||
  fail "${guide} has no block after <!-- recipe: examples/kernel_plugin/plugin_without_bazel_test.sh -->"
[[ "${command}" == *"/path/to/sluice/include"* ]] ||
  fail "the guide's command does not name /path/to/sluice/include: ${command}"
[[ "${command}" == *"-DNDEBUG"* ]] ||
  fail "the guide's command does not define NDEBUG, as Sluice's default build does: ${command}"

# The runfiles tree holds the plugin API's headers under include/.
command="${command//\/path\/to\/sluice/$(pwd)}"
case "${build}" in
  opt) ;;
  assertions) command="${command//-DNDEBUG/}" ;;
  asan) command="${command//-DNDEBUG/-fsanitize=address,undefined}" ;;
  tsan) command="${command//-DNDEBUG/-fsanitize=thread}" ;;
  *) fail "unknown build '${build}'" ;;
esac

work="$(mktemp -d "${TEST_TMPDIR:-/tmp}/plugin_without_bazel.XXXXXX")"
cp "$@" "${work}/"
echo "running in ${work}: ${command}"
(cd "${work}" && bash -euo pipefail -c "${command}") ||
  fail "the guide's command did not build the plugin"
[[ -f "${work}/my_kernels_plugin.so" ]] ||
  fail "the guide's command made no my_kernels_plugin.so"

actual="$("${sluice_run}" --kernel_plugin="${work}/my_kernels_plugin.so" \
  --args=fib:20 "${program}" 2>&1)" ||
  fail "sluice_run with the plugin failed:"$'\n'"${actual}"
expected="--- Running 'fib':
'fib' returned 6765
--- Running 'clamped':
'clamped' returned 10"
if [[ "${actual}" != "${expected}" ]]; then
  echo "FAIL: sluice_run with the plugin printed"
  diff <(echo "${expected}") <(echo "${actual}") || true
  exit 1
fi

# The plugin's kernels report errors as values, through the tool's runtime.
if actual="$("${sluice_run}" --kernel_plugin="${work}/my_kernels_plugin.so" \
  --args=fib:93 -functions=fib "${program}" 2>/dev/null)"; then
  fail "fib of 93 did not fail"
fi
[[ "${actual}" == *"'fib' returned <<error: fib of 93: n must be in [0, 92]>>"* ]] ||
  fail "fib of 93 printed: ${actual}"
echo "PASS: the guide's g++ command builds a plugin that sluice_run runs"
