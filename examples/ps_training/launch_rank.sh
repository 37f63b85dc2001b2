#!/usr/bin/env bash
# One task of the parameter-server example under sluice_launch:
#
#   sluice_launch --jobs=ps:2,worker:4,chief:1 --chief=chief -- \
#       examples/ps_training/launch_rank.sh [ps_train flags...]
#
# Reads its task from TF_CONFIG: a ps or worker task becomes sluice_worker
# on its address; the chief waits until every task listens, then becomes
# ps_train with the given flags (default --checkpoint_dir:
# /tmp/sluice_ps_training/checkpoints) on the compiled model (bazel build
# //examples/ps_training:model_sbf, or $PS_MODEL). See README.md.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
: "${SLUICE_WORKER:=$root/bazel-bin/tools/sluice_worker/sluice_worker}"
: "${PS_TRAIN:=$root/bazel-bin/examples/ps_training/ps_train}"
: "${PS_MODEL:=$root/bazel-bin/examples/ps_training/model.sbf}"

# "JOB INDEX ADDRESS" of this task, then the address of every task.
read -r job index address < <(python3 -c '
import json, os
config = json.loads(os.environ["TF_CONFIG"])
task = config["task"]
print(task["type"], task["index"], config["cluster"][task["type"]][task["index"]])')

if [[ $job != chief ]]; then
  exec "$SLUICE_WORKER" --task_name="/job:$job/task:$index" \
    --address="$address" --cluster="$SLUICE_CLUSTER" --work_queue_type=mstd:2
fi

# Bounded: a task that never listens fails the chief, and the launcher
# restarts the job.
for peer in $(python3 -c '
import json, os
for job, addresses in json.loads(os.environ["SLUICE_CLUSTER"]).items():
    if job != "chief":
        print(" ".join(addresses))'); do
  host="${peer%:*}" port="${peer##*:}"
  for ((try = 0; ; ++try)); do
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && break
    ((try < 300)) || { echo "launch_rank.sh: $peer does not listen after 30 s" >&2; exit 1; }
    sleep 0.1
  done
done
exec "$PS_TRAIN" --model="$PS_MODEL" --cluster="$SLUICE_CLUSTER" \
  --checkpoint_dir=/tmp/sluice_ps_training/checkpoints "$@"
