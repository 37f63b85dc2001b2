#!/usr/bin/env bash
# A rank that finished (exited with 0) is never started again: when the last
# rank hangs or dies after the others finished, a restart of the job
# (--restart=job, on one host and on two nodes) or of the rank
# (--restart=rank) starts only that rank, and the job ends with 0 once it
# finishes.
source "$(dirname "$0")/launch_test_lib.sh"

# With --fail_rank=R, rank R hangs in epoch 2 of 3 on its first start,
# begun in a step it never ends; every other rank finishes epoch 2
# meanwhile and exits with 0.
hang=("$rank" --epochs=3 --steps_per_epoch=5 --step_ms=40
  --pid_dir="$scratch" --fail_at_epoch=2 --fail_hangs)

# Whatever a failed check leaves running, and the scratch directory, go
# with the test.
launcher= node0= node1=
clean_up() {
  local pid
  for pid in $launcher $node0 $node1; do
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$scratch"
}
trap clean_up EXIT

# wait_finished OUT RANK: RANK said done in OUT and its process exited:
# what the launcher must know of before the last rank fails.
wait_finished() {
  wait_for "$1" "^\[$2\] done$" 30
  wait_exited "$(cat "$scratch/rank$2.0.pid")" 30
}

# expect_starts RANK COUNT: launch_rank started as RANK exactly COUNT times.
expect_starts() {
  local starts
  starts="$(starts_of "$1")"
  [[ $starts -eq $2 ]] || { show "$scratch"/out* "$scratch"/err*; fail "rank $1 started $starts time(s), not $2"; }
}

# expect_finished_once OUT RANK: RANK trained its last epoch and said done
# exactly once in OUT.
expect_finished_once() {
  [[ $(grep -c "^\[$2\] epoch 3/3$" "$1") -eq 1 ]] || { show "$1"; fail "rank $2 did not train its last epoch once"; }
  [[ $(grep -c "^\[$2\] done$" "$1") -eq 1 ]] || { show "$1"; fail "rank $2 did not finish once"; }
}

# The report: ranks 0 and 1 finish, rank 2 hangs; the monitor finds it
# stuck, and the restart of the job starts rank 2 alone from epoch 2.
run_launch --nproc=3 --stuck_timeout_s=4 --grace_period_s=1 \
  --restart_backoff_ms=100 -- "${hang[@]}" --fail_rank=2
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect_starts 0 1
expect_starts 1 1
expect_starts 2 2
expect "$scratch/out" '^\[2\] hanging at epoch 2$'
expect "$scratch/err" '^sluice_launch: stopping all ranks: monitor: stuck: rank 2 stuck in step [0-9]+ '
expect "$scratch/err" '^sluice_launch: restart 1 of 3 in 100ms from epoch 2$'
expect "$scratch/err" '^sluice_launch: not restarting rank 0, rank 1: finished \(exited with 0\)$'
expect "$scratch/out" '^\[2\] rank 2 restart 1 resumes at epoch 2$'
expect "$scratch/err" '^sluice_launch: the job finished$'
for r in 0 1 2; do expect_finished_once "$scratch/out" "$r"; done

# The same with a rank killed by a signal once the others are done, so
# that the order is certain: a job restart still starts rank 2 alone.
rm -f "$scratch"/*.pid "$scratch/out" "$scratch/err"
"$launch" --monitor_binary="$monitor" --nproc=3 \
  --stuck_timeout_s=60 --grace_period_s=1 --restart_backoff_ms=100 -- \
  "${hang[@]}" --fail_rank=2 >"$scratch/out" 2>"$scratch/err" &
launcher=$!
for r in 0 1; do wait_finished "$scratch/out" "$r"; done
wait_for "$scratch/out" '^\[2\] hanging at epoch 2$' 30
kill -9 "$(cat "$scratch/rank2.0.pid")"
timeout 60 tail --pid="$launcher" -f /dev/null || true
status=0
wait "$launcher" || status=$?
launcher=
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
# The launcher reaps the exit or the monitor finds the stream dropped,
# whichever comes first.
expect "$scratch/err" '^sluice_launch: stopping all ranks: (rank 2 was killed by signal 9 \(Killed\)|monitor: dead: rank 2 dead: .*)$'
expect "$scratch/err" '^sluice_launch: not restarting rank 0, rank 1: finished \(exited with 0\)$'
expect_starts 0 1
expect_starts 1 1
expect_starts 2 2
for r in 0 1 2; do expect_finished_once "$scratch/out" "$r"; done

# --restart=rank: the stuck rank is stopped and restarted alone; the
# finished ranks stay ended.
rm -f "$scratch"/*.pid
run_launch --nproc=3 --restart=rank --stuck_timeout_s=4 --grace_period_s=1 \
  --restart_backoff_ms=100 -- "${hang[@]}" --fail_rank=2
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect "$scratch/err" '^sluice_launch: restarting rank 2 alone \(restart 1 of 3 in 100ms\), the others keep running: monitor: stuck: rank 2 stuck'
expect "$scratch/err" '^sluice_launch: the job finished$'
expect_starts 0 1
expect_starts 1 1
expect_starts 2 2
for r in 0 1 2; do expect_finished_once "$scratch/out" "$r"; done

# Two nodes: ranks 0 and 1 (node 0) and 2 (node 1) finish, rank 3 (node 1)
# hangs and is killed. Node 0 restarts the job: it starts none of its
# ranks, node 1 starts rank 3 alone, and both launchers exit with 0.
rm -f "$scratch"/*.pid
start_nodes --stuck_timeout_s=60 -- "${hang[@]}" --fail_rank=3
for r in 0 1; do wait_finished "$scratch/out0" "$r"; done
wait_finished "$scratch/out1" 2
wait_for "$scratch/out1" '^\[3\] hanging at epoch 2$' 30
kill -9 "$(cat "$scratch/rank3.0.pid")"
finish
node0= node1=
[[ $status0 -eq 0 && $status1 -eq 0 ]] || { show "$scratch"/{out,err}{0,1}; fail "exit $status0 and $status1"; }
expect "$scratch/err0" '^sluice_launch: stopping all ranks: .*rank 3 was killed by signal 9 \(Killed\)$'
expect "$scratch/err0" '^sluice_launch: not restarting rank 0, rank 1: finished \(exited with 0\)$'
expect "$scratch/err1" '^sluice_launch: not restarting rank 2: finished \(exited with 0\)$'
expect "$scratch/out1" '^\[3\] rank 3 restart 1 resumes at epoch 2$'
expect "$scratch/err0" '^sluice_launch: the job finished$'
expect "$scratch/err1" '^sluice_launch: the job finished$'
for r in 0 1 2; do expect_starts "$r" 1; done
expect_starts 3 2
for r in 0 1; do expect_finished_once "$scratch/out0" "$r"; done
for r in 2 3; do expect_finished_once "$scratch/out1" "$r"; done
for pid_file in "$scratch"/*.pid; do
  ! alive "$(cat "$pid_file")" || fail "rank $(basename "$pid_file") still runs"
done
echo PASS
