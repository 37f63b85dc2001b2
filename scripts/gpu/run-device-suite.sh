#!/usr/bin/env bash
# Runs the suite that pack-device-suite.sh packed, on a machine with a GPU:
# one log per step, the rank processes' output and summary.txt (the GPU,
# the NCCL found, one line per step) under $OUT (default: out/ here).
#   run-device-suite.sh [STEP...]   only these steps (to rerun what failed)
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}; mkdir -p "$out"
# STEP TIMEOUT_S COMMAND...
all_steps=(
  "cuda_status_test 120 bin/cuda_status_test"
  "event_poller_test 120 bin/event_poller_test"
  "gpu_device_test 120 bin/gpu_device_test"
  "device_tensor_test 120 bin/device_tensor_test"
  "nccl_comm_watch_test 120 bin/nccl_comm_watch_test"
  "nccl_real_api_test 120 bin/nccl_real_api_test"
  "nccl_group_test 120 bin/nccl_group_test"
  "nccl_gpu_group_test 120 bin/nccl_gpu_group_test"
  "nccl_process_test 200 bin/nccl_process_test"
  "nccl_allreduce_benchmark 150 bin/nccl_allreduce_benchmark --benchmark_min_time=0.2"
)
names=$(for s in "${all_steps[@]}"; do printf '%s ' "${s%% *}"; done)
for want in "$@"; do
  case " $names" in
    *" $want "*) ;;
    *) echo "run-device-suite: no step named '$want'; the steps are: $names" >&2
       exit 2 ;;
  esac
done

# Before LD_LIBRARY_PATH points at the packed libraries.
{ nvidia-smi; nvidia-smi --query-gpu=driver_version,compute_mode --format=csv; } \
  > "$out/summary.txt" 2>&1
found=$(find /usr/local /usr/lib /usr/lib64 /opt -name 'libnccl.so.2' 2>/dev/null)
nccl=$(echo "$found" | head -1)
{ echo "nccl: ${nccl:-not found}${nccl:+ -> $(readlink -f "$nccl")}"
  echo "$found" | tail -n +2 | sed 's/^/nccl (not used): /'
  echo "revision: $(head -1 "$here/REVISION" 2>/dev/null)," \
    "$(tail -n +2 "$here/REVISION" 2>/dev/null | wc -l) tracked files modified"
} >> "$out/summary.txt"
export LD_LIBRARY_PATH="$here/lib${nccl:+:$(dirname "$nccl")}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for b in "$here"/bin/*; do
  ldd "$b" | grep -E "not found" | sed "s|^|$(basename "$b"): |"
done >> "$out/summary.txt" 2>&1
ldd "$here/bin/nccl_gpu_group_test" | grep -E "^\s*lib(nccl|cudart)\.so" |
  awk '{print "loads", $1, "from", $3}' >> "$out/summary.txt" 2>&1
TEST_TMPDIR=$(mktemp -d)
export TEST_SRCDIR=$here TEST_WORKSPACE=sluice TEST_TMPDIR
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}

# GoogleTest's counts and the failed cases' names; without them (a crash,
# a benchmark), the log's last line.
outcome() {
  local log=$1 counts failed
  counts=$(grep -E '^\[ +(PASSED|SKIPPED|FAILED) +\] [0-9]+ tests?' "$log" |
    sed -E 's/^\[ +([A-Z]+) +\] ([0-9]+) .*/\1 \2/' | tr 'A-Z\n' 'a-z ' |
    sed 's/ $//')
  failed=$(grep -E '^\[  FAILED  \] ' "$log" | grep -vE ' ms\)$|\] [0-9]+ tests?' |
    awk '{print $4}' | sed 's/,$//' | tr '\n' ' ')
  if [ -n "$counts" ]; then
    echo "$counts${failed:+: $failed}"
  else
    grep -v '^\s*$' "$log" | tail -1
  fi
}
step() {  # step NAME TIMEOUT COMMAND...
  local name=$1 limit=$2; shift 2
  local t0; t0=$(date +%s.%N)
  timeout "$limit" "$@" > "$out/$name.log" 2>&1; local rc=$?
  printf '%-26s rc=%-3s %6.1fs  %s\n' "$name" "$rc" \
    "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" \
    "$(outcome "$out/$name.log" | cut -c1-200)" >> "$out/summary.txt"
}
for s in "${all_steps[@]}"; do
  read -r name limit command <<< "$s"
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  # shellcheck disable=SC2086  # the command's words are its arguments
  step "$name" "$limit" "$here"/$command
done
find "$TEST_TMPDIR" -name '*.out' -exec sh -c \
  'for f; do echo "== $f"; tail -20 "$f"; done' _ {} + > "$out/rank_outputs.log" 2>/dev/null
cat "$out/summary.txt"
