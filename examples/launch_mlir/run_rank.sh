#!/usr/bin/env bash
# One rank of the .mlir job under sluice_launch:
#
#   sluice_launch --nproc=4 -- examples/launch_mlir/run_rank.sh \
#       [--epochs=N] [--steps=N] [--checkpoint_dir=DIR]
#
# sluice_run runs functions without arguments, so this script writes the
# rank's values into train.mlir (RANK, NUM_RANKS from SLUICE_RANK and
# SLUICE_WORLD_SIZE; EPOCHS, STEPS; CKPT_DIR, DIR/rank-RANK) and runs
# @fresh, or @resume when SLUICE_RESUME_EPOCH is above 0. Checkpoint step E
# is the model after E epochs; those past the resume epoch are deleted
# first, so that @resume restores the resume epoch's. See README.md.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
: "${SLUICE_RUN:=$here/../../bazel-bin/tools/sluice_run/sluice_run}"

epochs=20 steps=100 checkpoint_dir=/tmp/sluice_launch_mlir
for arg in "$@"; do
  case "$arg" in
    --epochs=*) epochs="${arg#*=}" ;;
    --steps=*) steps="${arg#*=}" ;;
    --checkpoint_dir=*) checkpoint_dir="${arg#*=}" ;;
    *) echo "run_rank.sh: unknown flag '$arg'" >&2; exit 2 ;;
  esac
done
rank="${SLUICE_RANK:?run_rank.sh: SLUICE_RANK is not set}"
resume="${SLUICE_RESUME_EPOCH:-0}"
directory="$checkpoint_dir/rank-$rank"
mkdir -p "$directory"

for file in "$directory"/ckpt-*; do
  [[ -e $file ]] || continue
  name="${file##*/ckpt-}"
  step=$((10#${name:0:20}))
  ((step > resume)) && rm -f "$file"
done

program="$directory/train.mlir"
sed -e "s|\bNUM_RANKS\b|${SLUICE_WORLD_SIZE:-1}|; s|\bRANK\b|$rank|" \
  -e "s|\bEPOCHS\b|$epochs|g; s|\bSTEPS\b|$steps|; s|CKPT_DIR|$directory|g" \
  "$here/train.mlir" >"$program"
if ((resume > 0)); then
  echo "rank $rank resumes from the checkpoint of epoch $resume"
  exec "$SLUICE_RUN" --functions=resume "$program"
fi
exec "$SLUICE_RUN" --functions=fresh "$program"
