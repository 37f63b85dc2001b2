#!/usr/bin/env bash
# sluice_launch with the step monitor: a rank stopped with SIGSTOP is found
# stuck within its limit + 1 s and the job restarts and finishes; a monitor
# killed mid-job is started again while the ranks keep training.
source "$(dirname "$0")/launch_test_lib.sh"

now() { date +%s.%N; }

# A stopped rank. The limit is 2 s; the job restarts from the epochs the
# ranks had finished.
"$launch" --monitor_binary="$monitor" --nproc=2 --stuck_timeout_s=2 \
  --grace_period_s=1 --restart_backoff_ms=100 -- \
  "$rank" --epochs=15 --steps_per_epoch=5 --step_ms=40 --pid_dir="$scratch" \
  >"$scratch/out" 2>"$scratch/err" &
launcher_pid=$!
wait_for "$scratch/out" '^\[1\] epoch 2/15$' 20
# Its reporter sends the end of epoch 1 within 50 ms.
sleep 0.3
kill -STOP "$(cat "$scratch/rank1.0.pid")"
stopped_at=$(now)
wait_for "$scratch/err" '^sluice_launch: stopping all ranks: monitor: stuck: rank 1 stuck in step [0-9]+ for [0-9.]+ ?s \(limit 2 ?s\)' 10
seen_at=$(now)
python3 -c "import sys; d = $seen_at - $stopped_at; print('stuck rank found after %.2f s' % d); sys.exit(0 if d <= 3.0 else 1)" ||
  fail "the stuck rank was found later than its limit + 1 s"
status=0
timeout 60 tail --pid="$launcher_pid" -f /dev/null || true
wait "$launcher_pid" || status=$?
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
epoch=$(sed -nE 's/^sluice_launch: restart 1 of 3 in 100ms from epoch ([0-9]+)$/\1/p' "$scratch/err")
[[ -n $epoch && $epoch -ge 2 ]] || { show "$scratch/err"; fail "no restart from epoch 2 or later"; }
for r in 0 1; do
  expect "$scratch/out" "^\[$r\] rank $r restart 1 resumes at epoch $epoch$"
  expect "$scratch/out" "^\[$r\] done$"
done

# A killed monitor: started again on the same address, and the job
# finishes without a restart.
# (The old output goes first: the waits below must not read it.)
rm -f "$scratch"/*.pid "$scratch/out" "$scratch/err"
"$launch" --monitor_binary="$monitor" --nproc=2 -- \
  "$rank" --epochs=15 --steps_per_epoch=5 --step_ms=40 --pid_dir="$scratch" \
  >"$scratch/out" 2>"$scratch/err" &
launcher_pid=$!
wait_for "$scratch/out" '^\[0\] epoch 2/15$' 20
address=$(sed -nE 's/^sluice_launch: monitor listening on (.*)$/\1/p' "$scratch/err")
kill -9 "$(pgrep -P "$launcher_pid" -f sluice_monitor)"
status=0
timeout 60 tail --pid="$launcher_pid" -f /dev/null || true
wait "$launcher_pid" || status=$?
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect "$scratch/err" "^sluice_launch: the monitor ended \(killed by signal 9 \(Killed\)\); started it again at $address, ranks keep running$"
! grep -q 'restart 1 of' "$scratch/err" || { show "$scratch/err"; fail "the ranks were restarted"; }
for r in 0 1; do expect "$scratch/out" "^\[$r\] done$"; done
echo PASS
