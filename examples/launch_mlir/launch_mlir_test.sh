#!/usr/bin/env bash
# Three ranks of train.mlir under sluice_launch: rank 1 killed with kill -9
# mid-run is found dead within 1 s, every rank restarts from the minimum
# epoch the ranks had finished, restores that epoch's checkpoint, and the
# job finishes with each rank's held-out accuracy far above chance (1/8).
set -euo pipefail

launch="$1"
monitor="$2"
run_rank="$3"
export SLUICE_RUN="$PWD/$4"
scratch="$(mktemp -d "${TEST_TMPDIR:-/tmp}/launch_mlir.XXXXXX")"
launcher_pid=

source "$PWD/examples/launch_job_test_helpers.sh"

# The rank's process: the launcher's child whose SLUICE_RANK it is.
rank_pid() {
  local pid
  for pid in $(pgrep -P "$launcher_pid"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "SLUICE_RANK=$1"; then
      echo "$pid"
      return
    fi
  done
  fail "no process of rank $1"
}

epochs=120
"$launch" --monitor_binary="$monitor" --nproc=3 --grace_period_s=1 \
  --restart_backoff_ms=100 -- \
  "$run_rank" --epochs=$epochs --steps=100 --checkpoint_dir="$scratch/ckpt" \
  >"$scratch/out" 2>"$scratch/err" &
launcher_pid=$!
# sluice_run prints the number of epochs done after each epoch's
# checkpoint and epoch end signal.
wait_for "$scratch/out" '^\[1\] int64 = 20$' 40
kill -9 "$(rank_pid 1)"
killed_at=$(now)
# Whichever sees it first: the launcher (the rank's exit) or the monitor
# (its report stream dropped).
wait_for "$scratch/err" '^sluice_launch: stopping all ranks: (rank 1 was killed by signal 9 \(Killed\)|monitor: dead: rank 1 dead: its connection to the monitor dropped in step [0-9]+)$' 5
seen_at=$(now)
# The bound is 1 s; a sanitizer's build on two busy cores gets 2.
bound=1.0
[[ -n "${SLUICE_SANITIZER_BUILD:-}" ]] && bound=2.0
python3 -c "import sys; d = $seen_at - $killed_at; print('killed rank found after %.3f s' % d); sys.exit(0 if d <= $bound else 1)" ||
  fail "the killed rank was found later than $bound s"

timeout 90 tail --pid="$launcher_pid" -f /dev/null || fail "the job did not finish within 90 s"
status=0
wait "$launcher_pid" || status=$?
[[ $status -eq 0 ]] || fail "sluice_launch exited with $status"
grep -E '^sluice_launch: (stopping|restart)' "$scratch/err"
epoch=$(sed -nE 's/^sluice_launch: restart 1 of 3 in 100ms from epoch ([0-9]+)$/\1/p' "$scratch/err")
[[ -n $epoch ]] || fail "no restart"
# The minimum over the ranks of the epochs they finished: at most what the
# killed rank had printed before it died (another rank may lag behind it,
# on a loaded machine by several epochs), and some progress. Each rank
# reports its epoch end after the epoch's checkpoint, so every rank has the
# resume epoch's.
killed_last=$(sed -n '/^\[1\] rank 1 resumes/q;s/^\[1\] int64 = \([0-9]*\)$/\1/p' "$scratch/out" | tail -1)
((epoch >= 1 && epoch <= killed_last)) ||
  fail "restarted from epoch $epoch, not in 1..$killed_last"

for r in 0 1 2; do
  grep -qx "\[$r\] rank $r resumes from the checkpoint of epoch $epoch" "$scratch/out" ||
    fail "rank $r did not resume from epoch $epoch"
  # @resume prints the epoch of the checkpoint it restored.
  grep "^\[$r\] " "$scratch/out" | grep -A1 -x "\[$r\] --- Running 'resume':" |
    grep -qx "\[$r\] int64 = $epoch" ||
    fail "rank $r did not restore the checkpoint of epoch $epoch"
  grep -qx "\[$r\] int64 = $epochs" "$scratch/out" || fail "rank $r did not finish"
  accuracy=$(sed -nE "s/^\[$r\] DenseHostTensor dtype = f32, shape = \[\], values = \[(.*)\]$/\1/p" "$scratch/out")
  [[ -n $accuracy ]] || fail "no held-out accuracy from rank $r"
  python3 -c "import sys; sys.exit(0 if $accuracy > 0.85 else 1)" ||
    fail "rank $r's held-out accuracy $accuracy is not above 0.85"
  echo "rank $r: held-out accuracy $accuracy"
done
echo PASS
