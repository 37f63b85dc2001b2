// tfrt_data.range_dataset: start, start + step, ... below stop (above it
// for a negative step), as rank-0 i32 or i64 tensors.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "sluice/data/datasets.h"

namespace sluice {
namespace data {
namespace {

// How many values the range has, in unsigned arithmetic so that no
// difference of two int64 values overflows.
int64_t RangeSize(int64_t start, int64_t stop, int64_t step) {
  if (step > 0 && start < stop) {
    const uint64_t span = static_cast<uint64_t>(stop) - start;
    return static_cast<int64_t>((span - 1) / static_cast<uint64_t>(step) + 1);
  }
  if (step < 0 && start > stop) {
    const uint64_t span = static_cast<uint64_t>(start) - stop;
    const uint64_t stride = uint64_t{0} - static_cast<uint64_t>(step);
    return static_cast<int64_t>((span - 1) / stride + 1);
  }
  return 0;
}

class RangeReader : public ElementReader {
 public:
  RangeReader(int64_t start, int64_t step, int64_t size, DType dtype,
              HostAllocator* allocator)
      : start_(start),
        step_(step),
        size_(size),
        dtype_(dtype),
        allocator_(allocator) {}

  absl::StatusOr<bool> Next(Element& element) override {
    if (next_ == size_) return false;
    absl::StatusOr<DenseHostTensor> value =
        DenseHostTensor::Create(dtype_, TensorShape{}, allocator_);
    if (!value.ok()) return value.status();
    Write(*value, 0, ValueAt(next_++));
    element.assign(1, *std::move(value));
    return true;
  }

  absl::StatusOr<int64_t> ReadRows(Element& batch, int64_t row,
                                   int64_t count) override {
    if (batch.size() != 1 || batch[0].dtype() != dtype_ ||
        batch[0].shape().rank() != 1) {
      return ElementReader::ReadRows(batch, row, count);
    }
    const int64_t read = std::min(count, size_ - next_);
    for (int64_t i = 0; i < read; ++i) {
      Write(batch[0], row + i, ValueAt(next_++));
    }
    return read;
  }

  absl::StatusOr<int64_t> Skip(int64_t count) override {
    const int64_t skipped = std::min(count, size_ - next_);
    next_ += skipped;
    return skipped;
  }

 private:
  // Wraps like two's complement; the factory made sure every value fits.
  int64_t ValueAt(int64_t index) const {
    return static_cast<int64_t>(static_cast<uint64_t>(start_) +
                                static_cast<uint64_t>(index) *
                                    static_cast<uint64_t>(step_));
  }

  void Write(DenseHostTensor& tensor, int64_t position, int64_t value) const {
    if (dtype_ == DType::kI32) {
      tensor.mutable_values<int32_t>()[position] = static_cast<int32_t>(value);
    } else {
      tensor.mutable_values<int64_t>()[position] = value;
    }
  }

  const int64_t start_;
  const int64_t step_;
  const int64_t size_;
  const DType dtype_;
  HostAllocator* const allocator_;
  int64_t next_ = 0;
};

class RangeDataset : public Dataset {
 public:
  RangeDataset(int64_t start, int64_t step, int64_t size, DType dtype)
      : start_(start), step_(step), size_(size), dtype_(dtype) {}

  std::unique_ptr<ElementReader> MakeReader(
      HostAllocator* allocator) const override {
    return std::make_unique<RangeReader>(start_, step_, size_, dtype_,
                                         allocator);
  }

 private:
  const int64_t start_;
  const int64_t step_;
  const int64_t size_;
  const DType dtype_;
};

bool FitsI32(int64_t value) {
  return value >= std::numeric_limits<int32_t>::min() &&
         value <= std::numeric_limits<int32_t>::max();
}

}  // namespace

absl::StatusOr<DatasetRef> MakeRangeDataset(int64_t start, int64_t stop,
                                            int64_t step, DType dtype) {
  if (dtype != DType::kI32 && dtype != DType::kI64) {
    return absl::InvalidArgumentError(
        absl::StrCat("range_dataset: element type ", DTypeName(dtype),
                     " is not i32 or i64"));
  }
  if (step == 0) {
    return absl::InvalidArgumentError("range_dataset: step must not be 0");
  }
  const int64_t size = RangeSize(start, stop, step);
  if (dtype == DType::kI32 && size > 0) {
    // The values lie between start and the last value, so those two decide.
    const int64_t last = static_cast<int64_t>(static_cast<uint64_t>(start) +
                                              static_cast<uint64_t>(size - 1) *
                                                  static_cast<uint64_t>(step));
    if (!FitsI32(start) || !FitsI32(last)) {
      return absl::InvalidArgumentError(
          absl::StrCat("range_dataset: values from ", start, " to ", last,
                       " do not fit in i32"));
    }
  }
  return std::make_shared<RangeDataset>(start, step, size, dtype);
}

}  // namespace data
}  // namespace sluice
