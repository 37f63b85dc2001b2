#!/bin/bash
# Builds one of the seeded fuzz targets (test/fuzz/<target>_fuzzer.cc) under
# libFuzzer with clang-14 (Debian's clang-14 and libclang-rt-14-dev), and
# writes its starting corpus and dictionary, so that it can be fuzzed with
# coverage guidance:
#
#   test/fuzz/build_libfuzzer_target.sh fault_spec /tmp/fuzz
#   /tmp/fuzz/fault_spec_fuzzer -max_total_time=300 -max_len=4096 \
#       -dict=/tmp/fuzz/fault_spec.dict /tmp/fuzz/fault_spec_corpus
#
# Only the target and the parser's own sources are compiled here, with
# coverage instrumentation, AddressSanitizer and UBSan; everything else
# comes from the shared libraries the target's Bazel test links (built
# first with gcc), so the build takes seconds. A crash leaves crash-<hash>
# in the working directory; replay it under the sanitizers with the suite's
# driver (`bazel run --config=asan //test/fuzz:<target>_fuzz_test --
# --runs=0 $PWD/crash-<hash>`) and add it to test/fuzz/seeds/<target>/.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 TARGET OUT_DIR (TARGET: checkpoint, cluster_spec, ...)" >&2
  exit 2
fi
target=$1
out=$(realpath -m "$2")

# The sources whose branches the fuzzer should see, besides the target.
case "$target" in
  checkpoint)
    sources=(lib/checkpoint/checkpoint.cc lib/checkpoint/checkpoint_files.cc
             lib/checkpoint/checkpoint_format.cc) ;;
  cluster_spec) sources=(lib/distributed/cluster_spec.cc) ;;
  etcd_client) sources=(lib/lighthouse/etcd_client.cc) ;;
  fault_spec) sources=(lib/support/fault_spec.cc lib/support/failure.cc) ;;
  launcher_jobs)
    sources=(lib/launcher/launcher_cluster.cc lib/distributed/cluster_spec.cc) ;;
  replica_state)
    sources=(lib/ft/tensor_replica_state.cc lib/tensor/tensor_shape.cc) ;;
  value_codec)
    sources=(lib/distributed/value_codec.cc lib/distributed/tensor_codec.cc
             lib/distributed/cluster_spec.cc lib/support/failure.cc
             lib/tensor/tensor_shape.cc) ;;
  *) echo "unknown target '$target'" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/../.."
bazel build "//test/fuzz:${target}_fuzz_test"
bin=bazel-bin/test/fuzz/${target}_fuzz_test
mkdir -p "$out"
rm -rf "$out/${target}_corpus"
seeds=()
if [[ -d test/fuzz/seeds/$target ]]; then seeds=("test/fuzz/seeds/$target"); fi
"$bin" --runs=0 --corpus_out="$out/${target}_corpus" \
    --dict_out="$out/${target}.dict" "${seeds[@]}"

# The libraries the test links, less the target itself (compiled here),
# where the dynamic linker finds them. Bazel links LLVM's static libraries
# into them; libLLVM-19 stands in here.
libs=()
rpaths=()
while read -r name path; do
  case "$name" in
    *fuzzer_Ulib* | libc.so* | libm.so* | libgcc_s.so* | libstdc++.so*) ;;
    *)
      libs+=("$path")
      rpaths+=("$(dirname "$path")")
      ;;
  esac
done < <(ldd "$bin" | sed -n 's/^\s*\(\S*\) => \(\/\S*\) .*/\1 \2/p')
rpath=$(printf '%s\n' "${rpaths[@]}" /usr/lib/llvm-19/lib | sort -u | paste -sd:)

clang++-14 -std=c++17 -fsized-deallocation -g -O1 \
    -fsanitize=fuzzer,address,undefined \
    -DCPPHTTPLIB_OPENSSL_SUPPORT -DCPPHTTPLIB_ZLIB_SUPPORT \
    -DCPPHTTPLIB_BROTLI_SUPPORT \
    -I. -Iinclude -Ibazel-bin -I/usr/lib/llvm-19/include \
    "test/fuzz/${target}_fuzzer.cc" "${sources[@]}" \
    -Wl,--no-as-needed "${libs[@]}" -L/usr/lib/llvm-19/lib -lLLVM-19 \
    -Wl,-rpath,"$rpath" \
    -o "$out/${target}_fuzzer"
echo "built $out/${target}_fuzzer; corpus $out/${target}_corpus," \
    "dictionary $out/${target}.dict"
