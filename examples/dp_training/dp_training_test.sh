#!/usr/bin/env bash
# The data-parallel job, end to end with real processes: a lighthouse and
# 3 replicas of dp_train under sluice_launch --restart=rank (run.py).
#  1. Fault-free: the job finishes, every replica prints the held-out
#     accuracy (above 0.85), and at every committed step all replicas that
#     committed it print the same parameter checksum.
#  2. The same job (same seeds) with replica 1 killed by SIGKILL after its
#     step 100: the survivors commit again with quorum 2, the launcher
#     restarts replica 1 alone, it heals from a peer and rejoins (quorum 3),
#     the checksums agree at every step, and the final accuracy is within
#     1 point of the fault-free run's.
set -euo pipefail

run_py="$1"
dp_train="$2"
sluice_launch="$3"
sluice_lighthouse="$4"
model="$5"
scratch="$(mktemp -d "${TEST_TMPDIR:-/tmp}/dp.XXXXXX")"
steps=300

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

run() {
  local name="$1"
  shift
  status=0
  timeout 600 python3 "$run_py" --dp_train="$dp_train" \
    --sluice_launch="$sluice_launch" --sluice_lighthouse="$sluice_lighthouse" \
    --model="$model" --steps="$steps" --timeout=540 "$@" \
    >"$scratch/$name" 2>&1 || status=$?
  cat "$scratch/$name"
  [[ $status -eq 0 ]] || fail "run.py ($name) exited with $status"
}

# Checks the step lines of a run's output on their own (not run.py's
# summary): at each step every replica that committed it printed the same
# checksum; every replica committed the last step; prints the mean
# accuracy.
check_steps() {
  python3 - "$scratch/$1" "$steps" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
steps = int(sys.argv[2])
step_line = re.compile(r"^\[(\d)\] step (\d+) generation \d+ quorum (\d) "
                       r"checksum ([0-9a-f]{16}) ")
by_step = {}
for line in lines:
    m = step_line.match(line)
    if m:
        by_step.setdefault(int(m.group(2)), {})[int(m.group(1))] = m.group(4)
if not by_step:
    sys.exit("no step lines")
for step, checksums in sorted(by_step.items()):
    if len(set(checksums.values())) != 1:
        sys.exit("step %d: checksums differ: %s" % (step, checksums))
if sorted(by_step[steps]) != [0, 1, 2]:
    sys.exit("step %d committed by %s only" % (steps, sorted(by_step[steps])))
accuracies = [float(m.group(2)) for m in
              (re.match(r"^\[(\d)\] held-out accuracy ([0-9.]+) after %d "
                        r"steps$" % steps, l) for l in lines) if m]
if len(accuracies) != 3:
    sys.exit("%d replicas printed their accuracy after %d steps, not 3"
             % (len(accuracies), steps))
if len(set(accuracies)) != 1:
    sys.exit("the replicas' accuracies differ: %s" % accuracies)
print(accuracies[0])
PY
}

run clean
clean_accuracy=$(check_steps clean) || fail "fault-free run: $clean_accuracy"
python3 -c "import sys; sys.exit(0 if $clean_accuracy > 0.85 else 1)" ||
  fail "held-out accuracy $clean_accuracy is not above 0.85"
grep -q '^run.py: every replica that committed a step held the same checksum' \
  "$scratch/clean" || fail "run.py did not find the checksums equal"

run kill --kill_replica_at=100 --kill_replica=1
kill_accuracy=$(check_steps kill) || fail "run with a kill: $kill_accuracy"
summary=$(grep '^run.py: replica 1 killed after step 100:' "$scratch/kill") ||
  fail "no summary of the kill"
[[ $summary =~ replica\ [02]\ committed\ step\ [0-9]+\ with\ quorum\ 2\ ([0-9.]+)\ s\ after\ the\ kill ]] ||
  fail "the survivors did not commit with quorum 2: $summary"
recovery="${BASH_REMATCH[1]}"
[[ $summary =~ it\ healed\ from\ replica_[02]\ to\ step\ [0-9]+ ]] ||
  fail "replica 1 did not heal from a peer: $summary"
[[ $summary =~ rejoined\ at\ step\ [0-9]+ ]] || fail "replica 1 did not rejoin: $summary"
grep -q '^sluice_launch: restarting rank 1 alone' "$scratch/kill" ||
  fail "the launcher did not restart rank 1 alone"
[[ $(grep -c '^sluice_launch: restarting rank' "$scratch/kill") -eq 1 ]] ||
  fail "a survivor died too: $(grep '^sluice_launch: restarting rank' "$scratch/kill")"
grep -q 'stopping all ranks' "$scratch/kill" && fail "the launcher stopped the job"
python3 -c "import sys; sys.exit(0 if abs($kill_accuracy - $clean_accuracy) <= 0.01 else 1)" ||
  fail "accuracy $kill_accuracy with a kill is not within 1 point of $clean_accuracy"
echo "recovery ${recovery} s; accuracy $clean_accuracy fault-free, $kill_accuracy with a kill"
echo PASS
