# Shared by the example jobs' tests under sluice_launch (sourced): a failure
# that stops the launcher and shows its output, bounded waits, and a clock.
# The sourcing test sets $scratch (where the launcher's out and err go) and
# $launcher_pid (empty until the launcher runs).

fail() {
  echo "FAIL: $*" >&2
  [[ -z $launcher_pid ]] || kill "$launcher_pid" 2>/dev/null || true
  for file in "$scratch/out" "$scratch/err"; do
    echo "--- $file" >&2
    tail -n 80 "$file" >&2 || true
  done
  exit 1
}

# wait_for FILE PATTERN SECONDS: until a line of FILE matches PATTERN
# (grep -E); fails after SECONDS.
wait_for() {
  local deadline=$((SECONDS + $3))
  until grep -qE -- "$2" "$1" 2>/dev/null; do
    ((SECONDS < deadline)) || fail "no line matching '$2' in $1 within $3 s"
    sleep 0.02
  done
}

# Seconds since the epoch, to the nanosecond.
now() { date +%s.%N; }
