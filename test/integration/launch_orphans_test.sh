#!/usr/bin/env bash
# sluice_launch leaves no process behind: killed with SIGKILL, its ranks and
# its monitor die with it; SIGINT and SIGTERM reach the ranks, and it exits
# with 128 + the signal once they are gone.
source "$(dirname "$0")/launch_test_lib.sh"

# start_job: a long job in the background; $launcher_pid, and the pids of
# its 3 ranks and its monitor in $pids.
start_job() {
  rm -f "$scratch"/*.pid
  "$launch" --monitor_binary="$monitor" --nproc=3 --grace_period_s=5 -- \
    "$rank" --epochs=100000 --steps_per_epoch=10 --step_ms=50 \
    --pid_dir="$scratch" >"$scratch/out" 2>"$scratch/err" &
  launcher_pid=$!
  for r in 0 1 2; do wait_for_file "$scratch/rank$r.0.pid"; done
  pids="$(cat "$scratch"/rank*.0.pid) $(pgrep -P "$launcher_pid" -f sluice_monitor)"
  [[ $(wc -w <<<"$pids") -eq 4 ]] || fail "expected 3 ranks and a monitor: $pids"
}

wait_for_file() {
  local deadline=$((SECONDS + 20))
  until [[ -e $1 ]]; do
    ((SECONDS < deadline)) || { show "$scratch/err"; fail "no $1 within 20 s"; }
    sleep 0.05
  done
}

# all_gone SECONDS: every pid in $pids has exited within SECONDS.
all_gone() {
  local deadline=$((SECONDS + $1))
  for pid in $pids; do
    while alive "$pid"; do
      ((SECONDS < deadline)) || fail "process $pid ($(tr '\0' ' ' </proc/$pid/cmdline)) outlived the launcher"
      sleep 0.05
    done
  done
}

start_job
kill -9 "$launcher_pid"
all_gone 5
wait "$launcher_pid" || true

for signal in TERM INT; do
  start_job
  kill -s "$signal" "$launcher_pid"
  status=0
  wait "$launcher_pid" || status=$?
  expected=$((128 + $(kill -l "$signal")))
  [[ $status -eq $expected ]] || { show "$scratch/err"; fail "SIG$signal: exit $status, not $expected"; }
  expect "$scratch/err" "^sluice_launch: got .*: passing it to the ranks$"
  # The ranks died of the signal itself, well within the grace period.
  ! grep -q 'sending SIGKILL' "$scratch/err" || fail "SIG$signal did not stop the ranks"
  all_gone 1
done
echo PASS
