#!/usr/bin/env bash
# Builds the GPU tests and the NCCL benchmark and packs them into a folder
# (default: .device/ at the repository root) that runs on a machine with a
# GPU and no Bazel: copy the folder there and run its run-device-suite.sh.
# Every shared library the binaries load comes along, except glibc, the
# CUDA driver (libcuda) and NCCL, which must match that machine.
#   scripts/gpu/pack-device-suite.sh [DIR]
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
dir=$(realpath -m "${1:-$scripts/../../.device}")
cd "$scripts/../.."
# The explicit list, so that a renamed or missing target fails the pack.
targets=(
  //test/unit/gpu:gpu_device_test //test/unit/gpu:device_tensor_test
  //test/unit/gpu:event_poller_test //test/unit/gpu:cuda_status_test
  //test/unit/collective:nccl_gpu_group_test //test/unit/collective:nccl_group_test
  //test/unit/collective:nccl_comm_watch_test //test/unit/collective:nccl_real_api_test
  //test/integration/collective:nccl_process_test //test/integration/collective:ccl_rank
  //benchmarks:nccl_allreduce_benchmark
)
limit_mib=64
bazel build -c opt "${targets[@]}"
# A build without CUDA links the stand-in (docs/gpu.md, "Without CUDA"),
# whose tests would only skip on the GPU machine.
defs="$(bazel info output_base 2>/dev/null)/external/cuda/defs.bzl"
if ! grep -q '^HAS_CUDA = True$' "$defs"; then
  echo "pack: this build has no CUDA ($defs); set CUDA_PATH to a toolkit with NCCL" >&2
  exit 1
fi
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib" "$dir/sluice/test/integration/collective"
for t in "${targets[@]}"; do
  rel=${t#//}; pkg=${rel%%:*}; name=${rel##*:}
  f="$bin/$pkg/$name"
  [ -x "$f" ] || { echo "pack: $t built no executable at $f" >&2; exit 1; }
  cp -L "$f" "$dir/bin/$name"; chmod u+w "$dir/bin/$name"
  strip --strip-debug "$dir/bin/$name"
  ldd "$f" | awk '/=> \//{print $3}' | while read -r so; do
    base=$(basename "$so")
    case "$base" in
      # glibc, the driver and NCCL: the GPU machine's own.
      libc.so*|libm.so*|libmvec.so*|libdl.so*|librt.so*|libpthread.so*|\
      libresolv.so*|libutil.so*|libanl.so*|libnss_*|ld-linux*|\
      libcuda.so*|libnccl.so*) ;;
      *)
        [ -e "$dir/lib/$base" ] && continue
        cp -L "$so" "$dir/lib/"; chmod u+w "$dir/lib/$base"
        strip --strip-debug "$dir/lib/$base" 2>/dev/null || true ;;
    esac
  done
done
# Where RankProcess looks for ccl_rank: $TEST_SRCDIR/sluice/test/...
ln -sf ../../../../bin/ccl_rank "$dir/sluice/test/integration/collective/ccl_rank"
cp "$scripts/run-device-suite.sh" "$dir/"
git rev-parse HEAD > "$dir/REVISION" 2>/dev/null || true
git status --short --untracked-files=no >> "$dir/REVISION" 2>/dev/null || true
size=$(du -sm "$dir" | cut -f1)
echo "pack: $dir holds $size MiB (limit $limit_mib)"
if [ "$size" -ge "$limit_mib" ]; then
  echo "pack: $dir is $size MiB, over the $limit_mib MiB limit" >&2
  exit 1
fi
