// f32 sums through Sluice's ReduceSum / ReduceSumAll (every term added in
// f64, pairwise) against the f32 Eigen expression they replaced, which is
// faster where it is right and wrong past 2^24 terms. Both in one binary,
// over the same values, so the ratio is what the accuracy costs.
#include <cstdint>
#include <memory>
#include <utility>

#include "Eigen/Core"
#include "benchmark/benchmark.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/random.h"
#include "sluice/tensor/reductions.h"

namespace sluice {
namespace {

using RowMajorArrayF =
    Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

DenseHostTensor RandomTensor(TensorShape shape, HostAllocator* allocator) {
  return *RandomUniform(DType::kF32, std::move(shape), -1, 1, 1, allocator);
}

void SetBytes(benchmark::State& state, int64_t elements) {
  state.SetBytesProcessed(state.iterations() * elements *
                          static_cast<int64_t>(sizeof(float)));
}

// The reduction before f64 accumulation, as lib/tensor/reductions.cc wrote
// it: the [size, inner] slice of each outer index, summed column by column
// in f32.
void OldEigenSum(const float* in, int64_t outer, int64_t size, int64_t inner,
                 float* out) {
  for (int64_t o = 0; o < outer; ++o) {
    Eigen::Map<const RowMajorArrayF> slice(in + o * size * inner, size, inner);
    Eigen::Map<RowMajorArrayF> reduced(out + o * inner, 1, inner);
    reduced = slice.colwise().sum();
  }
}

void BM_SluiceSumAllF32(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();
  DenseHostTensor x = RandomTensor(TensorShape{n}, allocator.get());
  for (auto _ : state) {
    absl::StatusOr<DenseHostTensor> sum = ReduceSumAll(x, allocator.get());
    benchmark::DoNotOptimize(sum->raw_data());
  }
  SetBytes(state, n);
}
BENCHMARK(BM_SluiceSumAllF32)
    ->Arg(1 << 12)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Arg(1 << 24)
    ->Unit(benchmark::kMicrosecond);

void BM_OldEigenSumAllF32(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();
  DenseHostTensor x = RandomTensor(TensorShape{n}, allocator.get());
  float sum = 0;
  for (auto _ : state) {
    OldEigenSum(x.values<float>().data(), 1, n, 1, &sum);
    benchmark::DoNotOptimize(sum);
  }
  SetBytes(state, n);
}
BENCHMARK(BM_OldEigenSumAllF32)
    ->Arg(1 << 12)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Arg(1 << 24)
    ->Unit(benchmark::kMicrosecond);

// A [1024, 1024] matrix summed over axis 0 (columns: the f64 row blocks)
// and axis 1 (rows: a pairwise sum of each contiguous row).
void BM_SluiceSumAxisF32(benchmark::State& state) {
  const int64_t axis = state.range(0);
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();
  DenseHostTensor x = RandomTensor(TensorShape{1024, 1024}, allocator.get());
  for (auto _ : state) {
    absl::StatusOr<DenseHostTensor> sum = ReduceSum(x, axis, allocator.get());
    benchmark::DoNotOptimize(sum->raw_data());
  }
  SetBytes(state, 1024 * 1024);
}
BENCHMARK(BM_SluiceSumAxisF32)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_OldEigenSumAxisF32(benchmark::State& state) {
  const int64_t axis = state.range(0);
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();
  DenseHostTensor x = RandomTensor(TensorShape{1024, 1024}, allocator.get());
  DenseHostTensor result = RandomTensor(TensorShape{1024}, allocator.get());
  float* out = result.mutable_values<float>().data();
  for (auto _ : state) {
    if (axis == 0) {
      OldEigenSum(x.values<float>().data(), 1, 1024, 1024, out);
    } else {
      OldEigenSum(x.values<float>().data(), 1024, 1024, 1, out);
    }
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  SetBytes(state, 1024 * 1024);
}
BENCHMARK(BM_OldEigenSumAxisF32)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sluice
