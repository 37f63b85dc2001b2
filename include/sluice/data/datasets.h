// The datasets of the tfrt_data dialect. Each factory checks its parameters
// and returns InvalidArgument, prefixed with the op's name, for those it
// refuses. docs/datasets.md gives their exact semantics.
#ifndef SLUICE_DATA_DATASETS_H_
#define SLUICE_DATA_DATASETS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "sluice/data/dataset.h"
#include "sluice/tensor/dtype.h"

namespace sluice {
namespace data {

// start, start + step, ... up to stop (exclusive), each a rank-0 tensor of
// `dtype` (i32 or i64). step must not be 0, and with i32 every value must
// fit in i32.
absl::StatusOr<DatasetRef> MakeRangeDataset(int64_t start, int64_t stop,
                                            int64_t step, DType dtype);

// Synthetic classification data: num_classes Gaussian clusters in
// num_features dimensions. Element i is example first_example + i, a pure
// function of (seed, first_example + i), so disjoint example ranges of one
// seed are disjoint splits of the same data (a training and an evaluation
// split, say).
struct GaussianClustersOptions {
  int64_t num_examples = 0;
  int64_t first_example = 0;
  int64_t num_features = 0;
  int64_t num_classes = 0;
  uint64_t seed = 0;
  // Of the noise around each center; centers are standard normal.
  double stddev = 1.0;
};

// The largest first_example + num_examples, num_features and
// num_classes * num_features the dataset accepts: they keep the random
// streams of labels, centers and noise apart (docs/datasets.md).
inline constexpr int64_t kMaxGaussianClustersExamples = int64_t{1} << 40;
inline constexpr int64_t kMaxGaussianClustersFeatures = int64_t{1} << 20;
inline constexpr int64_t kMaxGaussianClustersCenterValues = int64_t{1} << 22;

absl::StatusOr<DatasetRef> MakeGaussianClustersDataset(
    const GaussianClustersOptions& options);

// Elements index, index + num_shards, index + 2 num_shards, ... of `input`:
// shard `index` of `num_shards` disjoint shards that together cover it.
// num_shards > 0, 0 <= index < num_shards.
absl::StatusOr<DatasetRef> MakeShardDataset(DatasetRef input,
                                            int64_t num_shards, int64_t index);

// Consecutive elements of `input` stacked into batches: each component
// becomes a [n, ...component shape] tensor, n = batch_size but for a last,
// smaller batch, which drop_remainder leaves out. batch_size > 0. Elements
// of one batch must agree in dtype and shape (an error when read, if not).
absl::StatusOr<DatasetRef> MakeBatchDataset(DatasetRef input,
                                            int64_t batch_size,
                                            bool drop_remainder);

// `input` read `count` times over (count >= 0), or forever for count = -1;
// a forever repeat of an empty input is empty.
absl::StatusOr<DatasetRef> MakeRepeatDataset(DatasetRef input, int64_t count);

}  // namespace data
}  // namespace sluice

#endif  // SLUICE_DATA_DATASETS_H_
