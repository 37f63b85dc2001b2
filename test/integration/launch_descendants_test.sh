#!/usr/bin/env bash
# sluice_launch ends every descendant of its ranks, also a process that left
# the rank's process group with setsid and one orphaned by a double fork:
# by the time the launcher exits, before a failed rank starts again, when a
# signal stops the job, and on node 1 of a two-node job. A daemon of a rank
# that still runs is left to that rank's end.
source "$(dirname "$0")/launch_test_lib.sh"

# Whatever a failed check leaves behind is killed on the way out.
cleanup() {
  local pid_file
  for pid_file in "$scratch"/grandchild*.pid; do
    if [[ -e $pid_file ]]; then kill -9 "$(cat "$pid_file")" 2>/dev/null || true; fi
  done
  if [[ -n ${node0:-} ]]; then kill -9 "$node0" 2>/dev/null || true; fi
  if [[ -n ${node1:-} ]]; then kill -9 "$node1" 2>/dev/null || true; fi
}
trap cleanup EXIT

# all_gone: no grandchild of any start of any rank runs (checked at once:
# the launcher has exited, so it must have reaped them).
all_gone() {
  local pid_file count=0
  for pid_file in "$scratch"/grandchild*.pid; do
    [[ -e $pid_file ]] || continue
    count=$((count + 1))
    ! alive "$(cat "$pid_file")" || { show "$scratch/err"; fail "$(basename "$pid_file" .pid) ($(cat "$pid_file")) outlived the launcher"; }
  done
  ((count > 0)) || fail "no grandchild was started"
}

fresh() { rm -f "$scratch"/*.pid "$scratch"/out* "$scratch"/err*; }

# wait_bounded PID: waits up to 60 s for a launcher started in the
# background; its exit code in $status.
wait_bounded() {
  local deadline=$((SECONDS + 60))
  while alive "$1"; do
    ((SECONDS < deadline)) || { kill -9 "$1"; show "$scratch"/err*; fail "launcher $1 still runs after 60 s"; }
    sleep 0.05
  done
  status=0
  wait "$1" || status=$?
}

# The issue's case: each rank starts a grandchild that calls setsid (and
# ignores SIGTERM), then finishes; the launcher exits 0 and none is left.
fresh
run_launch --nproc=3 --grace_period_s=1 -- "$rank" --epochs=2 \
  --steps_per_epoch=2 --step_ms=20 --pid_dir="$scratch" --grandchild=setsid \
  --grandchild_ignores_term
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
[[ $(ls "$scratch"/grandchild*.pid | wc -l) -eq 3 ]] || fail "expected 3 grandchildren: $(ls "$scratch")"
all_gone

# --restart=job: rank 1 fails in epoch 1, while rank 0 still runs (a rank
# that finished would not start again); every rank's grandchild (a
# double-forked daemon) is gone before the ranks start again.
fresh
run_launch --nproc=2 --grace_period_s=1 --restart_backoff_ms=50 -- "$rank" \
  --epochs=8 --steps_per_epoch=3 --step_ms=60 --pid_dir="$scratch" \
  --grandchild=daemon --check_grandchild --fail_rank=1 --fail_at_epoch=1
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
for r in 0 1; do
  expect "$scratch/out" "^\[$r\] rank $r restart 1 resumes at epoch 1$"
  expect "$scratch/out" "^\[$r\] ghost of start 0: gone$"
  expect "$scratch/out" "^\[$r\] grandchild running$"
done
all_gone

# --restart=rank: rank 1 fails once; its daemon, which ignores SIGTERM, is
# killed after the 1 s grace period and before rank 1 starts again, while
# rank 0's daemon, orphaned as well but started by a rank that runs, lives
# until rank 0 ends.
fresh
started=$SECONDS
run_launch --nproc=2 --restart=rank --grace_period_s=1 \
  --restart_backoff_ms=50 -- "$rank" --epochs=8 --steps_per_epoch=5 \
  --step_ms=60 --pid_dir="$scratch" --grandchild=daemon \
  --grandchild_ignores_term --check_grandchild --fail_rank=1 --fail_at_epoch=1
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect "$scratch/err" '^sluice_launch: restarting rank 1 alone'
expect "$scratch/out" '^\[1\] rank 1 restart 1 resumes at epoch [0-9]+$'
expect "$scratch/out" '^\[1\] ghost of start 0: gone$'
[[ $(grep -c '^\[0\] rank 0 restart' "$scratch/out") -eq 1 ]] || fail "rank 0 started more than once"
expect "$scratch/out" '^\[0\] grandchild running$'
expect "$scratch/out" '^\[1\] grandchild running$'
((SECONDS - started < 30)) || fail "the job took $((SECONDS - started)) s"
all_gone

# SIGTERM to the launcher while the ranks and their setsid grandchildren
# (which ignore SIGTERM) run: the grandchildren get SIGKILL after the grace
# period, and the launcher exits with 143 once they are gone.
fresh
"$launch" --monitor_binary="$monitor" --nproc=2 --grace_period_s=1 -- \
  "$rank" --epochs=100000 --steps_per_epoch=10 --step_ms=50 \
  --pid_dir="$scratch" --grandchild=setsid --grandchild_ignores_term \
  >"$scratch/out" 2>"$scratch/err" &
launcher_pid=$!
deadline=$((SECONDS + 20))
until [[ -e "$scratch/rank0.0.pid" && -e "$scratch/rank1.0.pid" ]]; do
  ((SECONDS < deadline)) || { show "$scratch/err"; fail "the ranks did not start"; }
  sleep 0.05
done
kill -TERM "$launcher_pid"
wait_bounded "$launcher_pid"
[[ $status -eq 143 ]] || { show "$scratch/err"; fail "exit $status, not 143"; }
expect "$scratch/err" '^sluice_launch: 2 process\(es\) the ranks started still running after 1s: sending SIGKILL$'
all_gone

# Two nodes of one rank each: rank 1, on node 1, fails in epoch 1 while
# rank 0 still runs; both nodes end their ranks' daemons before the restart
# and at the end.
fresh
for try in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 40000))
  common=(--monitor_binary="$monitor" --nnodes=2 --nproc=1
    --rendezvous="127.0.0.1:$port" --restart_backoff_ms=50 --grace_period_s=1
    --rendezvous_timeout_s=10 -- "$rank" --epochs=8 --steps_per_epoch=3
    --step_ms=60 --pid_dir="$scratch" --grandchild=daemon --check_grandchild
    --fail_rank=1 --fail_at_epoch=1)
  "$launch" --node_rank=0 "${common[@]}" \
    >"$scratch/out0" 2>"$scratch/err0" &
  node0=$!
  deadline=$((SECONDS + 20))
  until grep -qE 'rendezvous at|cannot serve' "$scratch/err0" 2>/dev/null; do
    ((SECONDS < deadline)) || { show "$scratch/err0"; fail "node 0 did not serve within 20 s"; }
    sleep 0.05
  done
  grep -q 'cannot serve' "$scratch/err0" || break
  wait "$node0" || true
  node0=
done
[[ -n $node0 ]] || fail "no free rendezvous port in 5 tries"
"$launch" --node_rank=1 "${common[@]}" \
  >"$scratch/out1" 2>"$scratch/err1" &
node1=$!
wait_bounded "$node0"
status0=$status
wait_bounded "$node1"
status1=$status
node0= node1=
[[ $status0 -eq 0 && $status1 -eq 0 ]] || { show "$scratch"/{out,err}{0,1}; fail "exit $status0 and $status1"; }
expect "$scratch/out0" '^\[0\] ghost of start 0: gone$'
expect "$scratch/out1" '^\[1\] ghost of start 0: gone$'
[[ $(ls "$scratch"/grandchild*.pid | wc -l) -eq 4 ]] || fail "expected 4 grandchildren: $(ls "$scratch")"
all_gone
echo PASS
