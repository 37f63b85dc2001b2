// tfrt_data.batch_dataset: consecutive elements stacked along a new first
// dimension, the input writing its elements straight into the batch.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sluice/data/datasets.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice {
namespace data {
namespace {

// [rows, ...dims].
absl::StatusOr<TensorShape> Stacked(int64_t rows, const TensorShape& shape) {
  std::vector<int64_t> dims;
  dims.reserve(shape.rank() + 1);
  dims.push_back(rows);
  dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
  return TensorShape::Create(dims);
}

class BatchReader : public ElementReader {
 public:
  BatchReader(std::unique_ptr<ElementReader> input, int64_t batch_size,
              bool drop_remainder, HostAllocator* allocator)
      : input_(std::move(input)),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder),
        allocator_(allocator) {}

  absl::StatusOr<bool> Next(Element& element) override {
    // The first element gives the batch its dtypes and shapes.
    Element first;
    absl::StatusOr<bool> more = input_->Next(first);
    if (!more.ok() || !*more) return more;
    Element batch;
    batch.reserve(first.size());
    for (const DenseHostTensor& part : first) {
      absl::StatusOr<TensorShape> shape = Stacked(batch_size_, part.shape());
      if (!shape.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "batch_dataset: cannot stack ", batch_size_, " elements of shape ",
            part.shape().ToString(), ": ", shape.status().message()));
      }
      absl::StatusOr<DenseHostTensor> rows =
          DenseHostTensor::Create(part.dtype(), *std::move(shape), allocator_);
      if (!rows.ok()) return rows.status();
      batch.push_back(*std::move(rows));
    }
    if (absl::Status copied = CopyIntoRow(first, batch, 0); !copied.ok()) {
      return copied;
    }
    absl::StatusOr<int64_t> rest = input_->ReadRows(batch, 1, batch_size_ - 1);
    if (!rest.ok()) return rest.status();
    const int64_t rows = 1 + *rest;
    if (rows < batch_size_) {
      if (drop_remainder_) return false;
      // The last batch: the first rows of the buffers, shared.
      for (size_t i = 0; i < batch.size(); ++i) {
        absl::StatusOr<TensorShape> shape = Stacked(rows, first[i].shape());
        absl::StatusOr<DenseHostTensor> prefix =
            shape.ok()
                ? DenseHostTensor::Create(batch[i].dtype(), *std::move(shape),
                                          batch[i].buffer().CopyRef())
                : shape.status();
        if (!prefix.ok()) return prefix.status();
        batch[i] = *std::move(prefix);
      }
    }
    element = std::move(batch);
    return true;
  }

 private:
  const std::unique_ptr<ElementReader> input_;
  const int64_t batch_size_;
  const bool drop_remainder_;
  HostAllocator* const allocator_;
};

class BatchDataset : public Dataset {
 public:
  BatchDataset(DatasetRef input, int64_t batch_size, bool drop_remainder)
      : input_(std::move(input)),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder) {}

  std::unique_ptr<ElementReader> MakeReader(
      HostAllocator* allocator) const override {
    return std::make_unique<BatchReader>(
        input_->MakeReader(allocator), batch_size_, drop_remainder_, allocator);
  }

 private:
  const DatasetRef input_;
  const int64_t batch_size_;
  const bool drop_remainder_;
};

}  // namespace

absl::StatusOr<DatasetRef> MakeBatchDataset(DatasetRef input,
                                            int64_t batch_size,
                                            bool drop_remainder) {
  if (batch_size <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch_dataset: batch_size must be positive, got ", batch_size));
  }
  return std::make_shared<BatchDataset>(std::move(input), batch_size,
                                        drop_remainder);
}

}  // namespace data
}  // namespace sluice
