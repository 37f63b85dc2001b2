#!/usr/bin/env bash
# What mutual TLS costs a remote call: remote_call_benchmark's round trips,
# its 4 MiB tensor call and a new connection's first call, in plaintext and
# over TLS (a throwaway CA and certificate made here with openssl), each run
# REPETITIONS times; prints the medians and TLS / plaintext per benchmark.
#
#   benchmarks/tls_overhead.sh [REPETITIONS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."

repetitions="${1:-5}"
filter='BM_(SluiceEmpty|GrpcEmpty|Sluice64KiB|Sluice4MiBTensor|Grpc4MiB|GrpcNewConnection)/real_time$'
bazel build //benchmarks:remote_call_benchmark >&2
binary=bazel-bin/benchmarks/remote_call_benchmark

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(
  cd "$dir"
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' >leaf.ext
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout ca.key -out ca.pem -days 1 -subj /CN=bench-ca
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout leaf.key -out leaf.csr -subj /CN=bench
  openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
    -out leaf.pem -days 1 -extfile leaf.ext
) >"$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log" >&2; exit 1; }

# Writes the results to $1 (JSON); the console output goes to stderr.
run() {
  "$binary" --benchmark_filter="$filter" \
    --benchmark_repetitions="$repetitions" \
    --benchmark_report_aggregates_only=true \
    --benchmark_out="$1" --benchmark_out_format=json >&2
}

run "$dir/plain.json"
SLUICE_TLS_CERT="$dir/leaf.pem" SLUICE_TLS_KEY="$dir/leaf.key" \
  SLUICE_TLS_CA="$dir/ca.pem" run "$dir/tls.json"

python3 - "$dir/plain.json" "$dir/tls.json" <<'EOF'
import json, sys

def medians(path):
    runs = json.load(open(path))["benchmarks"]
    return {r["run_name"]: r["real_time"] for r in runs
            if r.get("aggregate_name") == "median"}

plain, tls = medians(sys.argv[1]), medians(sys.argv[2])
print("%-34s %12s %12s %8s" % ("benchmark (median us)", "plaintext", "tls",
                                "ratio"))
for name in plain:
    if name in tls:
        print("%-34s %12.1f %12.1f %7.2fx" % (name, plain[name], tls[name],
                                              tls[name] / plain[name]))
EOF
