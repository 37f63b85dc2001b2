// tfrt_data.batch_dataset: consecutive elements stacked along a new first
// dimension, the input writing its elements straight into the batch.
#include <algorithm>
#include <cstdint>
#include <cstring>
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

// The bytes a batch's buffers start with. A batch of this size or less is
// allocated once, whole; a larger one starts at this size and doubles as
// its rows arrive, so that a batch_size far beyond the data (up to
// 2^63 - 1) costs only the rows the data has.
constexpr int64_t kFirstBatchBytes = int64_t{64} << 20;

// Tensors of `rows` rows shaped like the components of `element`.
absl::StatusOr<Element> AllocateRows(const Element& element, int64_t rows,
                                     HostAllocator* allocator) {
  Element batch;
  batch.reserve(element.size());
  for (const DenseHostTensor& part : element) {
    absl::StatusOr<TensorShape> shape = Stacked(rows, part.shape());
    if (!shape.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "batch_dataset: cannot stack ", rows, " elements of shape ",
          part.shape().ToString(), ": ", shape.status().message()));
    }
    absl::StatusOr<DenseHostTensor> tensor =
        DenseHostTensor::Create(part.dtype(), *std::move(shape), allocator);
    if (!tensor.ok()) return tensor.status();
    batch.push_back(*std::move(tensor));
  }
  return batch;
}

// The first `rows` rows of `batch` in new tensors of `capacity` rows,
// shaped after `first`, the batch's first element.
absl::StatusOr<Element> Grow(const Element& first, const Element& batch,
                             int64_t rows, int64_t capacity,
                             HostAllocator* allocator) {
  absl::StatusOr<Element> larger = AllocateRows(first, capacity, allocator);
  if (!larger.ok()) return larger;
  for (size_t i = 0; i < batch.size(); ++i) {
    const size_t bytes = static_cast<size_t>(rows) * first[i].num_bytes();
    if (bytes != 0) {
      std::memcpy((*larger)[i].raw_data(), batch[i].raw_data(), bytes);
    }
  }
  return larger;
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
    int64_t row_bytes = 0;
    for (const DenseHostTensor& part : first) {
      row_bytes += static_cast<int64_t>(part.num_bytes());
    }
    // A row of no bytes counts as one, which keeps the first rows bounded.
    int64_t capacity = std::min(
        batch_size_, std::max<int64_t>(1, kFirstBatchBytes /
                                              std::max<int64_t>(row_bytes, 1)));
    absl::StatusOr<Element> batch = AllocateRows(first, capacity, allocator_);
    if (!batch.ok()) return batch.status();
    if (absl::Status copied = CopyIntoRow(first, *batch, 0); !copied.ok()) {
      return copied;
    }
    int64_t rows = 1;
    while (rows < batch_size_) {
      if (rows == capacity) {
        capacity = capacity > batch_size_ / 2 ? batch_size_ : capacity * 2;
        batch = Grow(first, *batch, rows, capacity, allocator_);
        if (!batch.ok()) return batch.status();
      }
      const int64_t wanted = capacity - rows;
      absl::StatusOr<int64_t> read = input_->ReadRows(*batch, rows, wanted);
      if (!read.ok()) return read.status();
      rows += *read;
      if (*read < wanted) break;  // the data ended
    }
    // The data ended short of a whole batch, however large batch_size is.
    if (rows < batch_size_ && drop_remainder_) return false;
    if (rows < capacity) {
      // The last batch: the first rows of the buffers, shared.
      for (size_t i = 0; i < batch->size(); ++i) {
        absl::StatusOr<TensorShape> shape = Stacked(rows, first[i].shape());
        absl::StatusOr<DenseHostTensor> prefix =
            shape.ok() ? DenseHostTensor::Create((*batch)[i].dtype(),
                                                 *std::move(shape),
                                                 (*batch)[i].buffer().CopyRef())
                       : shape.status();
        if (!prefix.ok()) return prefix.status();
        (*batch)[i] = *std::move(prefix);
      }
    }
    element = *std::move(batch);
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
