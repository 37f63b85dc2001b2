// tfrt_data.gaussian_clusters_dataset: synthetic classification data whose
// every value is a pure function of the seed and the example's index
// (docs/datasets.md gives the definition this file implements).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/tensor/philox.h"
#include "lib/tensor/random_samples.h"
#include "sluice/data/datasets.h"

namespace sluice {
namespace data {
namespace {

using tensor_internal::NormalBlock;
using tensor_internal::PhiloxBlockAt;

// The Philox block counters of the seed's stream, split in three so that
// labels, centers and noise never share a block.
constexpr uint64_t kLabelBlocks = 0;
constexpr uint64_t kCenterBlocks = uint64_t{1} << 62;
constexpr uint64_t kNoiseBlocks = uint64_t{1} << 63;

// What every reader of one dataset shares: the options and the centers,
// num_classes rows of num_features values.
struct Clusters {
  GaussianClustersOptions options;
  std::vector<double> centers;
};

// Value k of the standard normal stream at kCenterBlocks.
std::vector<double> DrawCenters(uint64_t seed, int64_t count) {
  std::vector<double> centers(count);
  for (int64_t k = 0; k < count; k += 2) {
    const std::array<double, 2> pair =
        NormalBlock(seed, kCenterBlocks + k / 2, 0.0, 1.0);
    centers[k] = pair[0];
    if (k + 1 < count) centers[k + 1] = pair[1];
  }
  return centers;
}

class GaussianClustersReader : public ElementReader {
 public:
  GaussianClustersReader(std::shared_ptr<const Clusters> clusters,
                         HostAllocator* allocator)
      : clusters_(std::move(clusters)), allocator_(allocator) {}

  absl::StatusOr<bool> Next(Element& element) override {
    const GaussianClustersOptions& options = clusters_->options;
    if (next_ == options.num_examples) return false;
    absl::StatusOr<DenseHostTensor> features = DenseHostTensor::Create(
        DType::kF32, TensorShape{options.num_features}, allocator_);
    if (!features.ok()) return features.status();
    absl::StatusOr<DenseHostTensor> label =
        DenseHostTensor::Create(DType::kI32, TensorShape{}, allocator_);
    if (!label.ok()) return label.status();
    WriteExample(next_++, features->mutable_values<float>().data(),
                 label->mutable_values<int32_t>().data());
    element.clear();
    element.push_back(*std::move(features));
    element.push_back(*std::move(label));
    return true;
  }

  absl::StatusOr<int64_t> ReadRows(Element& batch, int64_t row,
                                   int64_t count) override {
    const GaussianClustersOptions& options = clusters_->options;
    if (batch.size() != 2 || batch[0].dtype() != DType::kF32 ||
        batch[0].shape().rank() != 2 ||
        batch[0].shape().dim(1) != options.num_features ||
        batch[1].dtype() != DType::kI32 || batch[1].shape().rank() != 1) {
      return ElementReader::ReadRows(batch, row, count);
    }
    float* features = batch[0].mutable_values<float>().data();
    int32_t* labels = batch[1].mutable_values<int32_t>().data();
    const int64_t read = std::min(count, options.num_examples - next_);
    for (int64_t i = row; i < row + read; ++i) {
      WriteExample(next_++, features + i * options.num_features, labels + i);
    }
    return read;
  }

  absl::StatusOr<int64_t> Skip(int64_t count) override {
    const int64_t skipped =
        std::min(count, clusters_->options.num_examples - next_);
    next_ += skipped;
    return skipped;
  }

 private:
  // Element `index` of this dataset: example first_example + index.
  void WriteExample(int64_t index, float* features, int32_t* label) const {
    const GaussianClustersOptions& options = clusters_->options;
    const uint64_t example = static_cast<uint64_t>(options.first_example) +
                             static_cast<uint64_t>(index);
    const uint64_t word =
        PhiloxBlockAt(options.seed, kLabelBlocks + example)[0];
    // Lemire's multiply-shift: word / 2^32 scaled to [0, num_classes).
    const int64_t cluster = static_cast<int64_t>(
        (word * static_cast<uint64_t>(options.num_classes)) >> 32);
    *label = static_cast<int32_t>(cluster);
    const int64_t width = options.num_features;
    const double* center = clusters_->centers.data() + cluster * width;
    const uint64_t blocks_per_example = static_cast<uint64_t>(width + 1) / 2;
    const uint64_t first_block = kNoiseBlocks + example * blocks_per_example;
    for (int64_t j = 0; j < width; j += 2) {
      const std::array<double, 2> noise =
          NormalBlock(options.seed, first_block + j / 2, 0.0, options.stddev);
      features[j] = static_cast<float>(center[j] + noise[0]);
      if (j + 1 < width) {
        features[j + 1] = static_cast<float>(center[j + 1] + noise[1]);
      }
    }
  }

  const std::shared_ptr<const Clusters> clusters_;
  HostAllocator* const allocator_;
  int64_t next_ = 0;
};

class GaussianClustersDataset : public Dataset {
 public:
  explicit GaussianClustersDataset(std::shared_ptr<const Clusters> clusters)
      : clusters_(std::move(clusters)) {}

  std::unique_ptr<ElementReader> MakeReader(
      HostAllocator* allocator) const override {
    return std::make_unique<GaussianClustersReader>(clusters_, allocator);
  }

 private:
  const std::shared_ptr<const Clusters> clusters_;
};

absl::Status CheckOptions(const GaussianClustersOptions& options) {
  const auto refuse = [](auto&&... parts) {
    return absl::InvalidArgumentError(
        absl::StrCat("gaussian_clusters_dataset: ", parts...));
  };
  if (options.num_examples < 0 || options.first_example < 0 ||
      options.num_examples >
          kMaxGaussianClustersExamples - options.first_example) {
    return refuse("examples [", options.first_example, ", ",
                  options.first_example, " + ", options.num_examples,
                  ") are not within [0, 2^40)");
  }
  if (options.num_features <= 0 ||
      options.num_features > kMaxGaussianClustersFeatures) {
    return refuse("num_features ", options.num_features,
                  " is not in [1, 2^20]");
  }
  if (options.num_classes <= 0 ||
      options.num_classes >
          kMaxGaussianClustersCenterValues / options.num_features) {
    return refuse("num_classes ", options.num_classes,
                  " must be positive, and num_classes * num_features ",
                  "at most 2^22 (num_features is ", options.num_features, ")");
  }
  if (!std::isfinite(options.stddev) || options.stddev < 0) {
    return refuse("stddev ", options.stddev,
                  " must be finite and not negative");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DatasetRef> MakeGaussianClustersDataset(
    const GaussianClustersOptions& options) {
  if (absl::Status checked = CheckOptions(options); !checked.ok()) {
    return checked;
  }
  auto clusters = std::make_shared<Clusters>();
  clusters->options = options;
  clusters->centers =
      DrawCenters(options.seed, options.num_classes * options.num_features);
  return std::make_shared<GaussianClustersDataset>(std::move(clusters));
}

}  // namespace data
}  // namespace sluice
