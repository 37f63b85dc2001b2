#!/usr/bin/env bash
# sluice_launch --restart=rank: a failed rank restarts alone, with its own
# restart count (SLUICE_RESTART) and backoff, while the other ranks keep
# running; each rank has its own --max_restarts. --finish=first ends the
# job when one rank finished.
source "$(dirname "$0")/launch_test_lib.sh"

job=(--epochs=6 --steps_per_epoch=5 --step_ms=40 --pid_dir="$scratch")

# Rank 1 fails twice in epoch 2: it restarts alone, the backoff doubling;
# rank 0 runs once from start to end.
run_launch --nproc=2 --restart=rank --restart_backoff_ms=100 -- \
  "$rank" "${job[@]}" --fail_rank=1 --fail_at_epoch=2 --fail_code=1 --fail_restarts=2
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect "$scratch/err" '^sluice_launch: restarting rank 1 alone \(restart 1 of 3 in 100ms\), the others keep running: rank 1 exited with code 1$'
expect "$scratch/err" '^sluice_launch: restarting rank 1 alone \(restart 2 of 3 in 200ms\), the others keep running: rank 1 exited with code 1$'
grep -q 'stopping all ranks' "$scratch/err" && { show "$scratch/err"; fail "the job was stopped"; }
expect "$scratch/out" '^\[1\] rank 1 restart 2 resumes at epoch [0-9]+$'
[[ $(grep -c '^\[0\] rank 0 restart' "$scratch/out") -eq 1 ]] || fail "rank 0 started more than once"
[[ $(grep -c '^\[0\] epoch 6/6$' "$scratch/out") -eq 1 ]] || fail "rank 0 did not finish once"
[[ $(grep -c '^\[1\] done$' "$scratch/out") -eq 1 ]] || fail "rank 1 did not finish once"
[[ -e "$scratch/rank1.2.pid" && ! -e "$scratch/rank0.1.pid" ]] || fail "wrong restarts: $(ls "$scratch")"
expect "$scratch/err" '^sluice_launch: the job finished$'

# kill -9 of each rank once: with --max_restarts=1 each rank has a restart
# of its own, so the job finishes.
rm -f "$scratch"/*.pid
status=0
timeout 60 "$launch" --monitor_binary="$monitor" --nproc=2 --restart=rank \
  --max_restarts=1 --restart_backoff_ms=50 -- \
  "$rank" --epochs=4 --steps_per_epoch=5 --step_ms=100 --pid_dir="$scratch" \
  >"$scratch/out" 2>"$scratch/err" &
launcher=$!
deadline=$((SECONDS + 20))
until [[ -e "$scratch/rank0.0.pid" && -e "$scratch/rank1.0.pid" ]]; do
  ((SECONDS < deadline)) || fail "the ranks did not start"
  sleep 0.05
done
kill -9 "$(cat "$scratch/rank0.0.pid")"
wait_for "$scratch/err" 'restarting rank 0 alone' 10
kill -9 "$(cat "$scratch/rank1.0.pid")"
wait "$launcher" || status=$?
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect "$scratch/err" '^sluice_launch: restarting rank 0 alone \(restart 1 of 1 in 50ms\), the others keep running: rank 0 was killed by signal 9 \(Killed\)$'
expect "$scratch/err" '^sluice_launch: restarting rank 1 alone \(restart 1 of 1 in 50ms\), the others keep running: rank 1 was killed by signal 9 \(Killed\)$'
for r in 0 1; do
  expect "$scratch/out" "^\[$r\] rank $r restart 1 resumes at epoch [0-9]+$"
  expect "$scratch/out" "^\[$r\] done$"
done

# A rank failing on every start: after its 2 restarts the launcher stops
# every rank and exits with the rank's code; rank 0 started once.
rm -f "$scratch"/*.pid
run_launch --nproc=2 --restart=rank --max_restarts=2 --restart_backoff_ms=50 -- \
  "$rank" "${job[@]}" --fail_rank=1 --fail_at_epoch=0 --fail_code=3 --fail_restarts=99
[[ $status -eq 3 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status, not 3"; }
expect "$scratch/err" '^sluice_launch: stopping all ranks: rank 1 exited with code 3 and has no restart left \(--max_restarts=2 per rank\)$'
expect "$scratch/err" '^sluice_launch: giving up; exiting with 3$'
[[ $(grep -c '^\[1\] failing at epoch 0' "$scratch/out") -eq 3 ]] || fail "expected 3 starts of rank 1"
[[ $(grep -c '^\[0\] rank 0 restart' "$scratch/out") -eq 1 ]] || fail "rank 0 started more than once"
for pid_file in "$scratch"/*.pid; do
  ! alive "$(cat "$pid_file")" || fail "rank $(basename "$pid_file") still runs"
done

# A rank stopped with SIGSTOP: the monitor finds it stuck, the launcher
# stops it (SIGTERM, then SIGKILL) and restarts it alone.
rm -f "$scratch"/*.pid "$scratch/out" "$scratch/err"
"$launch" --monitor_binary="$monitor" --nproc=2 --restart=rank \
  --stuck_timeout_s=2 --grace_period_s=1 --restart_backoff_ms=100 -- \
  "$rank" --epochs=15 --steps_per_epoch=5 --step_ms=40 --pid_dir="$scratch" \
  >"$scratch/out" 2>"$scratch/err" &
launcher=$!
wait_for "$scratch/out" '^\[1\] epoch 2/15$' 20
kill -STOP "$(cat "$scratch/rank1.0.pid")"
status=0
timeout 60 tail --pid="$launcher" -f /dev/null || true
wait "$launcher" || status=$?
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect "$scratch/err" '^sluice_launch: stopping rank 1: monitor: stuck: rank 1 stuck in step [0-9]+ for [0-9.]+ ?s \(limit 2 ?s\)'
expect "$scratch/err" '^sluice_launch: restarting rank 1 alone \(restart 1 of 3 in 100ms\), the others keep running: monitor: stuck: rank 1 stuck'
! alive "$(cat "$scratch/rank1.0.pid")" || fail "the stopped rank 1 still runs"
[[ $(grep -c '^\[0\] rank 0 restart' "$scratch/out") -eq 1 ]] || fail "rank 0 started more than once"
expect "$scratch/out" '^\[1\] rank 1 restart 1 resumes at epoch [0-9]+$'
expect "$scratch/out" '^\[1\] done$'

# --finish=first: rank 0 finishes after 0.2 s; rank 1, which would sleep
# for 60 s, gets the 1 s grace period, then is stopped, and the job is done.
started=$SECONDS
run_launch --nproc=2 --restart=rank --finish=first --grace_period_s=1 -- \
  sh -c 'if [ "$SLUICE_RANK" = 0 ]; then sleep 0.2; exit 0; fi
         echo $$ > "$0/late.pid"; exec sleep 60' "$scratch"
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect "$scratch/err" '^sluice_launch: rank 0 finished: the job is done \(--finish=first\)$'
expect "$scratch/err" '^sluice_launch: the job finished$'
((SECONDS - started < 15)) || fail "the late rank was not stopped"
! alive "$(cat "$scratch/late.pid")" || fail "the late rank still runs"

# A scope that is neither job nor rank is a flag error.
run_launch --nproc=2 --restart=node -- "$rank"
[[ $status -eq 2 ]] || fail "--restart=node exited with $status, not 2"
expect "$scratch/err" "^sluice_launch: --restart=node is neither 'job' nor 'rank'$"
run_launch --nproc=2 --finish=last -- "$rank"
[[ $status -eq 2 ]] || fail "--finish=last exited with $status, not 2"
expect "$scratch/err" "^sluice_launch: --finish=last is neither 'all' nor 'first'$"
echo PASS
