// tfrt_data.shard_dataset: every num_shards-th element of the input, from
// element `index` on.
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sluice/data/datasets.h"

namespace sluice {
namespace data {
namespace {

class ShardReader : public ElementReader {
 public:
  ShardReader(std::unique_ptr<ElementReader> input, int64_t num_shards,
              int64_t index)
      : input_(std::move(input)), num_shards_(num_shards), pending_(index) {}

  absl::StatusOr<bool> Next(Element& element) override {
    absl::StatusOr<bool> positioned = SkipPending();
    if (!positioned.ok() || !*positioned) return positioned;
    absl::StatusOr<bool> more = input_->Next(element);
    if (more.ok() && *more) pending_ = num_shards_ - 1;
    return more;
  }

  // Row by row, so that the input writes each one in place.
  absl::StatusOr<int64_t> ReadRows(Element& batch, int64_t row,
                                   int64_t count) override {
    for (int64_t read = 0; read < count; ++read) {
      absl::StatusOr<bool> positioned = SkipPending();
      if (!positioned.ok()) return positioned.status();
      if (!*positioned) return read;
      absl::StatusOr<int64_t> one = input_->ReadRows(batch, row + read, 1);
      if (!one.ok()) return one;
      if (*one == 0) return read;
      pending_ = num_shards_ - 1;
    }
    return count;
  }

 private:
  // Passes over the input's elements of other shards before this shard's
  // next one; false when the input ended among them (and so stays ended).
  absl::StatusOr<bool> SkipPending() {
    if (pending_ == 0) return true;
    absl::StatusOr<int64_t> skipped = input_->Skip(pending_);
    if (!skipped.ok()) return skipped.status();
    const bool reached = *skipped == pending_;
    pending_ = 0;
    return reached;
  }

  const std::unique_ptr<ElementReader> input_;
  const int64_t num_shards_;
  // Input elements to pass over before the next element of this shard.
  int64_t pending_;
};

class ShardDataset : public Dataset {
 public:
  ShardDataset(DatasetRef input, int64_t num_shards, int64_t index)
      : input_(std::move(input)), num_shards_(num_shards), index_(index) {}

  std::unique_ptr<ElementReader> MakeReader(
      HostAllocator* allocator) const override {
    return std::make_unique<ShardReader>(input_->MakeReader(allocator),
                                         num_shards_, index_);
  }

 private:
  const DatasetRef input_;
  const int64_t num_shards_;
  const int64_t index_;
};

}  // namespace

absl::StatusOr<DatasetRef> MakeShardDataset(DatasetRef input,
                                            int64_t num_shards, int64_t index) {
  if (num_shards <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shard_dataset: num_shards must be positive, got ", num_shards));
  }
  if (index < 0 || index >= num_shards) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shard_dataset: index ", index, " is outside [0, ", num_shards, ")"));
  }
  return std::make_shared<ShardDataset>(std::move(input), num_shards, index);
}

}  // namespace data
}  // namespace sluice
