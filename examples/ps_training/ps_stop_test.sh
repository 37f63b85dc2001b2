#!/bin/bash
# A parameter server stopped with SIGSTOP: the coordinator names it, and
# counts the steps that waited on it as its own, not as worker failures.
#  1. Stopped 12 s under a liveness timeout of 30 s: the workers' steps
#     miss the 2 s closure deadline while it is stopped, and training goes
#     on once it continues. The summary names ps 0 and counts the missed
#     deadlines as its own, not the workers'.
#  2. Stopped under a liveness timeout of 1 s: its connections are given
#     up, ps_train exits with 75 and the error names ps 0.
set -euo pipefail
run_py=$1 ps_train=$2 sluice_worker=$3 model=$4
fail() { echo "FAIL: $*" >&2; exit 1; }

run() {
  local name=$1
  shift
  status=0
  timeout 300 python3 "$run_py" --workdir="$TEST_TMPDIR/$name" --fresh \
    --ps_train="$ps_train" --sluice_worker="$sluice_worker" \
    --model="$model" "$@" >"$TEST_TMPDIR/$name.out" 2>&1 || status=$?
  cat "$TEST_TMPDIR/$name.out"
}

# The stop comes once training runs: 3 s after the start, or 8 s in a
# sanitizer's build, whose start can take longer than 3 s (the coordinator,
# then still setting up on ps 0, has no step in flight to miss a deadline).
stop_at=3
[[ -n "${SLUICE_SANITIZER_BUILD:-}" ]] && stop_at=8
run stalled --epochs=50 --steps_per_epoch=100 --stop_ps_at=$stop_at \
  --stop_ps_for=12 --liveness_timeout_ms=30000 --closure_deadline_s=2
[[ $status -eq 0 ]] || fail "the stalled run exited with $status"
summary=$(grep '^closures ' "$TEST_TMPDIR/stalled.out") ||
  fail "the stalled run printed no summary"
[[ $summary =~ "parameter server /job:ps/task:0 did not answer for "([0-9.]+)" s" ]] ||
  fail "the summary does not name ps 0: $summary"
stalled_s=${BASH_REMATCH[1]}
awk -v s="$stalled_s" 'BEGIN { exit !(s >= 9 && s <= 15) }' ||
  fail "ps 0 went unanswered for $stalled_s s, not about 12: $summary"
# The steps that waited on ps 0 count as its own. A step whose deadline
# fell at the very edge of the stall, before the watch saw ps 0 silent for
# 2 s or after it answered again, may still count as a worker's: at most
# two, on a machine slowed by a sanitizer.
[[ $summary =~ "worker failures "([0-9]+)";" ]] ||
  fail "the summary counts no worker failures: $summary"
unattributed=${BASH_REMATCH[1]}
[[ $summary =~ "("([0-9]+)" worker failures were steps waiting on it)" ]] ||
  fail "the summary counts no steps that waited on ps 0: $summary"
attributed=${BASH_REMATCH[1]}
((unattributed <= 2 && attributed > unattributed)) ||
  fail "the summary counts ps 0's stall as worker failures: $summary"

run failed --epochs=50 --steps_per_epoch=100 --stop_ps_at=3 \
  --stop_ps_for=20 --liveness_timeout_ms=1000
[[ $status -eq 75 ]] || fail "the failed run exited with $status, not 75"
grep -q '^ps_train: .*parameter server /job:ps/task:0' \
  "$TEST_TMPDIR/failed.out" || fail "the error does not name ps 0"
echo PASS
