# Shared by the launch_*_test.sh tests: the binaries (from the test's
# arguments), a scratch directory, and bounded waits.
set -euo pipefail

launch="$1"
monitor="$2"
rank="$3"
scratch="$(mktemp -d "${TEST_TMPDIR:-/tmp}/launch.XXXXXX")"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Shows a run's output (for the log of a failed test).
show() {
  for file in "$@"; do
    echo "--- $file" >&2
    cat "$file" >&2 || true
  done
}

# wait_for FILE PATTERN SECONDS: until a line of FILE matches PATTERN
# (grep -E); fails after SECONDS.
wait_for() {
  local deadline=$((SECONDS + $3))
  until grep -qE -- "$2" "$1" 2>/dev/null; do
    ((SECONDS < deadline)) || { show "$1"; fail "no line matching '$2' in $1 within $3 s"; }
    sleep 0.05
  done
}

# expect FILE PATTERN: a line of FILE matches PATTERN (grep -E).
expect() {
  grep -qE -- "$2" "$1" || { show "$1"; fail "no line matching '$2' in $1"; }
}

# alive PID: whether the process exists and is not a zombie.
alive() {
  [[ -e /proc/$1 ]] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}

# sluice_launch with the test's monitor, bounded; stdout and stderr to
# $scratch/out and $scratch/err, its exit code in $status.
run_launch() {
  status=0
  timeout 60 "$launch" --monitor_binary="$monitor" "$@" \
    >"$scratch/out" 2>"$scratch/err" || status=$?
}
