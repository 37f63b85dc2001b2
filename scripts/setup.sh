#!/usr/bin/env bash
# Installs the Debian packages Sluice builds and tests with, and nothing
# else. Safe to run again: it installs only what is missing.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap   # the build (Bazel 4.2.3, offline)
  g++
  libabsl-dev       # absl::Status, StatusOr, strings, time
  libgtest-dev      # unit tests
  libgmock-dev
  libbenchmark-dev  # benchmarks/
  llvm-19-dev       # LLVM Support: the compiler, and kernels that opt into llvm::Expected
  libmlir-19-dev    # dialects/ and the tools: MLIR IR, parser, passes
  mlir-19-tools     # mlir-tblgen for the dialects' ODS files
  llvm-19-tools     # FileCheck for the tools' tests
  zlib1g-dev        # CRC-32 (lib/support/crc32.cc); LLVM Support links it too
  libxxhash-dev     # XXH3: the fingerprint of programs sent to workers
  libgrpc++-dev     # lib/distributed: remote execution over gRPC
  libprotobuf-dev
  protobuf-compiler # protoc, for the .proto files
  protobuf-compiler-grpc  # grpc_cpp_plugin
  libeigen3-dev     # lib/tensor: tensor math
  libgloo-dev       # lib/collective: CPU collectives over TCP
  libcpp-httplib-dev  # the lighthouse's status page, the etcd client
  nlohmann-json3-dev  # JSON: cluster specs, the etcd client
  etcd-server       # the lighthouses' shared authority (tests start it)
  chromium          # the status page's browser test
  nftables          # network-fault tests: drop or reject a port's traffic
  openssl           # TLS tests make their CAs and certificates with it
)

# The CUDA toolkit with NCCL is no Debian package, and Sluice builds without
# it: the build takes the runtime and NCCL from $CUDA_PATH (default
# /usr/local/cuda) when both are there, GPU or not, and otherwise builds
# without GPU support (third_party/cuda_configure.bzl, docs/gpu.md). This
# only tells which; it looks where the build does.
cuda="${CUDA_PATH:-/usr/local/cuda}"
has() { [ -e "$cuda/lib64/$1" ] || [ -e "$cuda/lib/$1" ]; }
if has libcudart.so && has libnccl.so && [ -e "$cuda/include/cuda_runtime_api.h" ] &&
    [ -e "$cuda/include/nccl.h" ]; then
  echo "setup: CUDA and NCCL found at $cuda; Sluice will build with GPU support"
else
  echo "setup: no CUDA toolkit with NCCL at $cuda; Sluice will build without GPU support"
fi

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages are installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
