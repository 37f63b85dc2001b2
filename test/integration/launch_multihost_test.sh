#!/usr/bin/env bash
# Two sluice_launch processes on 127.0.0.1 as two hosts (node 0 and node 1,
# 2 ranks each) meeting at a rendezvous: global ranks, one restart decided
# by node 0 for both, no orphans when a launcher is killed, and a node that
# loses node 0 stopping its ranks.
source "$(dirname "$0")/launch_test_lib.sh"

# Flag errors exit with 2 and name the flag.
run_launch --nnodes=2 --nproc=2 -- true
[[ $status -eq 2 ]] || fail "--nnodes without --rendezvous: exit $status, not 2"
expect "$scratch/err" '^sluice_launch: --nnodes > 1 needs --rendezvous=HOST:PORT, node 0.s address$'
run_launch --nnodes=2 --node_rank=2 --rendezvous=127.0.0.1:1 --nproc=2 -- true
[[ $status -eq 2 ]] || fail "--node_rank=2 of 2: exit $status, not 2"
expect "$scratch/err" '^sluice_launch: --node_rank=2 is not in 0..1 \(--nnodes=2\)$'

# Global ranks and world size: node 1 runs ranks 2 and 3 of 4.
start_nodes -- sh -c 'echo "rank=$SLUICE_RANK world=$SLUICE_WORLD_SIZE local=$SLUICE_LOCAL_RANK node=$SLUICE_NODE_RANK monitor=${SLUICE_MONITOR:+set}"'
finish
[[ $status0 -eq 0 && $status1 -eq 0 ]] || { show "$scratch"/{out,err}{0,1}; fail "exit $status0 and $status1"; }
for r in 0 1; do
  expect "$scratch/out0" "^\[$r\] rank=$r world=4 local=$r node=0 monitor=set$"
  expect "$scratch/out1" "^\[$((r + 2))\] rank=$((r + 2)) world=4 local=$r node=1 monitor=set$"
done
expect "$scratch/err1" "^sluice_launch: node 1 joined the rendezvous at 127.0.0.1:$port: ranks 2..3 of 4$"
expect "$scratch/err0" '^sluice_launch: the job finished$'
expect "$scratch/err1" '^sluice_launch: the job finished$'

# Rank 3, on node 1, exits with 1 in epoch 2 of its first start: node 0
# restarts every rank of both nodes from epoch 2, and both finish.
rm -f "$scratch"/*.pid
start_nodes -- "$rank" --epochs=8 --steps_per_epoch=5 --step_ms=60 \
  --pid_dir="$scratch" --fail_rank=3 --fail_at_epoch=2 --fail_code=1
finish
[[ $status0 -eq 0 && $status1 -eq 0 ]] || { show "$scratch"/{out,err}{0,1}; fail "exit $status0 and $status1"; }
expect "$scratch/out1" '^\[3\] failing at epoch 2 with code 1$'
expect "$scratch/err1" '^sluice_launch: stopping this node.s ranks: rank 3 exited with code 1$'
# Node 0 hears of it from node 1 or from the monitor, whichever is first.
expect "$scratch/err0" '^sluice_launch: stopping all ranks: (node 1: rank 3 exited with code 1|monitor: dead: rank 3 dead: exited with code 1)$'
expect "$scratch/err0" '^sluice_launch: restart 1 of 3 in 100ms from epoch 2$'
expect "$scratch/err1" '^sluice_launch: restart 1 from epoch 2, as node 0 decided$'
for r in 0 1 2 3; do
  out="$scratch/out$((r / 2))"
  expect "$out" "^\[$r\] rank $r restart 0 resumes at epoch 0$"
  expect "$out" "^\[$r\] rank $r restart 1 resumes at epoch 2$"
  [[ $(grep -c "^\[$r\] done$" "$out") -eq 1 ]] || { show "$out"; fail "rank $r did not finish once"; }
  [[ -e "$scratch/rank$r.1.pid" && ! -e "$scratch/rank$r.2.pid" ]] || fail "rank $r did not start exactly twice"
done

# Node 0 refuses a node with another --nproc (node 1 exits with 1 at
# once), then gives up waiting for node 1 after 3 s.
start_nodes -- true
status1=0
wait "$node1" || status1=$?
[[ $status1 -eq 0 ]] || { show "$scratch"/err{0,1}; fail "matching node 1: exit $status1"; }
wait "$node0" || true
port=$((20000 + RANDOM % 40000))
common=(--nnodes=2 --rendezvous="127.0.0.1:$port" --rendezvous_timeout_s=3)
"$launch" "${common[@]}" --monitor=none --node_rank=0 --nproc=2 -- true >"$scratch/out0" 2>"$scratch/err0" &
node0=$!
"$launch" "${common[@]}" --node_rank=1 --nproc=3 -- true >"$scratch/out1" 2>"$scratch/err1" &
node1=$!
finish
[[ $status1 -eq 1 && $status0 -eq 1 ]] || { show "$scratch"/err{0,1}; fail "mismatched --nproc: exit $status0 and $status1, not 1 and 1"; }
expect "$scratch/err1" "^sluice_launch: cannot join the rendezvous at 127.0.0.1:$port as node 1: the rendezvous at 127.0.0.1:$port refused: node 1 \(127.0.0.1\) runs --nproc=3, node 0 runs --nproc=2: every node must run the same number of ranks$"
expect "$scratch/err0" '^sluice_launch: only 0 of 1 other node\(s\) joined within 3s \(--rendezvous_timeout_s\)$'

# pids_of NODE: the pids of that node's ranks (restart 0).
pids_of() {
  local first=$(($1 * 2))
  local r
  for r in $first $((first + 1)); do
    local deadline=$((SECONDS + 20))
    until [[ -e "$scratch/rank$r.0.pid" ]]; do
      ((SECONDS < deadline)) || { show "$scratch"/err{0,1}; fail "rank $r did not start within 20 s"; }
      sleep 0.05
    done
    cat "$scratch/rank$r.0.pid"
  done
}

# all_gone SECONDS: every pid in $pids has exited within SECONDS.
all_gone() {
  local deadline=$((SECONDS + $1))
  for pid in $pids; do
    while alive "$pid"; do
      ((SECONDS < deadline)) || fail "process $pid ($(tr '\0' ' ' </proc/$pid/cmdline)) outlived its launcher"
      sleep 0.05
    done
  done
}

long_job=("$rank" --epochs=100000 --steps_per_epoch=10 --step_ms=50 --pid_dir="$scratch")

# none_left: no rank of this test runs any more.
none_left() {
  ! pgrep -f -- "--pid_dir=$scratch" >/dev/null || fail "ranks left: $(pgrep -af -- "--pid_dir=$scratch")"
}

# kill -9 of node 1's launcher: its ranks die with it. Node 0 finds node 1
# silent for 3 s, restarts without it until no restart is left, and exits
# with 1 with its ranks stopped.
rm -f "$scratch"/*.pid
start_nodes -- "${long_job[@]}"
pids="$(pids_of 1)"
pids_of 0 >/dev/null
kill -9 "$node1"
all_gone 5
finish
[[ $status0 -eq 1 ]] || { show "$scratch/err0"; fail "node 0 exit $status0 without node 1, not 1"; }
expect "$scratch/err0" '^sluice_launch: stopping all ranks: node 1 \(127.0.0.1\) has not been heard from for 3s$'
expect "$scratch/err0" '^sluice_launch: giving up after 3 restart\(s\)'
none_left

# kill -9 of node 0's launcher: node 1 loses it, stops its ranks after its
# 3 s --rendezvous_timeout_s and exits with 1.
rm -f "$scratch"/*.pid
start_nodes -- "${long_job[@]}"
pids="$(pids_of 1)"
pids_of 0 >/dev/null
kill -9 "$node0"
finish
[[ $status1 -eq 1 ]] || { show "$scratch/err1"; fail "node 1 exit $status1 after losing node 0, not 1"; }
expect "$scratch/err1" "^sluice_launch: lost node 0 \(the rendezvous at 127.0.0.1:$port\) for 3s: stopping this node's ranks$"
all_gone 1
none_left
echo PASS
