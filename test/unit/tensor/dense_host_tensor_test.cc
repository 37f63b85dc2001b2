#include "sluice/tensor/dense_host_tensor.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "sluice/host_context/host_allocator.h"

namespace sluice {
namespace {

class DenseHostTensorTest : public ::testing::Test {
 protected:
  LeakCheckAllocator allocator_{CreateMallocAllocator()};
};

TEST_F(DenseHostTensorTest, BuffersAreAlignedAndFreed) {
  {
    absl::StatusOr<DenseHostTensor> tensor =
        DenseHostTensor::Create(DType::kF32, TensorShape{3, 5}, &allocator_);
    ASSERT_TRUE(tensor.ok()) << tensor.status();
    EXPECT_EQ(tensor->num_bytes(), 60u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(tensor->raw_data()) %
                  HostBuffer::kAlignment,
              0u);
    EXPECT_EQ(allocator_.num_alive_allocations(), 1);
  }
  EXPECT_EQ(allocator_.num_alive_allocations(), 0);
}

TEST_F(DenseHostTensorTest, CopiesShareBytesAndClonesDoNot) {
  std::vector<int32_t> values = {1, 2, 3, 4};
  DenseHostTensor a = *DenseHostTensor::FromValues<int32_t>(
      TensorShape{2, 2}, values, &allocator_);
  DenseHostTensor shared = a;
  DenseHostTensor clone = *a.Clone(&allocator_);
  a.mutable_values<int32_t>()[0] = 10;
  EXPECT_EQ(shared.values<int32_t>()[0], 10);
  EXPECT_EQ(clone.values<int32_t>()[0], 1);
  EXPECT_EQ(allocator_.num_alive_allocations(), 2);
}

TEST_F(DenseHostTensorTest, PrintsAsTfrtDoes) {
  std::vector<int32_t> ints = {1, -1, 1, -1};
  EXPECT_EQ(
      DenseHostTensor::FromValues<int32_t>(TensorShape{2, 2}, ints, &allocator_)
          ->ToString(),
      "DenseHostTensor dtype = i32, shape = [2, 2], values = [1, -1, 1, "
      "-1]");
  std::vector<float> floats = {1.0f, 0.5f};
  EXPECT_EQ(
      DenseHostTensor::FromValues<float>(TensorShape{2}, floats, &allocator_)
          ->ToString(),
      "DenseHostTensor dtype = f32, shape = [2], values = [1.000000e+00, "
      "5.000000e-01]");
  absl::StatusOr<DenseHostTensor> bools =
      DenseHostTensor::Create(DType::kI1, TensorShape{2}, &allocator_);
  bools->mutable_values<bool>()[0] = false;
  bools->mutable_values<bool>()[1] = true;
  EXPECT_EQ(bools->ToString(),
            "DenseHostTensor dtype = i1, shape = [2], values = [0, 1]");
}

TEST_F(DenseHostTensorTest, LongTensorsPrintTheirHead) {
  std::vector<int64_t> values(DenseHostTensor::kMaxPrintedValues + 5, 7);
  std::string text =
      DenseHostTensor::FromValues<int64_t>(
          TensorShape{static_cast<int64_t>(values.size())}, values, &allocator_)
          ->ToString();
  EXPECT_NE(text.find(", 7, ...]"), std::string::npos) << text;
}

TEST_F(DenseHostTensorTest, RefusedAllocationIsAnError) {
  FixedBudgetAllocator small(1024);
  absl::StatusOr<DenseHostTensor> tensor =
      DenseHostTensor::Create(DType::kF64, TensorShape{200}, &small);
  ASSERT_FALSE(tensor.ok());
  EXPECT_EQ(tensor.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(tensor.status().message(),
            "cannot allocate an f64 tensor of shape [200]: the host allocator "
            "refused 1600 bytes");
}

TEST_F(DenseHostTensorTest, TensorOverSliceSharesParentBytes) {
  RCReference<HostBuffer> buffer = HostBuffer::Allocate(16, &allocator_);
  RCReference<HostBuffer> second_half = HostBuffer::Slice(buffer, 8, 8);
  ASSERT_TRUE(second_half);
  EXPECT_FALSE(HostBuffer::Slice(buffer, 12, 8));
  EXPECT_FALSE(HostBuffer::Slice(buffer, 17, 0));
  absl::StatusOr<DenseHostTensor> tensor = DenseHostTensor::Create(
      DType::kF32, TensorShape{2}, second_half.CopyRef());
  ASSERT_TRUE(tensor.ok());
  tensor->mutable_values<float>()[1] = 3.0f;
  EXPECT_EQ(static_cast<float*>(buffer->data())[3], 3.0f);
  buffer.reset();
  second_half.reset();
  // The tensor keeps the parent's bytes alive.
  EXPECT_EQ(allocator_.num_alive_allocations(), 1);
  EXPECT_EQ(tensor->values<float>()[1], 3.0f);
  EXPECT_EQ(DenseHostTensor::Create(DType::kF32, TensorShape{3},
                                    tensor->buffer().CopyRef())
                .status()
                .message(),
            "an f32 tensor of shape [3] does not fit in a buffer of 8 bytes");
}

TEST_F(DenseHostTensorTest, EqualityComparesDtypeShapeAndValues) {
  std::vector<float> x = {1, 2, 3, 4};
  std::vector<float> y = {1, 2, 3, 5};
  DenseHostTensor a =
      *DenseHostTensor::FromValues<float>(TensorShape{2, 2}, x, &allocator_);
  DenseHostTensor b =
      *DenseHostTensor::FromValues<float>(TensorShape{4}, x, &allocator_);
  DenseHostTensor c =
      *DenseHostTensor::FromValues<float>(TensorShape{2, 2}, y, &allocator_);
  EXPECT_TRUE(TensorsEqual(a, *a.Clone(&allocator_)));
  EXPECT_FALSE(TensorsEqual(a, b));
  EXPECT_FALSE(TensorsEqual(a, c));
}

}  // namespace
}  // namespace sluice
