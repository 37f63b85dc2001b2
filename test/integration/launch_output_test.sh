#!/usr/bin/env bash
# sluice_launch's ranks: their environment, their prefixed output, a clean
# finish, the coordinator jobs' TF_CONFIG and the chief, and flag errors.
source "$(dirname "$0")/launch_test_lib.sh"

# Environment per rank, and the resume epoch as a flag.
run_launch --nproc=3 --monitor=none --resume_epoch_flag=start_epoch -- \
  sh -c 'echo "rank=$SLUICE_RANK world=$SLUICE_WORLD_SIZE local=$SLUICE_LOCAL_RANK resume=$SLUICE_RESUME_EPOCH restart=$SLUICE_RESTART monitor=${SLUICE_MONITOR-unset} args=$*"' \
  sh a1
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
for r in 0 1 2; do
  expect "$scratch/out" "^\[$r\] rank=$r world=3 local=$r resume=0 restart=0 monitor=unset args=a1 --start_epoch=0$"
done
[[ $(wc -l <"$scratch/out") -eq 3 ]] || { show "$scratch/out"; fail "expected 3 lines"; }

# Lines written in pieces come out whole, each with its rank, on stdout and
# stderr alike; a last line without a newline gets one.
run_launch --nproc=4 --monitor=none -- sh -c '
  for i in $(seq 1 30); do
    printf "r%s-line%s-" "$SLUICE_RANK" "$i"; sleep 0.002; printf "end\n"
  done
  echo "r$SLUICE_RANK-to-stderr" >&2
  printf "r%s-unterminated" "$SLUICE_RANK"'
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
bad=$(grep -cvE '^\[([0-3])\] r\1-(line[0-9]+-end|unterminated)$' "$scratch/out" || true)
[[ $bad -eq 0 ]] || { show "$scratch/out"; fail "$bad stdout lines mixed or without their rank"; }
[[ $(grep -c 'end$' "$scratch/out") -eq 120 ]] || fail "expected 120 whole lines"
[[ $(grep -c 'unterminated$' "$scratch/out") -eq 4 ]] || fail "expected 4 unterminated lines"
for r in 0 1 2 3; do expect "$scratch/err" "^\[$r\] r$r-to-stderr$"; done

# A clean finish with the monitor: every rank reports its steps and ends
# with 0, and so does the launcher.
run_launch --nproc=2 -- "$rank" --epochs=2 --steps_per_epoch=3
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
for r in 0 1; do
  expect "$scratch/out" "^\[$r\] epoch 2/2$"
  expect "$scratch/out" "^\[$r\] done$"
done
expect "$scratch/err" '^sluice_launch: monitor listening on 127\.0\.0\.1:[0-9]+$'
expect "$scratch/err" '^sluice_launch: the job finished$'
! grep -q restart "$scratch/err" || { show "$scratch/err"; fail "a clean run restarted"; }

# A coordinator job: TF_CONFIG and SLUICE_CLUSTER per task. The ps tasks
# serve forever; the job ends when the chief (worker 0 here) exits with 0.
run_launch --jobs=ps:2,worker:1 --chief=worker --monitor=none -- sh -c '
  echo "config $TF_CONFIG"; echo "cluster $SLUICE_CLUSTER"
  # The chief gives the ps tasks time to print before it ends the job.
  [ "$SLUICE_RANK" = 2 ] && { sleep 0.5; exit 0; }; exec sleep 60'
[[ $status -eq 0 ]] || { show "$scratch/out" "$scratch/err"; fail "exit $status"; }
expect "$scratch/err" '^sluice_launch: rank 2 \(worker 0\), the chief, finished$'
python3 - "$scratch/out" <<'PY' || fail "TF_CONFIG or SLUICE_CLUSTER is wrong"
import json, re, sys
config, cluster = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"\[(\d)\] (config|cluster) (.*)$", line)
    if m:
        (config if m.group(2) == "config" else cluster)[int(m.group(1))] = json.loads(m.group(3))
expected = [("ps", 0), ("ps", 1), ("worker", 0)]
spec = cluster[0]
assert list(spec) == ["ps", "worker"] and len(spec["ps"]) == 2 and len(spec["worker"]) == 1, spec
addresses = spec["ps"] + spec["worker"]
assert len(set(addresses)) == 3 and all(re.match(r"127\.0\.0\.1:\d+$", a) for a in addresses), addresses
for r, (job, index) in enumerate(expected):
    assert cluster[r] == spec, (r, cluster[r])
    assert config[r] == {"cluster": spec, "task": {"type": job, "index": index}}, (r, config[r])
PY

# Flag errors: exit 2 and a specific message.
run_launch --nproc=2
[[ $status -eq 2 ]] || fail "no command: exit $status"
expect "$scratch/err" "^sluice_launch: no command: give it after '--'"
run_launch --jobs=ps:2,worker:x -- true
[[ $status -eq 2 ]] || fail "bad --jobs: exit $status"
expect "$scratch/err" "^sluice_launch: --jobs: 'worker:x' is not JOB:COUNT"
run_launch --jobs=ps:1 --chief=chief -- true
[[ $status -eq 2 ]] || fail "bad --chief: exit $status"
expect "$scratch/err" '^sluice_launch: --chief=chief names no job of --jobs$'
run_launch --nproc=1 --monitor=none -- /nonexistent/train
[[ $status -eq 1 ]] || fail "missing command: exit $status"
expect "$scratch/err" '^sluice_launch: cannot start rank 0: command /nonexistent/train is not an executable file$'
echo PASS
