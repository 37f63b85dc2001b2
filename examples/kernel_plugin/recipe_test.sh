#!/usr/bin/env bash
# The BUILD rules docs/kernels.md gives for building out of tree are this
# folder's, with @sluice// for //: so the recipe the guide gives is the one
# //test/lit:tools_test builds and runs.
#
# usage: recipe_test.sh DOCS_KERNELS_MD BUILD_FILE
set -euo pipefail

guide="$1"
build="$2"

# The block after the guide's "<!-- recipe: ...#build -->" line.
quoted="$(awk '/^<!-- recipe: examples\/kernel_plugin\/BUILD.bazel#build -->$/ {found=1; next}
  found && /^```/ {if (inside) exit; inside=1; next}
  inside {print}' "${guide}")"
# The lines between "# [START build]" and "# [END build]".
region="$(awk '/^# \[END build\]$/ {exit} inside {print} /^# \[START build\]$/ {inside=1}' "${build}" |
  sed 's|"//|"@sluice//|g')"

if [[ -z "${quoted}" ]]; then
  echo "FAIL: ${guide} has no block after <!-- recipe: examples/kernel_plugin/BUILD.bazel#build -->"
  exit 1
fi
if [[ "${quoted}" != "${region}" ]]; then
  echo "FAIL: the BUILD rules of ${guide} differ from ${build} (with @sluice// for //):"
  diff <(echo "${region}") <(echo "${quoted}") || true
  exit 1
fi
echo "PASS: the guide's BUILD rules are ${build}'s"
