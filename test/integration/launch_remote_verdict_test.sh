#!/usr/bin/env bash
# A monitor verdict on a rank of node 1: node 0 runs the monitor, and when
# it finds a rank of node 1 stuck mid-epoch, it stops every rank of both
# nodes and restarts the job (--restart=job), which then finishes; with no
# restart left, both launchers exit with 1.
source "$(dirname "$0")/launch_test_lib.sh"

now() { date +%s.%N; }

# Whatever a failed check leaves running, and the scratch directory, go
# with the test: the launchers, and the ranks by their pid files (the hung
# one would otherwise sleep on for up to 120 s).
node0= node1=
clean_up() {
  local pid pid_file
  for pid in $node0 $node1; do
    kill -9 "$pid" 2>/dev/null || true
  done
  for pid_file in "$scratch"/rank*.pid; do
    [[ -e $pid_file ]] && kill -9 "$(cat "$pid_file")" 2>/dev/null || true
  done
  rm -rf "$scratch"
}
trap clean_up EXIT

# Rank 3, node 1's second rank, begins a step 300 ms into epoch 2 of its
# first start and never ends it, while the other ranks train on: 20 epochs
# of 300 ms, far from done when the 2 s limit runs out.
hang=("$rank" --epochs=20 --steps_per_epoch=5 --step_ms=60
  --pid_dir="$scratch" --fail_rank=3 --fail_at_epoch=2 --fail_hangs)
stuck_line='^sluice_launch: stopping all ranks: monitor: stuck: rank 3 stuck in step [0-9]+ for [0-9.]+ ?s \(limit 2 ?s\)'

start_nodes --stuck_timeout_s=2 -- "${hang[@]}"
wait_for "$scratch/out1" '^\[3\] hanging at epoch 2$' 30
hung_at=$(now)
wait_for "$scratch/err0" "$stuck_line" 10
seen_at=$(now)
python3 -c "import sys; d = $seen_at - $hung_at; print('stuck rank of node 1 found after %.2f s' % d); sys.exit(0 if d <= 3.5 else 1)" ||
  fail "the stuck rank of node 1 was found later than its limit + 1.5 s"
finish
[[ $status0 -eq 0 && $status1 -eq 0 ]] || { show "$scratch"/{out,err}{0,1}; fail "exit $status0 and $status1, not 0 and 0"; }
# Node 1 saw no failure of its own: it stopped its ranks for node 0.
expect "$scratch/err1" '^sluice_launch: node 0 stops every rank to restart them$'
! grep -q 'stopping this node.s ranks' "$scratch/err1" || { show "$scratch/err1"; fail "node 1 stopped its ranks on its own"; }
expect "$scratch/err0" '^sluice_launch: restart 1 of 3 in 100ms from epoch 2$'
expect "$scratch/err1" '^sluice_launch: restart 1 from epoch 2, as node 0 decided$'
[[ $(grep -c '^sluice_launch: stopping all ranks: ' "$scratch/err0") -eq 1 ]] || { show "$scratch/err0"; fail "node 0 did not stop the job exactly once"; }
expect "$scratch/err0" '^sluice_launch: the job finished$'
expect "$scratch/err1" '^sluice_launch: the job finished$'
# Every rank, stopped mid-job on either node, started again from epoch 2
# and finished once.
for r in 0 1 2 3; do
  out="$scratch/out$((r / 2))"
  expect "$out" "^\[$r\] rank $r restart 1 resumes at epoch 2$"
  [[ $(grep -c "^\[$r\] epoch 20/20$" "$out") -eq 1 ]] || { show "$out"; fail "rank $r did not train its last epoch once"; }
  [[ $(grep -c "^\[$r\] done$" "$out") -eq 1 ]] || { show "$out"; fail "rank $r did not finish once"; }
  [[ $(starts_of "$r") -eq 2 ]] || { show "$scratch"/{out,err}{0,1}; fail "rank $r started $(starts_of "$r") time(s), not 2"; }
done
for pid_file in "$scratch"/rank*.pid; do
  ! alive "$(cat "$pid_file")" || fail "rank $(basename "$pid_file") still runs"
done
node0= node1=

# No restart left: node 0 gives up with 1 for the verdict, and node 1
# exits with node 0's code.
rm -f "$scratch"/*.pid
start_nodes --stuck_timeout_s=2 --max_restarts=0 -- "${hang[@]}"
finish
[[ $status0 -eq 1 && $status1 -eq 1 ]] || { show "$scratch"/{out,err}{0,1}; fail "exit $status0 and $status1, not 1 and 1"; }
expect "$scratch/err0" "$stuck_line"
expect "$scratch/err0" '^sluice_launch: giving up after 0 restart\(s\) \(--max_restarts=0\): monitor: stuck: rank 3 stuck in step [0-9]+ .*; exiting with 1$'
expect "$scratch/err1" '^sluice_launch: node 0 ended the job with exit code 1$'
for r in 0 1 2 3; do
  [[ $(starts_of "$r") -eq 1 ]] || { show "$scratch"/{out,err}{0,1}; fail "rank $r started $(starts_of "$r") time(s), not once"; }
done
for pid_file in "$scratch"/rank*.pid; do
  ! alive "$(cat "$pid_file")" || fail "rank $(basename "$pid_file") still runs"
done
node0= node1=
echo PASS
