#!/usr/bin/env bash
# The example job, scaled down: 2 ps tasks, 4 workers and the coordinator
# train for 2 short epochs; the held-out accuracy must be far above chance
# (1/8). A second run with one more epoch resumes from the checkpoint of
# the first and trains that epoch alone.
# Arguments after the fourth are more flags for every run.py. With --tls
# the job must also have run over mutual TLS: the line saying so names
# the CA in --workdir/tls, the key is readable by its owner alone, and
# during the first run a parameter server's port serves no plaintext
# client and no TLS client without a certificate, only one holding the
# job's (tls_probe.py).
set -euo pipefail

run_py="$1"
ps_train="$2"
sluice_worker="$3"
model="$4"
shift 4
extra=("$@")
workdir="${TEST_TMPDIR:-$(mktemp -d)}/job"
tls=0
for flag in "${extra[@]}"; do
  [[ $flag == --tls ]] && tls=1
done

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

run() {
  python3 "$run_py" --workdir="$workdir" --ps_train="$ps_train" \
    --sluice_worker="$sluice_worker" --model="$model" --steps_per_epoch=250 \
    --timeout=60 "${extra[@]}" "$@"
}

# Probes parameter server 0 of the run writing to $1 (pid $2) once it is
# listening, while the coordinator trains: prints the probe's lines, and
# returns 1 when the port failed it or never came up.
probe_tls() {
  local output="$1" job="$2" ca="" ps0="" deadline=$((SECONDS + 60))
  while [[ -z $ps0 ]]; do
    if ! kill -0 "$job" 2>/dev/null || ((SECONDS > deadline)); then
      echo "no cluster line to probe"
      return 1
    fi
    sleep 0.05
    ca=$(sed -n 's/^the job runs over mutual TLS: CA at //p' "$output")
    ps0=$(sed -n 's/^cluster: {"ps": \["\([0-9.:]*\)".*/\1/p' "$output")
  done
  [[ -n $ca ]] || { echo "no line saying the job runs over mutual TLS"; return 1; }
  python3 "$(dirname "$run_py")/tls_probe.py" --ca="$ca" \
    --cert="$(dirname "$ca")/job.pem" --key="$(dirname "$ca")/job.key" "$ps0"
}

status=0
run --fresh --epochs=2 >"$TEST_TMPDIR/first" 2>&1 &
job=$!
probe=""
probe_status=0
if ((tls)); then
  probe=$(probe_tls "$TEST_TMPDIR/first" $job) || probe_status=$?
fi
wait $job || status=$?
cat "$TEST_TMPDIR/first"
[[ $status -eq 0 ]] || fail "the first run exited with $status"
if ((tls)); then
  echo "$probe"
  ((probe_status == 0)) || fail "the job's port did not serve TLS alone"
  [[ $(grep -c '^the job runs over mutual TLS: CA at '"$workdir"'/tls/ca.pem$' \
    "$TEST_TMPDIR/first") -eq 1 ]] ||
    fail "no line saying the job runs over mutual TLS with its CA in $workdir/tls"
  mode=$(stat -c %a "$workdir/tls/job.key")
  [[ $mode == 600 ]] || fail "the job's key has mode $mode, not 600"
fi
grep -q '^epoch 1/2: loss [0-9.]* accuracy [0-9.]*$' "$TEST_TMPDIR/first" ||
  fail "no line for epoch 1"
grep -q '^epoch 2/2: ' "$TEST_TMPDIR/first" || fail "no line for epoch 2"
accuracy=$(sed -n 's/^held-out accuracy //p' "$TEST_TMPDIR/first")
[[ -n "$accuracy" ]] || fail "no held-out accuracy"
python3 -c "import sys; sys.exit(0 if $accuracy > 0.85 else 1)" ||
  fail "held-out accuracy $accuracy is not above 0.85"

status=0
run --epochs=3 >"$TEST_TMPDIR/second" 2>&1 || status=$?
cat "$TEST_TMPDIR/second"
[[ $status -eq 0 ]] || fail "the resumed run exited with $status"
grep -q '^resuming from the checkpoint of step 500 ' "$TEST_TMPDIR/second" ||
  fail "the second run did not resume from step 500"
grep -q '^epoch [12]/3' "$TEST_TMPDIR/second" &&
  fail "the second run trained epochs the checkpoint had"
grep -q '^epoch 3/3: ' "$TEST_TMPDIR/second" || fail "no line for epoch 3"
echo PASS
