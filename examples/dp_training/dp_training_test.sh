#!/usr/bin/env bash
# The data-parallel job, end to end with real processes: a lighthouse and
# 3 replicas of dp_train under sluice_launch --restart=rank (run.py). The
# sixth argument picks the case.
# replica_kill:
#  1. Fault-free: the job finishes, every replica prints the held-out
#     accuracy (above 0.85), and at every committed step all replicas that
#     committed it print the same parameter checksum.
#  2. The same job (same seeds) with replica 1 killed by SIGKILL after its
#     step 100: the survivors commit again with quorum 2, the launcher
#     restarts replica 1 alone, it heals from a peer and rejoins (quorum 3),
#     the checksums agree at every step, and the final accuracy is within
#     1 point of the fault-free run's.
# leader_kill: two lighthouses over a one-member etcd (/usr/bin/etcd); the
#     leading one is killed by SIGKILL after step 100. The other one takes
#     over, every replica commits every step up to the last (in quorums of
#     a higher generation than any before the kill), the checksums agree at
#     every step and the accuracy is above 0.85 as without the kill.
# slow_heal: replica 1 killed after step 100 as in replica_kill, and every
#     chunk of state a replica serves to a healing peer sent 3 s late
#     (SLUICE_FAULTS=manager.heal.send=delay:3000). Replica 1 heals in the
#     background: the survivors never go more than 1.5 s between two
#     committed steps, it re-applies the updates it kept, and the checksums
#     agree at every step.
# partition: network partitions injected mid-run (run.py --partition_*:
#     a network namespace of run.py's own, nftables; liveness 1 s), each
#     for 3 s. Replica 1 cut off as a host that vanished (every connection
#     of its process): the others commit with quorum 2 within the liveness
#     bound, and after the heal replica 1 heals from a peer and commits
#     with quorum 3 again. Then the lighthouse's port: training waits and
#     goes on after the heal. Both times every replica commits every step
#     up to the last with equal checksums, none is restarted, and the
#     accuracy is above 0.85. Needs root and nft; says SKIP without them.
# tls: the replica_kill case's run with a kill, under run.py --tls: the
#     same checks pass (the heal runs over TLS too), and the job really
#     ran over mutual TLS: while it ran, the lighthouse's port and each
#     replica's healing service served no plaintext client and no TLS
#     client without a certificate, only one holding the job's, and showed
#     the process's own certificate: the job's on the lighthouse, one
#     whose common name and DNS subjectAltName are replica_R on replica R
#     (tls_probe.py). The keys were readable by their owner alone, and
#     run.py removed them at the end.
# partial: dp_train --partial_allreduce, up to five replicas killed in turn
#     (a kill between two steps leaves nothing to keep, and the job may end
#     before the fifth): at least one step a replica died in is kept by the
#     two survivors, each kept step over the same two contributors on both,
#     every replica
#     commits every step up to the last with equal checksums, and the
#     accuracy is above 0.85.
set -euo pipefail

run_py="$1"
dp_train="$2"
sluice_launch="$3"
sluice_lighthouse="$4"
model="$5"
case="$6"
scratch="$(mktemp -d "${TEST_TMPDIR:-/tmp}/dp.XXXXXX")"
steps=300
min_accuracy=0.85

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

check_accuracy() {
  python3 -c "import sys; sys.exit(0 if $1 > $min_accuracy else 1)" ||
    fail "held-out accuracy $1 is not above $min_accuracy"
}

# Checks the generations around the leader's kill: after the kill line
# another lighthouse became leader, every replica's last step is in a
# generation above every one before the kill, and no replica's generation
# went down.
check_generations() {
  python3 - "$scratch/$1" "$steps" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
steps = int(sys.argv[2])
kill_line = re.compile(r"^run.py: kill -9 the leading lighthouse (\S+) ")
step_line = re.compile(r"^\[(\d)\] step (\d+) generation (\d+) ")
kills = [i for i, l in enumerate(lines) if kill_line.match(l)]
if len(kills) != 1:
    sys.exit("%d leader kills, not 1" % len(kills))
killed = kill_line.match(lines[kills[0]]).group(1)
takeover = re.compile(r"^\[lighthouse (\S+)\] .*lighthouse \1: leader ")
new_leaders = [m.group(1) for m in map(takeover.match, lines[kills[0]:]) if m]
if not new_leaders or killed in new_leaders:
    sys.exit("no other lighthouse than %s took the lead: %s" %
             (killed, new_leaders))
before = max(int(m.group(3)) for m in map(step_line.match, lines[:kills[0]])
             if m)
last_generation = {}
for line in lines:
    m = step_line.match(line)
    if not m:
        continue
    replica, generation = int(m.group(1)), int(m.group(3))
    if generation < last_generation.get(replica, 0):
        sys.exit("replica %d went back to generation %d: %s" %
                 (replica, generation, line))
    last_generation[replica] = generation
    if int(m.group(2)) == steps and generation <= before:
        sys.exit("replica %d committed the last step in generation %d, not "
                 "above %d of the steps before the kill" %
                 (replica, generation, before))
print("%s killed, %s took over; generation %d before the kill, %s at the "
      "end" % (killed, new_leaders[0], before, sorted(set(
          last_generation.values()))))
PY
}

if [[ $case == partition ]]; then
  skip() {
    echo "SKIP: $*: run.py cuts the network with nftables in a network" \
      "namespace of its own"
    exit 0
  }
  [[ $(id -u) -eq 0 ]] || skip "not root"
  [[ -x /usr/sbin/nft || -x /sbin/nft ]] || skip "nft is not installed (nftables)"
  unshare --net true 2>/dev/null || skip "unshare --net fails here"
  # Long enough that the heal, 4 s after the first committed step, comes
  # well before the end.
  steps=600
  # The liveness timeout and the unanswered ping's second, and 2 s for a
  # loaded machine.
  bound_s=4
  partition=(--liveness_timeout_ms=1000 --partition_after_s=1
    --partition_for_s=3)
  for target in replica:1 lighthouse; do
    name=${target%%:*}
    run "$name" "${partition[@]}" --partition_target=$target
    accuracy=$(check_steps "$name") || fail "$target cut off: $accuracy"
    check_accuracy "$accuracy"
    grep -q '^run.py: every replica that committed a step held the same checksum' \
      "$scratch/$name" || fail "run.py did not find the checksums equal"
    grep -q '^run.py: partition healed after' "$scratch/$name" ||
      fail "$target: the partition did not heal before the job ended"
    grep -q '^sluice_launch: restarting rank' "$scratch/$name" &&
      fail "$target: a replica was restarted"
    summary=$(grep '^run.py: partition of ' "$scratch/$name") ||
      fail "$target: no summary of the partition"
    [[ $summary =~ after\ the\ heal\ replica\ [0-9]\ committed\ step\ [0-9]+\ with\ quorum\ 3\ ([0-9.]+)\ s\ after\ it ]] ||
      fail "$target: no step committed by all three after the heal: $summary"
    back="${BASH_REMATCH[1]}"
    if [[ $name == replica ]]; then
      [[ $summary =~ replica\ [02]\ committed\ step\ [0-9]+\ with\ quorum\ 2\ ([0-9.]+)\ s\ after\ the\ cut ]] ||
        fail "the others did not go on without replica 1: $summary"
      without="${BASH_REMATCH[1]}"
      python3 -c "import sys; sys.exit(0 if $without < $bound_s else 1)" ||
        fail "the others went on $without s after the cut, not within $bound_s s"
      grep -q '^\[1\] healed from replica_[02] to step ' "$scratch/$name" ||
        fail "replica 1 did not heal from a peer"
      echo "replica 1 cut off: the others went on ${without} s after the cut; it was back ${back} s after the heal; accuracy $accuracy"
    else
      echo "lighthouse cut off: all three committed ${back} s after the heal; accuracy $accuracy"
    fi
  done
  echo PASS
  exit 0
fi

if [[ $case == slow_heal ]]; then
  # Long enough that the 3 s transfer ends before the job does on an idle
  # machine, where 300 steps take under 7 s.
  steps=800
  SLUICE_FAULTS=manager.heal.send=delay:3000 run slow --kill_replica_at=100 \
    --kill_replica=1
  accuracy=$(check_steps slow) || fail "run with a slow heal: $accuracy"
  check_accuracy "$accuracy"
  healed=$(grep -E '^\[1\] healed from replica_[02] to step [0-9]+ in the background: its parameters of step [0-9]+ and [0-9]+ kept updates' "$scratch/slow") ||
    fail "replica 1 did not heal in the background"
  [[ $healed =~ and\ ([0-9]+)\ kept\ updates ]] && ((BASH_REMATCH[1] >= 5)) ||
    fail "replica 1 kept too few updates for a 3 s transfer: $healed"
  gap=$(python3 - "$scratch/slow" <<'PY'
import re, sys
step_line = re.compile(r"^\[([02])\] step \d+ generation \d+ quorum \d "
                       r"checksum \S+ loss \S+ accuracy \S+ at ([0-9.]+)$")
kill_line = re.compile(r"^run.py: kill -9 replica 1 ")
lines = open(sys.argv[1]).read().splitlines()
killed = [i for i, l in enumerate(lines) if kill_line.match(l)]
if len(killed) != 1:
    sys.exit("%d kills of replica 1, not 1" % len(killed))
last, gap = {}, 0.0
for line in lines[killed[0]:]:
    m = step_line.match(line)
    if not m:
        continue
    replica, at = m.group(1), float(m.group(2))
    if replica in last:
        gap = max(gap, at - last[replica])
    last[replica] = at
print("%.3f" % gap)
PY
) || fail "$gap"
  python3 -c "import sys; sys.exit(0 if $gap < 1.5 else 1)" ||
    fail "a survivor went $gap s between two steps while replica 1 healed"
  echo "heal delayed 3 s: the survivors went at most $gap s between steps; $healed; accuracy $accuracy"
  echo PASS
  exit 0
fi

if [[ $case == leader_kill ]]; then
  [[ -x /usr/bin/etcd ]] || fail "/usr/bin/etcd is missing (etcd-server)"
  run leader --lighthouses=2 --kill_leader_at=100
  accuracy=$(check_steps leader) || fail "run with the leader killed: $accuracy"
  check_accuracy "$accuracy"
  grep -q '^run.py: every replica that committed a step held the same checksum' \
    "$scratch/leader" || fail "run.py did not find the checksums equal"
  summary=$(grep '^run.py: lighthouse .* (leader) killed after step 100:' \
    "$scratch/leader") || fail "no summary of the leader's kill"
  [[ $summary =~ committed\ step\ [0-9]+\ in\ generation\ [0-9]+\ ([0-9.]+)\ s\ after\ the\ kill ]] ||
    fail "no step committed in a new generation after the kill: $summary"
  failover="${BASH_REMATCH[1]}"
  [[ $summary =~ replicas\ 0,1,2\ committed\ the\ last\ step ]] ||
    fail "not every replica finished: $summary"
  generations=$(check_generations leader) || fail "$generations"
  grep -q '^sluice_launch: restarting rank' "$scratch/leader" &&
    fail "a replica died: $(grep '^sluice_launch: restarting rank' "$scratch/leader")"
  echo "$generations"
  echo "first step of the new leader's quorum ${failover} s after the kill; accuracy $accuracy"
  echo PASS
  exit 0
fi
# Probes the run writing to $1 (pid $2) once the lighthouse and the three
# replicas' healing services are up: prints the probe's lines, and returns
# 1 when a port failed it, a key is not mode 600, or the ports never came
# up.
probe_tls() {
  local output="$1" job="$2" deadline=$((SECONDS + 120)) ca="" lighthouse=""
  local dir key mode line replica address failed=0
  local -a healing=()
  # As run.py finds tls_certificates.py: in the parameter-server example.
  local probe_py
  probe_py="$(dirname "$run_py")/../ps_training/tls_probe.py"
  until [[ ${#healing[@]} -eq 3 ]]; do
    if ! kill -0 "$job" 2>/dev/null || ((SECONDS > deadline)); then
      echo "the replicas' healing services did not all come up"
      return 1
    fi
    sleep 0.05
    mapfile -t healing < <(sed -nE 's/^\[([0-9])\] replica_\1: rank [0-9]+ of 3, pid [0-9]+, healing service at (127\.0\.0\.1:[0-9]+)$/\1 \2/p' \
      "$output" | awk '!seen[$1]++')
  done
  ca=$(sed -n 's/^run.py: the job runs over mutual TLS: CA at //p' "$output")
  lighthouse=$(sed -n 's/^run.py: lighthouse at //p' "$output")
  [[ -n $ca && -n $lighthouse ]] ||
    { echo "no line saying the job runs over mutual TLS, or no lighthouse"; return 1; }
  dir=$(dirname "$ca")
  for key in "$dir"/job.key "$dir"/replica_{0,1,2}.key; do
    mode=$(stat -c %a "$key") || { failed=1; continue; }
    [[ $mode == 600 ]] || { echo "$key has mode $mode, not 600"; failed=1; }
  done
  python3 "$probe_py" --ca="$ca" --cert="$dir/job.pem" --key="$dir/job.key" \
    --name=job "$lighthouse" || failed=1
  for line in "${healing[@]}"; do
    read -r replica address <<<"$line"
    python3 "$probe_py" --ca="$ca" --cert="$dir/job.pem" \
      --key="$dir/job.key" --name="replica_$replica" "$address" || failed=1
  done
  return $failed
}

if [[ $case == tls ]]; then
  run tls --tls --kill_replica_at=100 --kill_replica=1 &
  job=$!
  probe_status=0
  probes=$(probe_tls "$scratch/tls" $job) || probe_status=$?
  # run printed the output, and FAIL when run.py failed.
  wait $job || exit 1
  echo "$probes"
  ((probe_status == 0)) || fail "the job did not serve mutual TLS alone"
  ca=$(sed -n 's/^run.py: the job runs over mutual TLS: CA at //p' "$scratch/tls")
  [[ ! -e $(dirname "$ca") ]] ||
    fail "run.py left its certificates in $(dirname "$ca")"
  accuracy=$(check_steps tls) || fail "run with a kill under --tls: $accuracy"
  check_accuracy "$accuracy"
  grep -q '^run.py: every replica that committed a step held the same checksum' \
    "$scratch/tls" || fail "run.py did not find the checksums equal"
  summary=$(grep '^run.py: replica 1 killed after step 100:' "$scratch/tls") ||
    fail "no summary of the kill"
  [[ $summary =~ replica\ [02]\ committed\ step\ [0-9]+\ with\ quorum\ 2\  ]] ||
    fail "the survivors did not commit with quorum 2: $summary"
  [[ $summary =~ it\ healed\ from\ replica_[02]\ to\ step\ [0-9]+ ]] ||
    fail "replica 1 did not heal from a peer: $summary"
  [[ $summary =~ rejoined\ at\ step\ [0-9]+ ]] ||
    fail "replica 1 did not rejoin: $summary"
  [[ $(grep -c '^sluice_launch: restarting rank' "$scratch/tls") -eq 1 ]] ||
    fail "not replica 1 alone was restarted: $(grep '^sluice_launch: restarting rank' "$scratch/tls")"
  echo "under --tls: $summary; accuracy $accuracy"
  echo PASS
  exit 0
fi
if [[ $case == partial ]]; then
  # Long enough for the last killed replica to rejoin before the end.
  steps=600
  run partial --partial_allreduce --kills=5 --kill_every=20
  accuracy=$(check_steps partial) || fail "partial allreduce: $accuracy"
  check_accuracy "$accuracy"
  grep -q '^run.py: every replica that committed a step held the same checksum' \
    "$scratch/partial" || fail "run.py did not find the checksums equal"
  # The job may end before the fifth kill.
  summary=$(grep '^run.py: over [0-9]* kill(s), ' "$scratch/partial") ||
    fail "no summary of the kills"
  [[ $summary =~ ([0-9]+)\ step\(s\)\ kept\ by\ partial\ allreduce ]] ||
    fail "no count of the kept steps: $summary"
  kept="${BASH_REMATCH[1]}"
  [[ $kept -ge 1 ]] || fail "no step kept by partial allreduce: $summary"
  # A kept step's contributors are the two survivors, the same on both.
  python3 - "$scratch/partial" <<'PY' || fail "kept steps disagree"
import re, sys
kept = {}
for line in open(sys.argv[1]):
    m = re.match(r"^\[(\d)\] step (\d+) kept by partial allreduce: "
                 r"contributors (\S+) of quorum 3", line)
    if m:
        if len(m.group(3).split(",")) != 2:
            sys.exit("step %s kept over %s" % (m.group(2), m.group(3)))
        kept.setdefault(m.group(2), set()).add(m.group(3))
for step, contributors in kept.items():
    if len(contributors) != 1:
        sys.exit("step %s kept over %s" % (step, sorted(contributors)))
PY
  echo "partial allreduce: $summary; accuracy $accuracy"
  echo PASS
  exit 0
fi
[[ $case == replica_kill ]] || fail "unknown case '$case'"

run clean
clean_accuracy=$(check_steps clean) || fail "fault-free run: $clean_accuracy"
check_accuracy "$clean_accuracy"
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
