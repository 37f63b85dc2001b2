// The code shown in docs/tensor_math.md. Each `[START name]` region appears
// verbatim in the guide (doc_snippets_test keeps the two in step); the tests
// train a linear classifier with it and check the losses and weights by
// hand.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/elementwise.h"
#include "sluice/tensor/losses.h"
#include "sluice/tensor/matmul.h"
#include "sluice/tensor/metrics.h"
#include "sluice/tensor/random.h"
#include "sluice/tensor/reductions.h"
#include "sluice/tensor/slicing.h"

namespace sluice {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;

// [START train_step]
// One step of gradient descent on a linear classifier, logits = x w + b:
// updates w and b, and returns the loss before the step.
absl::StatusOr<DenseHostTensor> TrainStep(const DenseHostTensor& x,
                                          const DenseHostTensor& labels,
                                          double learning_rate,
                                          DenseHostTensor& w,
                                          DenseHostTensor& b,
                                          HostAllocator* allocator) {
  absl::StatusOr<DenseHostTensor> xw = MatMul(x, w, false, false, allocator);
  if (!xw.ok()) return xw.status();
  // b [classes] is added to every row of xw [batch, classes].
  absl::StatusOr<DenseHostTensor> logits = Add(*xw, b, allocator);
  if (!logits.ok()) return logits.status();
  absl::StatusOr<LossAndGradient> loss =
      SoftmaxCrossEntropyWithLogits(*logits, labels, allocator);
  if (!loss.ok()) return loss.status();

  // dw = x^T dlogits; db = dlogits summed over the batch.
  absl::StatusOr<DenseHostTensor> dw =
      MatMul(x, loss->gradient, /*transpose_a=*/true, /*transpose_b=*/false,
             allocator);
  if (!dw.ok()) return dw.status();
  absl::StatusOr<DenseHostTensor> db =
      ReduceSum(loss->gradient, /*axis=*/0, allocator);
  if (!db.ok()) return db.status();

  for (auto [parameter, gradient] : {std::pair{&w, &*dw}, {&b, &*db}}) {
    absl::StatusOr<DenseHostTensor> step =
        Scale(*gradient, learning_rate, allocator);
    if (!step.ok()) return step.status();
    absl::StatusOr<DenseHostTensor> updated = Sub(*parameter, *step, allocator);
    if (!updated.ok()) return updated.status();
    *parameter = *std::move(updated);
  }
  return std::move(loss->loss);
}
// [END train_step]

// [START epoch]
// One pass over the data set in batches of `batch_size` rows; the last
// batch may be smaller. Each batch shares its rows' bytes with the set.
absl::Status TrainEpoch(const DenseHostTensor& x, const DenseHostTensor& labels,
                        int64_t batch_size, double learning_rate,
                        DenseHostTensor& w, DenseHostTensor& b,
                        HostAllocator* allocator) {
  const int64_t examples = x.shape().dim(0);
  for (int64_t begin = 0; begin < examples; begin += batch_size) {
    const int64_t size = std::min(batch_size, examples - begin);
    absl::StatusOr<DenseHostTensor> x_batch = SliceRows(x, begin, size);
    if (!x_batch.ok()) return x_batch.status();
    absl::StatusOr<DenseHostTensor> labels_batch =
        SliceRows(labels, begin, size);
    if (!labels_batch.ok()) return labels_batch.status();
    absl::StatusOr<DenseHostTensor> loss =
        TrainStep(*x_batch, *labels_batch, learning_rate, w, b, allocator);
    if (!loss.ok()) return loss.status();
  }
  return absl::OkStatus();
}
// [END epoch]

class TensorMathExampleTest : public ::testing::Test {
 protected:
  template <typename T>
  DenseHostTensor Make(TensorShape shape, std::vector<T> values) {
    return *DenseHostTensor::FromValues<T>(std::move(shape), values,
                                           allocator_.get());
  }

  std::unique_ptr<HostAllocator> allocator_ = CreateMallocAllocator();
};

// Two points per class: at w = 0 the loss is ln 2; one step with a rate of
// 1 moves w to [[3/4, -3/4], [3/4, -3/4]] (docs/tensor_math.md works it
// out), where the loss is ln(1 + e^-4.5).
TEST_F(TensorMathExampleTest, OneStepByHand) {
  DenseHostTensor x = Make<double>({4, 2}, {1, 2, 2, 1, -1, -2, -2, -1});
  DenseHostTensor labels = Make<int32_t>({4}, {0, 0, 1, 1});
  DenseHostTensor w = Make<double>({2, 2}, {0, 0, 0, 0});
  DenseHostTensor b = Make<double>({2}, {0, 0});
  absl::StatusOr<DenseHostTensor> loss =
      TrainStep(x, labels, 1.0, w, b, allocator_.get());
  ASSERT_TRUE(loss.ok()) << loss.status();
  EXPECT_NEAR(loss->values<double>()[0], std::log(2.0), 1e-15);
  EXPECT_THAT(w.values<double>(), ElementsAre(0.75, -0.75, 0.75, -0.75));
  EXPECT_THAT(b.values<double>(), ElementsAre(0, 0));
  loss = TrainStep(x, labels, 0.0, w, b, allocator_.get());
  ASSERT_TRUE(loss.ok()) << loss.status();
  EXPECT_NEAR(loss->values<double>()[0], std::log1p(std::exp(-4.5)), 1e-15);
}

// 64 points from two Gaussian blobs around (2, 2) and (-2, -2), drawn with
// the seeded generator: a few epochs in batches of 10 separate them.
TEST_F(TensorMathExampleTest, EpochsInBatchesLearnTwoBlobs) {
  const int64_t n = 64;
  DenseHostTensor noise = *RandomNormal(DType::kF32, TensorShape{n, 2}, 0, 0.5,
                                        7, allocator_.get());
  std::vector<float> points(n * 2);
  std::vector<int64_t> classes(n);
  for (int64_t i = 0; i < n; ++i) {
    classes[i] = i % 2;
    const float center = classes[i] == 0 ? 2.0f : -2.0f;
    points[2 * i] = center + noise.values<float>()[2 * i];
    points[2 * i + 1] = center + noise.values<float>()[2 * i + 1];
  }
  DenseHostTensor x = Make<float>({n, 2}, points);
  DenseHostTensor labels = Make<int64_t>({n}, classes);
  DenseHostTensor w = *RandomUniform(DType::kF32, TensorShape{2, 2}, -0.1, 0.1,
                                     1, allocator_.get());
  DenseHostTensor b = Make<float>({2}, {0, 0});
  for (int epoch = 0; epoch < 3; ++epoch) {
    ASSERT_TRUE(TrainEpoch(x, labels, 10, 0.5, w, b, allocator_.get()).ok());
  }
  absl::StatusOr<DenseHostTensor> xw =
      MatMul(x, w, false, false, allocator_.get());
  absl::StatusOr<DenseHostTensor> logits = Add(*xw, b, allocator_.get());
  EXPECT_EQ(Accuracy(*logits, labels, allocator_.get())->values<float>()[0],
            1.0f);
  EXPECT_LT(SoftmaxCrossEntropyWithLogits(*logits, labels, allocator_.get())
                ->loss.values<float>()[0],
            0.05f);
}

TEST_F(TensorMathExampleTest, ErrorsComeBackAsStatuses) {
  DenseHostTensor x = Make<double>({4, 3}, std::vector<double>(12));
  DenseHostTensor labels = Make<int32_t>({4}, {0, 0, 1, 1});
  DenseHostTensor w = Make<double>({2, 2}, {0, 0, 0, 0});
  DenseHostTensor b = Make<double>({2}, {0, 0});
  absl::StatusOr<DenseHostTensor> loss =
      TrainStep(x, labels, 1.0, w, b, allocator_.get());
  EXPECT_EQ(loss.status().message(),
            "matmul: [4, 3] x [2, 2]: inner dimensions differ");
}

}  // namespace
}  // namespace sluice
