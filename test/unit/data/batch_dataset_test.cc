// batch_dataset's memory follows the rows it reads: a batch_size far beyond
// the data ends the data (OUT_OF_RANGE) or gives one batch of what there
// is, without allocating batch_size rows, and a batch larger than the
// first allocation grows with its rows intact.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/data/datasets.h"
#include "sluice/data/iterator.h"
#include "sluice/host_context/host_allocator.h"

namespace sluice {
namespace data {
namespace {

using ::testing::ElementsAre;

// Remembers the largest request it served.
class LargestRequest final : public HostAllocator {
 public:
  void* AllocateBytes(size_t size, size_t alignment) override {
    largest_ = std::max(largest_, size);
    return malloc_->AllocateBytes(size, alignment);
  }
  void DeallocateBytes(void* ptr, size_t size) override {
    malloc_->DeallocateBytes(ptr, size);
  }
  size_t largest() const { return largest_; }

 private:
  std::unique_ptr<HostAllocator> malloc_ = CreateMallocAllocator();
  size_t largest_ = 0;
};

// `count` elements of one f32 [kRowFloats] tensor (1 MiB), element i all
// i: rows wide enough that 64 of them fill the first allocation.
constexpr int64_t kRowFloats = int64_t{1} << 18;

class WideRows final : public Dataset {
 public:
  explicit WideRows(int64_t count) : count_(count) {}

  std::unique_ptr<ElementReader> MakeReader(
      HostAllocator* allocator) const override {
    return std::make_unique<Reader>(count_, allocator);
  }

 private:
  class Reader final : public ElementReader {
   public:
    Reader(int64_t count, HostAllocator* allocator)
        : count_(count), allocator_(allocator) {}

    absl::StatusOr<bool> Next(Element& element) override {
      if (next_ == count_) return false;
      std::vector<float> values(kRowFloats, static_cast<float>(next_++));
      absl::StatusOr<DenseHostTensor> row = DenseHostTensor::FromValues<float>(
          TensorShape({kRowFloats}), values, allocator_);
      if (!row.ok()) return row.status();
      element = {*std::move(row)};
      return true;
    }

   private:
    const int64_t count_;
    HostAllocator* const allocator_;
    int64_t next_ = 0;
  };

  const int64_t count_;
};

DatasetRef Range(int64_t stop) {
  absl::StatusOr<DatasetRef> range = MakeRangeDataset(0, stop, 1, DType::kI64);
  EXPECT_TRUE(range.ok()) << range.status();
  return *range;
}

DatasetRef Batch(DatasetRef input, int64_t batch_size, bool drop_remainder) {
  absl::StatusOr<DatasetRef> batches =
      MakeBatchDataset(std::move(input), batch_size, drop_remainder);
  EXPECT_TRUE(batches.ok()) << batches.status();
  return *batches;
}

TEST(BatchDatasetTest, DroppedHugeBatchEndsTheDataWithoutAllocatingIt) {
  for (int64_t batch_size :
       {int64_t{1} << 40, std::numeric_limits<int64_t>::max()}) {
    LargestRequest allocator;
    Iterator iterator(*Batch(Range(5), batch_size, true), &allocator);
    for (int call = 0; call < 2; ++call) {
      absl::StatusOr<Element> batch = iterator.GetNext();
      EXPECT_EQ(batch.status().code(), absl::StatusCode::kOutOfRange)
          << batch_size << ": " << batch.status();
      EXPECT_EQ(std::string(batch.status().message()),
                "the iterator is exhausted after 0 elements");
    }
    EXPECT_LE(allocator.largest(), size_t{64} << 20) << batch_size;
  }
}

TEST(BatchDatasetTest, KeptHugeBatchHoldsWhatThereIs) {
  LargestRequest allocator;
  Iterator iterator(
      *Batch(Range(5), std::numeric_limits<int64_t>::max(), false), &allocator);
  absl::StatusOr<Element> batch = iterator.GetNext();
  ASSERT_TRUE(batch.ok()) << batch.status();
  ASSERT_EQ(batch->size(), 1u);
  EXPECT_THAT((*batch)[0].shape().dims(), ElementsAre(5));
  EXPECT_THAT((*batch)[0].values<int64_t>(), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_EQ(iterator.GetNext().status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_LE(allocator.largest(), size_t{64} << 20);
}

// Row i holds i in its first and last value.
void ExpectRows(const DenseHostTensor& batch, int64_t rows) {
  ASSERT_THAT(batch.shape().dims(), ElementsAre(rows, kRowFloats));
  absl::Span<const float> values = batch.values<float>();
  for (int64_t i = 0; i < rows; ++i) {
    EXPECT_EQ(values[i * kRowFloats], i) << "row " << i;
    EXPECT_EQ(values[(i + 1) * kRowFloats - 1], i) << "row " << i;
  }
}

TEST(BatchDatasetTest, BatchPastTheFirstAllocationGrowsWithItsRows) {
  std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();
  // 70 rows of 1 MiB: 64 fit the first allocation, the rest need a larger
  // one, whole (batch_size 70) or cut short by the data (batch_size 100).
  for (int64_t batch_size : {70, 100}) {
    Iterator iterator(*Batch(std::make_shared<WideRows>(70), batch_size, false),
                      allocator.get());
    absl::StatusOr<Element> batch = iterator.GetNext();
    ASSERT_TRUE(batch.ok()) << batch.status();
    ASSERT_EQ(batch->size(), 1u);
    ExpectRows((*batch)[0], 70);
    EXPECT_EQ(iterator.GetNext().status().code(),
              absl::StatusCode::kOutOfRange);
  }
  Iterator dropped(*Batch(std::make_shared<WideRows>(70), 100, true),
                   allocator.get());
  EXPECT_EQ(dropped.GetNext().status().code(), absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace data
}  // namespace sluice
