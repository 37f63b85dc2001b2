# Shared by the launch_*_test.sh tests: the binaries (from the test's
# arguments), a scratch directory, and bounded waits.
set -euo pipefail

launch="$1"
monitor="$2"
rank="$3"
scratch="$(mktemp -d "${TEST_TMPDIR:-/tmp}/launch.XXXXXX")"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Shows a run's output (for the log of a failed test).
show() {
  for file in "$@"; do
    echo "--- $file" >&2
    cat "$file" >&2 || true
  done
}

# wait_for FILE PATTERN SECONDS: until a line of FILE matches PATTERN
# (grep -E); fails after SECONDS.
wait_for() {
  local deadline=$((SECONDS + $3))
  until grep -qE -- "$2" "$1" 2>/dev/null; do
    ((SECONDS < deadline)) || { show "$1"; fail "no line matching '$2' in $1 within $3 s"; }
    sleep 0.05
  done
}

# expect FILE PATTERN: a line of FILE matches PATTERN (grep -E).
expect() {
  grep -qE -- "$2" "$1" || { show "$1"; fail "no line matching '$2' in $1"; }
}

# alive PID: whether the process exists and is not a zombie.
alive() {
  [[ -e /proc/$1 ]] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}

# wait_exited PID SECONDS: until the process has exited (a zombie not yet
# reaped counts); fails after SECONDS.
wait_exited() {
  local deadline=$((SECONDS + $2))
  while alive "$1"; do
    ((SECONDS < deadline)) || fail "process $1 still runs after $2 s"
    sleep 0.05
  done
}

# sluice_launch with the test's monitor, bounded; stdout and stderr to
# $scratch/out and $scratch/err, its exit code in $status.
run_launch() {
  status=0
  timeout 60 "$launch" --monitor_binary="$monitor" "$@" \
    >"$scratch/out" 2>"$scratch/err" || status=$?
}

# starts_of RANK: how many times launch_rank started as RANK (the pid files
# --pid_dir=$scratch holds, one per start).
starts_of() {
  local files=("$scratch/rank$1".*.pid)
  [[ -e "${files[0]}" ]] || { echo 0; return; }
  echo "${#files[@]}"
}

# start_nodes ARGS...: node 0 and node 1 (2 ranks each) in the background
# with the same ARGS (launcher flags, then -- and the command), outputs in
# $scratch/{out,err}{0,1}, the
# launchers' pids in $node0 and $node1 (no timeout wrapper: the tests kill
# the launchers themselves; finish bounds the wait). Retries another port
# when node 0's is taken.
start_nodes() {
  local try
  for try in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 40000))
    rm -f "$scratch"/{out,err}{0,1}
    local common=(--monitor_binary="$monitor" --nnodes=2 --nproc=2
      --rendezvous="127.0.0.1:$port" --restart_backoff_ms=100
      --grace_period_s=2 --rendezvous_timeout_s=3)
    "$launch" "${common[@]}" --node_rank=0 "$@" \
      >"$scratch/out0" 2>"$scratch/err0" &
    node0=$!
    local deadline=$((SECONDS + 20))
    until grep -qE 'rendezvous at|cannot serve' "$scratch/err0" 2>/dev/null; do
      ((SECONDS < deadline)) || { show "$scratch/err0"; fail "node 0 did not serve the rendezvous within 20 s"; }
      sleep 0.05
    done
    if grep -q 'cannot serve' "$scratch/err0"; then
      wait "$node0" || true
      continue
    fi
    "$launch" "${common[@]}" --node_rank=1 "$@" \
      >"$scratch/out1" 2>"$scratch/err1" &
    node1=$!
    return
  done
  fail "no free rendezvous port in 5 tries"
}

# finish: waits up to 60 s for both launchers; their exit codes in
# $status0, $status1.
finish() {
  local deadline=$((SECONDS + 60))
  while alive "$node0" || alive "$node1"; do
    if ((SECONDS >= deadline)); then
      kill -9 "$node0" "$node1" 2>/dev/null || true
      show "$scratch"/err{0,1}
      fail "the launchers did not end within 60 s"
    fi
    sleep 0.05
  done
  status0=0
  wait "$node0" || status0=$?
  status1=0
  wait "$node1" || status1=$?
}
