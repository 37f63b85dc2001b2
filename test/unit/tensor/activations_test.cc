#include "sluice/tensor/activations.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensor_test_util.h"

namespace sluice {
namespace {

using tensor_testing::MakeTensor;
using tensor_testing::ValuesOf;
using ::testing::ElementsAre;

class ActivationsTest : public tensor_testing::TensorTest {
 protected:
  using Forward = absl::StatusOr<DenseHostTensor> (*)(const DenseHostTensor&,
                                                      HostAllocator*);

  // f applied to `x` (f64) elementwise, through the tensor function.
  std::vector<double> Apply(Forward f, const std::vector<double>& x) {
    DenseHostTensor in =
        MakeTensor<double>({static_cast<int64_t>(x.size())}, x, &allocator_);
    absl::StatusOr<DenseHostTensor> out = f(in, &allocator_);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? ValuesOf<double>(*out) : std::vector<double>();
  }
};

const std::vector<double> kPoints = {-3.0, -1.2, -0.3, 0.2, 0.7, 2.5};

TEST_F(ActivationsTest, ReluByHand) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  DenseHostTensor x =
      MakeTensor<float>({2, 2}, {-1.5f, 0.0f, 2.0f, nan}, &allocator_);
  std::vector<float> y = ValuesOf<float>(*Relu(x, &allocator_));
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 2.0f);
  EXPECT_TRUE(std::isnan(y[3]));
  DenseHostTensor ints = MakeTensor<int64_t>({3}, {-4, 0, 9}, &allocator_);
  EXPECT_THAT(ValuesOf<int64_t>(*Relu(ints, &allocator_)),
              ElementsAre(0, 0, 9));
}

TEST_F(ActivationsTest, SigmoidAndTanhMatchTheirDefinitions) {
  std::vector<double> sigmoid = Apply(&Sigmoid, kPoints);
  std::vector<double> tanh = Apply(&Tanh, kPoints);
  for (size_t i = 0; i < kPoints.size(); ++i) {
    const double x = kPoints[i];
    EXPECT_NEAR(sigmoid[i], 1 / (1 + std::exp(-x)), 1e-15);
    EXPECT_NEAR(tanh[i], (std::exp(2 * x) - 1) / (std::exp(2 * x) + 1), 1e-15);
  }
  // Far out, sigmoid saturates rather than overflowing.
  EXPECT_THAT(Apply(&Sigmoid, {-1000, 0, 1000}), ElementsAre(0, 0.5, 1));
  EXPECT_THAT(Apply(&Tanh, {-1000, 0, 1000}), ElementsAre(-1, 0, 1));
}

TEST_F(ActivationsTest, Float32Too) {
  DenseHostTensor x = MakeTensor<float>({2}, {0.0f, 1.0f}, &allocator_);
  std::vector<float> y = ValuesOf<float>(*Sigmoid(x, &allocator_));
  EXPECT_FLOAT_EQ(y[0], 0.5f);
  EXPECT_FLOAT_EQ(y[1], static_cast<float>(1 / (1 + std::exp(-1.0))));
}

// Each gradient against a central finite difference of its forward function:
// d/dx f(x) ~ (f(x + h) - f(x - h)) / 2h, times an upstream gradient.
TEST_F(ActivationsTest, GradientsMatchFiniteDifferences) {
  const double h = 1e-6;
  std::vector<double> plus, minus, upstream;
  for (size_t i = 0; i < kPoints.size(); ++i) {
    plus.push_back(kPoints[i] + h);
    minus.push_back(kPoints[i] - h);
    upstream.push_back(0.5 + 0.25 * i);
  }
  const int64_t n = static_cast<int64_t>(kPoints.size());
  DenseHostTensor x = MakeTensor<double>({n}, kPoints, &allocator_);
  DenseHostTensor dy = MakeTensor<double>({n}, upstream, &allocator_);

  struct Case {
    const char* name;
    Forward forward;
    std::function<absl::StatusOr<DenseHostTensor>()> gradient;
  };
  DenseHostTensor sigmoid_y = *Sigmoid(x, &allocator_);
  DenseHostTensor tanh_y = *Tanh(x, &allocator_);
  std::vector<Case> cases = {
      {"relu", &Relu, [&] { return ReluGrad(dy, x, &allocator_); }},
      {"sigmoid", &Sigmoid,
       [&] { return SigmoidGrad(dy, sigmoid_y, &allocator_); }},
      {"tanh", &Tanh, [&] { return TanhGrad(dy, tanh_y, &allocator_); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<double> up = Apply(c.forward, plus);
    std::vector<double> down = Apply(c.forward, minus);
    absl::StatusOr<DenseHostTensor> gradient = c.gradient();
    ASSERT_TRUE(gradient.ok()) << gradient.status();
    std::vector<double> analytic = ValuesOf<double>(*gradient);
    for (size_t i = 0; i < kPoints.size(); ++i) {
      EXPECT_NEAR(analytic[i], upstream[i] * (up[i] - down[i]) / (2 * h), 1e-8)
          << "at x = " << kPoints[i];
    }
  }
}

TEST_F(ActivationsTest, ReluGradIsZeroAtZero) {
  DenseHostTensor x = MakeTensor<int32_t>({3}, {-1, 0, 1}, &allocator_);
  DenseHostTensor dy = MakeTensor<int32_t>({3}, {7, 7, 7}, &allocator_);
  EXPECT_THAT(ValuesOf<int32_t>(*ReluGrad(dy, x, &allocator_)),
              ElementsAre(0, 0, 7));
}

TEST_F(ActivationsTest, RefusesMismatchedOrUnsupportedOperands) {
  DenseHostTensor ints = MakeTensor<int32_t>({2}, {1, 2}, &allocator_);
  EXPECT_EQ(Sigmoid(ints, &allocator_).status().message(),
            "sigmoid: i32 tensors are not supported; it takes f32 or f64");
  EXPECT_EQ(Tanh(ints, &allocator_).status().code(),
            absl::StatusCode::kInvalidArgument);
  DenseHostTensor two = MakeTensor<float>({2}, {1, 2}, &allocator_);
  DenseHostTensor three = MakeTensor<float>({3}, {1, 2, 3}, &allocator_);
  EXPECT_EQ(TanhGrad(two, three, &allocator_).status().message(),
            "tanh_grad: the gradient [2] and the forward tensor [3] must have "
            "the same shape");
  DenseHostTensor doubles = MakeTensor<double>({2}, {1, 2}, &allocator_);
  EXPECT_EQ(SigmoidGrad(two, doubles, &allocator_).status().message(),
            "sigmoid_grad: operands are f32 and f64; they must have the same "
            "dtype");
  EXPECT_EQ(ReluGrad(ints, ints, &allocator_).status().code(),
            absl::StatusCode::kOk);
}

}  // namespace
}  // namespace sluice
