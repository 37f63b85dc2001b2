// Matrix product of two f32 matrices through Sluice's MatMul (checks, a
// result tensor from the host allocator, Eigen's GEMM on mapped buffers) and
// through Eigen called directly on matrices of its own, in one binary, so
// the ratio of the two is what Sluice's wrapping costs.
#include <cstdint>
#include <cstring>

#include "Eigen/Core"
#include "benchmark/benchmark.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/matmul.h"
#include "sluice/tensor/random.h"

namespace sluice {
namespace {

using RowMajorMatrixF =
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

DenseHostTensor RandomMatrix(int64_t n, uint64_t seed,
                             HostAllocator* allocator) {
  return *RandomUniform(DType::kF32, TensorShape{n, n}, -1, 1, seed, allocator);
}

// 2 n^3 floating-point operations per product.
void SetFlops(benchmark::State& state, int64_t n) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

void BM_SluiceMatMulF32(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();
  DenseHostTensor a = RandomMatrix(n, 1, allocator.get());
  DenseHostTensor b = RandomMatrix(n, 2, allocator.get());
  for (auto _ : state) {
    absl::StatusOr<DenseHostTensor> c =
        MatMul(a, b, false, false, allocator.get());
    benchmark::DoNotOptimize(c->raw_data());
  }
  SetFlops(state, n);
}
BENCHMARK(BM_SluiceMatMulF32)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);

// The same values, in Eigen matrices; the product goes into a matrix made
// once, which is as little as Eigen can be asked to do.
void BM_EigenMatMulF32(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();
  RowMajorMatrixF a(n, n), b(n, n), c(n, n);
  std::memcpy(a.data(), RandomMatrix(n, 1, allocator.get()).raw_data(),
              n * n * sizeof(float));
  std::memcpy(b.data(), RandomMatrix(n, 2, allocator.get()).raw_data(),
              n * n * sizeof(float));
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  SetFlops(state, n);
}
BENCHMARK(BM_EigenMatMulF32)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sluice
