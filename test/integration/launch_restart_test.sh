#!/usr/bin/env bash
# sluice_launch's restarts: a failed rank restarts every rank from the
# minimum finished epoch, a restartable exit (75) does too and says so, and
# an exhausted restart limit ends the launcher with the rank's code.
source "$(dirname "$0")/launch_test_lib.sh"

job=(--epochs=6 --steps_per_epoch=5 --step_ms=40 --pid_dir="$scratch")

# Rank 1 exits with 1 in epoch 2 (both ranks have finished epochs 0 and 1):
# all restart from epoch 2 and finish.
run_launch --nproc=2 --restart_backoff_ms=100 --grace_period_s=2 -- \
  "$rank" "${job[@]}" --fail_rank=1 --fail_at_epoch=2 --fail_code=1
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect "$scratch/out" '^\[1\] failing at epoch 2 with code 1$'
expect "$scratch/err" '^sluice_launch: stopping all ranks: rank 1 exited with code 1$'
expect "$scratch/err" '^sluice_launch: restart 1 of 3 in 100ms from epoch 2$'
for r in 0 1; do
  expect "$scratch/out" "^\[$r\] rank $r restart 0 resumes at epoch 0$"
  expect "$scratch/out" "^\[$r\] rank $r restart 1 resumes at epoch 2$"
  expect "$scratch/out" "^\[$r\] done$"
  # Epochs 0 and 1 were not trained again.
  [[ $(grep -c "^\[$r\] epoch 2/6$" "$scratch/out") -eq 1 ]] || fail "rank $r trained epoch 1 twice"
  [[ $(grep -c "^\[$r\] epoch 6/6$" "$scratch/out") -eq 1 ]] || fail "rank $r finished twice"
done
[[ ! -e "$scratch/rank0.2.pid" ]] || fail "a second restart"

# Exit 75 asks for a restart; the exponential backoff doubles.
rm -f "$scratch"/*.pid
run_launch --nproc=2 --restart_backoff_ms=100 -- \
  "$rank" "${job[@]}" --fail_rank=0 --fail_at_epoch=1 --fail_code=75 --fail_restarts=2
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect "$scratch/err" '^sluice_launch: stopping all ranks: rank 0 exited with code 75 \(restartable: it asks for a restart\)$'
expect "$scratch/err" '^sluice_launch: restart 1 of 3 in 100ms from epoch 1$'
expect "$scratch/err" '^sluice_launch: restart 2 of 3 in 200ms from epoch 1$'
expect "$scratch/out" '^\[0\] rank 0 restart 2 resumes at epoch 1$'
expect "$scratch/out" '^\[0\] done$'

# The restart limit: rank 1 fails on every start; after 2 restarts the
# launcher gives up with the rank's code, leaving no rank behind.
rm -f "$scratch"/*.pid
run_launch --nproc=2 --max_restarts=2 --restart_backoff_ms=50 -- \
  "$rank" "${job[@]}" --fail_rank=1 --fail_at_epoch=0 --fail_code=3 --fail_restarts=99
[[ $status -eq 3 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status, not 3"; }
expect "$scratch/err" '^sluice_launch: giving up after 2 restart\(s\) \(--max_restarts=2\): rank 1 exited with code 3; exiting with 3$'
[[ $(grep -c '^\[1\] failing at epoch 0' "$scratch/out") -eq 3 ]] || fail "expected 3 starts"
for pid_file in "$scratch"/*.pid; do
  ! alive "$(cat "$pid_file")" || fail "rank $(basename "$pid_file") still runs"
done
echo PASS
