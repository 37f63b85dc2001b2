// The datasets of lib/data read through an Iterator: their elements, their
// errors, and the exhausted iterator's OutOfRange with its exact count.
#include "sluice/data/datasets.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/data/iterator.h"
#include "sluice/host_context/host_allocator.h"

namespace sluice {
namespace data {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class DatasetsTest : public ::testing::Test {
 protected:
  // Every element's component values, as i64 (range) or the label (i32).
  template <typename T>
  std::vector<T> ReadAll(const DatasetRef& dataset, size_t component = 0) {
    Iterator iterator(*dataset, allocator_.get());
    std::vector<T> values;
    while (true) {
      absl::StatusOr<Element> element = iterator.GetNext();
      if (!element.ok()) {
        EXPECT_EQ(element.status().code(), absl::StatusCode::kOutOfRange);
        break;
      }
      for (T value : (*element)[component].values<T>()) values.push_back(value);
    }
    return values;
  }

  DatasetRef Range(int64_t start, int64_t stop, int64_t step = 1) {
    absl::StatusOr<DatasetRef> range =
        MakeRangeDataset(start, stop, step, DType::kI64);
    EXPECT_TRUE(range.ok()) << range.status();
    return *range;
  }

  static GaussianClustersOptions Clusters(int64_t num_examples) {
    GaussianClustersOptions options;
    options.num_examples = num_examples;
    options.num_features = 5;
    options.num_classes = 3;
    options.seed = 42;
    options.stddev = 0.25;
    return options;
  }

  std::unique_ptr<HostAllocator> allocator_ = CreateMallocAllocator();
};

TEST_F(DatasetsTest, RangeCountsUpAndDown) {
  EXPECT_THAT(ReadAll<int64_t>(Range(0, 5)), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_THAT(ReadAll<int64_t>(Range(10, 2, -3)), ElementsAre(10, 7, 4));
  EXPECT_THAT(ReadAll<int64_t>(Range(3, 3)), ElementsAre());
}

TEST_F(DatasetsTest, RangeOfI32RefusesValuesThatDoNotFit) {
  absl::StatusOr<DatasetRef> small = MakeRangeDataset(0, 3, 1, DType::kI32);
  ASSERT_TRUE(small.ok());
  EXPECT_THAT(ReadAll<int32_t>(*small), ElementsAre(0, 1, 2));
  absl::StatusOr<DatasetRef> big =
      MakeRangeDataset(0, int64_t{1} << 33, 1 << 30, DType::kI32);
  EXPECT_EQ(big.status().message(),
            "range_dataset: values from 0 to 7516192768 do not fit in i32");
  EXPECT_EQ(MakeRangeDataset(0, 1, 0, DType::kI64).status().message(),
            "range_dataset: step must not be 0");
}

TEST_F(DatasetsTest, ExhaustedIteratorSaysHowManyElementsItGave) {
  Iterator iterator(*Range(0, 3), allocator_.get());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(iterator.GetNext().ok());
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<Element> past_end = iterator.GetNext();
    EXPECT_EQ(past_end.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_EQ(past_end.status().message(),
              "the iterator is exhausted after 3 elements");
  }
  EXPECT_EQ(iterator.elements_returned(), 3);
}

TEST_F(DatasetsTest, BatchStacksAndKeepsOrDropsTheRemainder) {
  absl::StatusOr<DatasetRef> kept = MakeBatchDataset(Range(0, 5), 2, false);
  ASSERT_TRUE(kept.ok());
  Iterator iterator(**kept, allocator_.get());
  std::vector<std::vector<int64_t>> batches;
  for (absl::StatusOr<Element> batch = iterator.GetNext(); batch.ok();
       batch = iterator.GetNext()) {
    ASSERT_EQ(batch->size(), 1u);
    const auto values = (*batch)[0].values<int64_t>();
    batches.emplace_back(values.begin(), values.end());
  }
  EXPECT_THAT(batches, ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3),
                                   ElementsAre(4)));
  absl::StatusOr<DatasetRef> dropped = MakeBatchDataset(Range(0, 5), 2, true);
  ASSERT_TRUE(dropped.ok());
  EXPECT_THAT(ReadAll<int64_t>(*dropped), ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(MakeBatchDataset(Range(0, 5), 0, false).status().message(),
            "batch_dataset: batch_size must be positive, got 0");
}

// A dataset whose elements change shape: [1], then [2].
class GrowingDataset : public Dataset {
 public:
  std::unique_ptr<ElementReader> MakeReader(
      HostAllocator* allocator) const override {
    class Reader : public ElementReader {
     public:
      explicit Reader(HostAllocator* allocator) : allocator_(allocator) {}
      absl::StatusOr<bool> Next(Element& element) override {
        if (size_ > 2) return false;
        absl::StatusOr<DenseHostTensor> tensor =
            DenseHostTensor::Create(DType::kF32, {size_++}, allocator_);
        if (!tensor.ok()) return tensor.status();
        element.assign(1, *tensor);
        return true;
      }

     private:
      HostAllocator* allocator_;
      int64_t size_ = 1;
    };
    return std::make_unique<Reader>(allocator);
  }
};

TEST_F(DatasetsTest, BatchOfMixedShapesIsAnError) {
  absl::StatusOr<DatasetRef> batches =
      MakeBatchDataset(std::make_shared<GrowingDataset>(), 2, false);
  ASSERT_TRUE(batches.ok());
  Iterator iterator(**batches, allocator_.get());
  absl::StatusOr<Element> batch = iterator.GetNext();
  EXPECT_EQ(batch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(batch.status().message(),
            "batch_dataset: the element for row 1 has component #0 of [2] "
            "f32; the batch's first element has [1] f32");
}

TEST_F(DatasetsTest, RepeatCountsPassesAndEndsAnEmptyForever) {
  absl::StatusOr<DatasetRef> twice = MakeRepeatDataset(Range(0, 3), 2);
  ASSERT_TRUE(twice.ok());
  EXPECT_THAT(ReadAll<int64_t>(*twice), ElementsAre(0, 1, 2, 0, 1, 2));
  absl::StatusOr<DatasetRef> never = MakeRepeatDataset(Range(0, 3), 0);
  ASSERT_TRUE(never.ok());
  EXPECT_THAT(ReadAll<int64_t>(*never), ElementsAre());
  absl::StatusOr<DatasetRef> empty_forever = MakeRepeatDataset(Range(0, 0), -1);
  ASSERT_TRUE(empty_forever.ok());
  EXPECT_THAT(ReadAll<int64_t>(*empty_forever), ElementsAre());
  // Forever: batches run across passes without end.
  absl::StatusOr<DatasetRef> forever = MakeRepeatDataset(Range(0, 3), -1);
  ASSERT_TRUE(forever.ok());
  absl::StatusOr<DatasetRef> batches = MakeBatchDataset(*forever, 4, true);
  ASSERT_TRUE(batches.ok());
  Iterator iterator(**batches, allocator_.get());
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(iterator.GetNext().ok());
  absl::StatusOr<Element> third = iterator.GetNext();
  ASSERT_TRUE(third.ok());
  EXPECT_THAT((*third)[0].values<int64_t>(), ElementsAre(2, 0, 1, 2));
  EXPECT_EQ(MakeRepeatDataset(Range(0, 3), -2).status().message(),
            "repeat_dataset: count must be -1 (forever) or at least 0, got -2");
}

TEST_F(DatasetsTest, ShardsAreDisjointAndCoverTheInput) {
  std::multiset<int64_t> seen;
  for (int64_t index = 0; index < 4; ++index) {
    absl::StatusOr<DatasetRef> shard = MakeShardDataset(Range(0, 10), 4, index);
    ASSERT_TRUE(shard.ok());
    for (int64_t value : ReadAll<int64_t>(*shard)) {
      EXPECT_EQ(value % 4, index);
      seen.insert(value);
    }
  }
  EXPECT_THAT(seen, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_EQ(MakeShardDataset(Range(0, 10), 4, 4).status().message(),
            "shard_dataset: index 4 is outside [0, 4)");
  EXPECT_EQ(MakeShardDataset(Range(0, 10), 0, 0).status().message(),
            "shard_dataset: num_shards must be positive, got 0");
}

TEST_F(DatasetsTest, GaussianClustersIsAFunctionOfSeedAndExample) {
  absl::StatusOr<DatasetRef> all = MakeGaussianClustersDataset(Clusters(10));
  GaussianClustersOptions tail_options = Clusters(4);
  tail_options.first_example = 6;
  absl::StatusOr<DatasetRef> tail = MakeGaussianClustersDataset(tail_options);
  ASSERT_TRUE(all.ok() && tail.ok());
  // Element by element and batched (written in place) agree, and the tail
  // split is examples 6..9 of the whole.
  absl::StatusOr<DatasetRef> batched = MakeBatchDataset(*all, 10, false);
  ASSERT_TRUE(batched.ok());
  const std::vector<float> features = ReadAll<float>(*all);
  EXPECT_EQ(ReadAll<float>(*batched), features);
  EXPECT_EQ(ReadAll<int32_t>(*batched, 1), ReadAll<int32_t>(*all, 1));
  const std::vector<float> tail_features = ReadAll<float>(*tail);
  EXPECT_EQ(tail_features,
            std::vector<float>(features.begin() + 6 * 5, features.end()));
  EXPECT_EQ(features,
            ReadAll<float>(*MakeGaussianClustersDataset(Clusters(10))));
  GaussianClustersOptions other_seed = Clusters(10);
  other_seed.seed = 43;
  EXPECT_NE(features, ReadAll<float>(*MakeGaussianClustersDataset(other_seed)));
  for (int32_t label : ReadAll<int32_t>(*all, 1)) {
    EXPECT_GE(label, 0);
    EXPECT_LT(label, 3);
  }
}

// Examples of one class lie near their center: with a small stddev the
// mean of each class's features is far from the other classes' means.
TEST_F(DatasetsTest, GaussianClustersClassesAreSeparable) {
  GaussianClustersOptions options = Clusters(3000);
  options.stddev = 0.1;
  absl::StatusOr<DatasetRef> dataset = MakeGaussianClustersDataset(options);
  ASSERT_TRUE(dataset.ok());
  const std::vector<float> features = ReadAll<float>(*dataset);
  const std::vector<int32_t> labels = ReadAll<int32_t>(*dataset, 1);
  std::vector<int64_t> counts(3);
  std::vector<double> spread(3);
  std::vector<std::vector<double>> means(3, std::vector<double>(5));
  for (size_t i = 0; i < labels.size(); ++i) {
    ++counts[labels[i]];
    for (int j = 0; j < 5; ++j) means[labels[i]][j] += features[i * 5 + j];
  }
  for (int c = 0; c < 3; ++c) {
    // Labels are close to uniform.
    EXPECT_GT(counts[c], 800);
    for (double& value : means[c]) value /= counts[c];
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    for (int j = 0; j < 5; ++j) {
      const double d = features[i * 5 + j] - means[labels[i]][j];
      spread[labels[i]] += d * d;
    }
  }
  for (int c = 0; c < 3; ++c) {
    // The noise's variance per feature is stddev^2 = 0.01.
    EXPECT_NEAR(spread[c] / (counts[c] * 5), 0.01, 0.002);
  }
}

TEST_F(DatasetsTest, GaussianClustersRefusesWhatItCannotDraw) {
  GaussianClustersOptions options = Clusters(10);
  options.stddev = -1;
  EXPECT_EQ(MakeGaussianClustersDataset(options).status().message(),
            "gaussian_clusters_dataset: stddev -1 must be finite and not "
            "negative");
  options = Clusters(10);
  options.first_example = kMaxGaussianClustersExamples - 5;
  EXPECT_THAT(MakeGaussianClustersDataset(options).status().message(),
              HasSubstr("are not within [0, 2^40)"));
}

// Calls from several threads each get a different element, and together
// all of them.
TEST_F(DatasetsTest, ConcurrentGetNextGivesEachElementOnce) {
  absl::StatusOr<DatasetRef> shard = MakeShardDataset(Range(0, 4000), 2, 1);
  ASSERT_TRUE(shard.ok());
  Iterator iterator(**shard, allocator_.get());
  std::vector<std::vector<int64_t>> taken(4);
  std::vector<std::thread> threads;
  for (auto& mine : taken) {
    threads.emplace_back([&iterator, &mine] {
      for (absl::StatusOr<Element> e = iterator.GetNext(); e.ok();
           e = iterator.GetNext()) {
        mine.push_back((*e)[0].values<int64_t>()[0]);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<int64_t> all;
  for (const auto& mine : taken) {
    // Each thread sees its elements in the dataset's order.
    EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
    all.insert(mine.begin(), mine.end());
  }
  EXPECT_EQ(all.size(), 2000u);
  EXPECT_EQ(*all.begin(), 1);
  EXPECT_EQ(*all.rbegin(), 3999);
  EXPECT_EQ(iterator.elements_returned(), 2000);
}

}  // namespace
}  // namespace data
}  // namespace sluice
