// Iterator::GetNext of batches of gaussian_clusters examples, written in
// place into each batch's buffers: the cost of a training step's input.
#include <cstdint>
#include <memory>

#include "benchmark/benchmark.h"
#include "sluice/data/datasets.h"
#include "sluice/data/iterator.h"
#include "sluice/host_context/host_allocator.h"

namespace sluice {
namespace data {
namespace {

// Arguments: batch size, features. Sharded 1 of 4, as a worker reads it.
void BM_GaussianClustersBatch(benchmark::State& state) {
  const int64_t batch_size = state.range(0);
  GaussianClustersOptions options;
  options.num_examples = int64_t{1} << 30;
  options.num_features = state.range(1);
  options.num_classes = 10;
  options.seed = 1;
  options.stddev = 1.0;
  absl::StatusOr<DatasetRef> clusters = MakeGaussianClustersDataset(options);
  absl::StatusOr<DatasetRef> shard = MakeShardDataset(*clusters, 4, 1);
  absl::StatusOr<DatasetRef> batches =
      MakeBatchDataset(*shard, batch_size, true);
  if (!batches.ok()) {
    state.SkipWithError(batches.status().ToString().c_str());
    return;
  }
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();
  Iterator iterator(**batches, allocator.get());
  for (auto _ : state) {
    absl::StatusOr<Element> batch = iterator.GetNext();
    benchmark::DoNotOptimize(batch);
  }
  state.SetItemsProcessed(state.iterations() * batch_size);
}
BENCHMARK(BM_GaussianClustersBatch)->Args({64, 32})->Args({256, 32});

}  // namespace
}  // namespace data
}  // namespace sluice
