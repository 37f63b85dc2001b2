#!/usr/bin/env bash
# The example job under sluice_launch, scaled down (4 epochs of 250 steps),
# with the step monitor's stuck and progress limits at 3 s: the coordinator
# (ps_train, rank 6) stopped with SIGSTOP after its first epoch (in a step,
# or in the checkpoint save that follows the epoch, a phase between steps)
# is found stuck within the limit + 1 s, every rank is restarted, ps_train
# resumes from the checkpoint of that epoch and the job finishes well above
# chance (1/8).
set -euo pipefail

launch="$1"
monitor="$2"
launch_rank="$3"
export PS_TRAIN="$PWD/$4"
export SLUICE_WORKER="$PWD/$5"
export PS_MODEL="$PWD/$6"
scratch="$(mktemp -d "${TEST_TMPDIR:-/tmp}/ps_stuck.XXXXXX")"

launcher_pid=

source "$PWD/examples/launch_job_test_helpers.sh"

"$launch" --monitor_binary="$monitor" \
  --jobs=ps:2,worker:4,chief:1 --chief=chief --stuck_timeout_s=3 \
  --progress_timeout_s=3 \
  --step_kind=first:30 --grace_period_s=1 --restart_backoff_ms=100 -- \
  "$launch_rank" --checkpoint_dir="$scratch/ckpt" --epochs=4 \
  --steps_per_epoch=250 --signal_every_steps=25 \
  >"$scratch/out" 2>"$scratch/err" &
launcher_pid=$!
wait_for "$scratch/out" '^\[6\] epoch 1/4: ' 40
chief=$(pgrep -P "$launcher_pid" -x ps_train) || fail "no ps_train process"
kill -STOP "$chief"
stopped_at=$(now)
wait_for "$scratch/err" '^sluice_launch: stopping all ranks: monitor: stuck: rank 6 stuck (in step [0-9]+|in phase .checkpoint save.|between steps: no step begun) for [0-9.]+ ?s \((progress )?limit 3 ?s\)' 10
seen_at=$(now)
python3 -c "import sys; d = $seen_at - $stopped_at; print('stuck coordinator found after %.2f s' % d); sys.exit(0 if d <= 4.0 else 1)" ||
  fail "the stuck coordinator was found later than its limit + 1 s"

timeout 60 tail --pid="$launcher_pid" -f /dev/null || fail "the job did not finish within 60 s"
status=0
wait "$launcher_pid" || status=$?
[[ $status -eq 0 ]] || fail "sluice_launch exited with $status"
grep -qE '^sluice_launch: restart 1 of 3 in 100ms from epoch 0$' "$scratch/err" ||
  fail "no restart"
# The first epoch's checkpoint is step 250; a window checkpoint is never
# written (--checkpoint_every_steps is 0), so it resumes from 250 or later
# epochs' ends.
resumed=$(sed -nE 's/^\[6\] resuming from the checkpoint of step ([0-9]+) in .*/\1/p' "$scratch/out")
[[ -n $resumed ]] || fail "ps_train did not resume from a checkpoint"
((resumed >= 250 && resumed % 250 == 0)) || fail "resumed from step $resumed"
grep -qE '^\[6\] epoch 4/4: ' "$scratch/out" || fail "no line for epoch 4"
accuracy=$(sed -nE 's/^\[6\] held-out accuracy ([0-9.]+)$/\1/p' "$scratch/out")
[[ -n $accuracy ]] || fail "no held-out accuracy"
python3 -c "import sys; sys.exit(0 if $accuracy > 0.85 else 1)" ||
  fail "held-out accuracy $accuracy is not above 0.85"
grep -E "^sluice_launch: (stopping|restart)" "$scratch/err"
grep -E '^\[6\] (resuming|epoch|held-out)' "$scratch/out"
echo PASS
