#!/usr/bin/env bash
# Runs hello_dataflow and checks its exact stdout, its diagnostic on stderr,
# its exit status and --help. Runs it several times: two worker threads race
# to produce the values, and the output must not depend on who wins.
set -euo pipefail

binary="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"

expected="square(1) = 1
square(2) = 4
square(3) = 9
square(4) = 16
square(5) = 25
square(6) = 36
square(7) = 49
square(8) = 64
sum of squares = 204
204 / 4 = 51
204 / 0 = error: Divide by zero
square(204 / 0) = error: Divide by zero"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

for run in 1 2 3 4 5 6 7 8 9 10; do
  status=0
  "$binary" >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
  [ "$status" -eq 0 ] || fail "run $run exited with $status; stderr: $(cat "$tmp/stderr")"
  if ! diff -u <(printf '%s\n' "$expected") "$tmp/stdout"; then
    fail "run $run: stdout differs from the expected lines (diff above)"
  fi
  # Only the division by zero reports a diagnostic: the kernel that would
  # square its error never runs.
  if [ "$(cat "$tmp/stderr")" != "hello_dataflow: error: runtime error: Divide by zero" ]; then
    fail "run $run: unexpected stderr: $(cat "$tmp/stderr")"
  fi
done

"$binary" --help >"$tmp/help" || fail "--help exited with $?"
grep -q "^usage: hello_dataflow" "$tmp/help" || fail "--help prints no usage line"
grep -q "Divide\|division by zero" "$tmp/help" || fail "--help does not describe the program"

status=0
"$binary" --bogus >/dev/null 2>"$tmp/stderr" || status=$?
[ "$status" -eq 2 ] || fail "an unknown argument exited with $status, not 2"
grep -q "unknown argument '--bogus'" "$tmp/stderr" || fail "no message for an unknown argument"

echo "PASS"
