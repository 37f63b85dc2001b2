#!/usr/bin/env bash
# The example job, scaled down: 2 ps tasks, 4 workers and the coordinator
# train for 2 short epochs; the held-out accuracy must be far above chance
# (1/8). A second run with one more epoch resumes from the checkpoint of
# the first and trains that epoch alone.
set -euo pipefail

run_py="$1"
ps_train="$2"
sluice_worker="$3"
model="$4"
workdir="${TEST_TMPDIR:-$(mktemp -d)}/job"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

run() {
  python3 "$run_py" --workdir="$workdir" --ps_train="$ps_train" \
    --sluice_worker="$sluice_worker" --model="$model" --steps_per_epoch=250 \
    --timeout=60 "$@"
}

status=0
run --fresh --epochs=2 >"$TEST_TMPDIR/first" 2>&1 || status=$?
cat "$TEST_TMPDIR/first"
[[ $status -eq 0 ]] || fail "the first run exited with $status"
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
