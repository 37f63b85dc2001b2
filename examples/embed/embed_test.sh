#!/usr/bin/env bash
# Runs embed and checks its exact stdout, its one diagnostic on stderr and
# its exit status. Runs it several times: two worker threads serve the
# calls, and the output must not depend on which one runs what.
set -euo pipefail

binary="$1"
program="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"

expected="triple_plus(14, 100)
  result 0: 42
  result 1: 142
  result 2: 200
triple_plus(1000000000, 1)
  result 0: OUT_OF_RANGE: 1000000000 * 3 overflows i32
    from embed.scale.i32 at examples/embed/triple_plus.mlir:5:14
  result 1: OUT_OF_RANGE: 1000000000 * 3 overflows i32
    from embed.scale.i32 at examples/embed/triple_plus.mlir:5:14
  result 2: 2
triple_plus(7, 5), cancelled before 7 arrived
  result 0: CANCELLED: the client went away
  result 1: CANCELLED: the client went away
  result 2: 10"

# Only the failing kernel reports: the add that receives its error does not
# run, and a cancellation is no kernel's failure.
expected_stderr="embed: examples/embed/triple_plus.mlir:5:14: error: runtime error: 1000000000 * 3 overflows i32"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

for run in 1 2 3 4 5 6 7 8 9 10; do
  status=0
  "$binary" "$program" >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
  [ "$status" -eq 0 ] || fail "run $run exited with $status; stderr: $(cat "$tmp/stderr")"
  if ! diff -u <(printf '%s\n' "$expected") "$tmp/stdout"; then
    fail "run $run: stdout differs from the expected lines (diff above)"
  fi
  if [ "$(cat "$tmp/stderr")" != "$expected_stderr" ]; then
    fail "run $run: unexpected stderr: $(cat "$tmp/stderr")"
  fi
done

echo "PASS"
