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
  llvm-19-dev       # LLVM Support: llvm::Error / llvm::Expected
  libmlir-19-dev    # dialects/ and the tools: MLIR IR, parser, passes
  mlir-19-tools     # mlir-tblgen for the dialects' ODS files
  llvm-19-tools     # FileCheck for the tools' tests
  zlib1g-dev        # LLVM Support links zlib
  libgrpc++-dev     # lib/distributed: remote execution over gRPC
  libprotobuf-dev
  protobuf-compiler # protoc, for the .proto files
  protobuf-compiler-grpc  # grpc_cpp_plugin
  libeigen3-dev     # lib/tensor: tensor math
  libgloo-dev       # lib/collective: CPU collectives over TCP
  libcpp-httplib-dev  # the lighthouse's status page, the etcd client
  nlohmann-json3-dev  # JSON for the etcd client
  etcd-server       # the lighthouses' shared authority (tests start it)
  chromium          # the status page's browser test
)

# The CUDA toolkit with NCCL is no Debian package: the build takes its
# runtime and NCCL from /usr/local/cuda (docs/gpu.md), GPU or not.
for file in /usr/local/cuda/lib64/libcudart.so /usr/local/cuda/lib64/libnccl.so \
    /usr/local/cuda/include/cuda_runtime_api.h /usr/local/cuda/include/nccl.h; do
  if [ ! -e "$file" ]; then
    echo "setup: $file is missing; install the CUDA toolkit and NCCL at /usr/local/cuda" >&2
    exit 1
  fi
done

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
