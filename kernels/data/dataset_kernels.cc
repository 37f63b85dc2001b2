// The tfrt_data ops that make datasets. Each returns a !tfrt_data.dataset
// (a data::DatasetRef), or the factory's error naming the op.
#include <cstdint>

#include "kernels/data/data_kernels_internal.h"
#include "sluice/data/datasets.h"
#include "sluice/kernel/kernel_binding.h"

namespace sluice {
namespace data_kernels {
namespace {

using data::DatasetRef;

// It reads its frame only so that loading accepts the op's element_type, a
// type attribute that no kernel parameter reads; the verifier lets i64
// alone through.
absl::StatusOr<DatasetRef> RangeDataset(int64_t start, int64_t stop,
                                        int64_t step, KernelFrame*) {
  return data::MakeRangeDataset(start, stop, step, DType::kI64);
}

absl::StatusOr<DatasetRef> GaussianClustersDataset(
    Attribute<int64_t> num_examples, OptionalAttribute<int64_t> first_example,
    Attribute<int64_t> num_features, Attribute<int64_t> num_classes,
    Attribute<int64_t> seed, Attribute<double> stddev) {
  data::GaussianClustersOptions options;
  options.num_examples = *num_examples;
  options.first_example = first_example.value_or(0);
  options.num_features = *num_features;
  options.num_classes = *num_classes;
  options.seed = static_cast<uint64_t>(*seed);
  options.stddev = *stddev;
  return data::MakeGaussianClustersDataset(options);
}

absl::StatusOr<DatasetRef> ShardDataset(const DatasetRef& input,
                                        int64_t num_shards, int64_t index) {
  return data::MakeShardDataset(input, num_shards, index);
}

absl::StatusOr<DatasetRef> BatchDataset(
    const DatasetRef& input, int64_t batch_size,
    OptionalAttribute<bool> drop_remainder) {
  return data::MakeBatchDataset(input, batch_size,
                                drop_remainder.value_or(false));
}

absl::StatusOr<DatasetRef> RepeatDataset(const DatasetRef& input,
                                         int64_t count) {
  return data::MakeRepeatDataset(input, count);
}

}  // namespace

absl::Status RegisterDatasetKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_data.range_dataset", SLUICE_KERNEL(RangeDataset)},
      {"tfrt_data.gaussian_clusters_dataset",
       SLUICE_KERNEL(GaussianClustersDataset)
           .WithAttributeNames({"num_examples", "first_example", "num_features",
                                "num_classes", "seed", "stddev"})},
      {"tfrt_data.shard_dataset", SLUICE_KERNEL(ShardDataset)},
      {"tfrt_data.batch_dataset",
       SLUICE_KERNEL(BatchDataset).WithAttributeNames({"drop_remainder"})},
      {"tfrt_data.repeat_dataset", SLUICE_KERNEL(RepeatDataset)},
  });
}

}  // namespace data_kernels
}  // namespace sluice
