#include "sluice/gpu/device_tensor.h"

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "test/unit/gpu/gpu_test_fixture.h"

namespace sluice::gpu {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::StartsWith;

class DeviceTensorTest : public GpuTest {
 protected:
  template <typename T>
  DenseHostTensor HostTensor(TensorShape shape, absl::Span<const T> values) {
    absl::StatusOr<DenseHostTensor> tensor = DenseHostTensor::FromValues<T>(
        std::move(shape), values, host()->allocator());
    EXPECT_TRUE(tensor.ok()) << tensor.status();
    return *std::move(tensor);
  }

  template <typename T>
  T Await(AsyncValueRef<T> value) {
    host()->Await(value.CopyRCRef());
    EXPECT_TRUE(value.IsConcrete()) << value.GetError();
    return value.get();
  }

  // Host → device → host.
  DenseHostTensor RoundTrip(const DenseHostTensor& tensor) {
    DeviceTensor on_device = Await(CopyToDevice(device(), tensor, host()));
    EXPECT_EQ(on_device.dtype(), tensor.dtype());
    EXPECT_EQ(on_device.shape(), tensor.shape());
    return Await(CopyToHost(on_device, host()));
  }
};

TEST_F(DeviceTensorTest, RoundTripKeepsEveryDType) {
  EXPECT_THAT(RoundTrip(HostTensor<float>({2, 3}, {1.5f, -2, 3, 4, 5, 6.25f}))
                  .values<float>(),
              ElementsAre(1.5f, -2, 3, 4, 5, 6.25f));
  EXPECT_THAT(
      RoundTrip(HostTensor<double>({2}, {1e300, -0.5})).values<double>(),
      ElementsAre(1e300, -0.5));
  EXPECT_THAT(RoundTrip(HostTensor<int32_t>({3}, {7, -8, 9})).values<int32_t>(),
              ElementsAre(7, -8, 9));
  EXPECT_THAT(RoundTrip(HostTensor<int64_t>({1, 2}, {int64_t{1} << 40, -3}))
                  .values<int64_t>(),
              ElementsAre(int64_t{1} << 40, -3));
  EXPECT_THAT(RoundTrip(HostTensor<bool>({4}, {true, false, false, true}))
                  .values<bool>(),
              ElementsAre(true, false, false, true));
}

TEST_F(DeviceTensorTest, RoundTripOfALargeTensor) {
  std::vector<int32_t> values(1 << 20);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<int32_t>(i * 7);
  DenseHostTensor back = RoundTrip(HostTensor<int32_t>({1024, 1024}, values));
  EXPECT_EQ(back.shape(), TensorShape({1024, 1024}));
  EXPECT_THAT(back.values<int32_t>(), ElementsAreArray(values));
}

TEST_F(DeviceTensorTest, RoundTripOfOneGibibyte) {
  constexpr int64_t kElements = int64_t{1} << 28;  // i32: 1 GiB
  absl::StatusOr<DenseHostTensor> tensor =
      DenseHostTensor::Create(DType::kI32, {kElements}, host()->allocator());
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  int32_t* data = static_cast<int32_t*>(tensor->raw_data());
  for (int64_t i = 0; i < kElements; ++i) {
    data[i] = static_cast<int32_t>(i * 2654435761u);
  }
  DenseHostTensor back = RoundTrip(*tensor);
  ASSERT_EQ(back.num_bytes(), size_t{1} << 30);
  const int32_t* got = static_cast<const int32_t*>(back.raw_data());
  int64_t wrong = 0;
  for (int64_t i = 0; i < kElements; ++i) {
    wrong += got[i] != static_cast<int32_t>(i * 2654435761u);
  }
  EXPECT_EQ(wrong, 0);
}

// The result of a copy to the host lies in page-locked memory already: the
// copy back reads it in place rather than through a staging buffer.
TEST_F(DeviceTensorTest, RoundTripOfATensorInPageLockedMemory) {
  DenseHostTensor once = RoundTrip(HostTensor<int32_t>({2}, {3, -4}));
  DenseHostTensor twice = RoundTrip(once);
  EXPECT_THAT(twice.values<int32_t>(), ElementsAre(3, -4));
  EXPECT_NE(twice.raw_data(), once.raw_data());
}

TEST_F(DeviceTensorTest, TheHostTensorMayGoAwayBeforeTheCopyCompletes) {
  AsyncValueRef<DeviceTensor> on_device;
  {
    DenseHostTensor source = HostTensor<double>({3}, {0.25, 0.5, 0.75});
    on_device = CopyToDevice(device(), source, host());
  }
  DeviceTensor tensor = Await(std::move(on_device));
  EXPECT_THAT(Await(CopyToHost(tensor, host())).values<double>(),
              ElementsAre(0.25, 0.5, 0.75));
}

TEST_F(DeviceTensorTest, EmptyTensorRoundTrips) {
  DenseHostTensor back = RoundTrip(HostTensor<float>({0, 3}, {}));
  EXPECT_EQ(back.shape(), TensorShape({0, 3}));
  EXPECT_EQ(back.num_elements(), 0);
}

TEST_F(DeviceTensorTest, CopyOnDeviceMakesANewBufferWithTheSameElements) {
  DeviceTensor original = Await(
      CopyToDevice(device(), HostTensor<float>({2, 2}, {1, 2, 3, 4}), host()));
  DeviceTensor copy = Await(CopyOnDevice(original, host()));
  EXPECT_NE(copy.data(), original.data());
  EXPECT_EQ(copy.shape(), original.shape());
  EXPECT_THAT(Await(CopyToHost(copy, host())).values<float>(),
              ElementsAre(1, 2, 3, 4));
}

TEST_F(DeviceTensorTest, CopiesOnASecondStream) {
  absl::StatusOr<RCReference<GpuDevice>> two = GpuDevice::Open(0, 2);
  ASSERT_TRUE(two.ok()) << two.status();
  DeviceTensor on_device = Await(CopyToDevice(
      *two, HostTensor<int64_t>({2}, {5, 6}), host(), /*stream_index=*/1));
  EXPECT_EQ(on_device.buffer()->stream_index(), 1);
  EXPECT_THAT(Await(CopyToHost(on_device, host())).values<int64_t>(),
              ElementsAre(5, 6));
}

TEST_F(DeviceTensorTest, SharesItsBufferWhenCopied) {
  absl::StatusOr<DeviceTensor> tensor =
      DeviceTensor::Allocate(device().CopyRef(), DType::kF32, {2, 3});
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  DeviceTensor alias = *tensor;
  EXPECT_EQ(alias.data(), tensor->data());
  EXPECT_EQ(tensor->num_bytes(), 24u);
  EXPECT_EQ(tensor->ToString(),
            "DeviceTensor dtype = f32, shape = [2, 3], device = gpu:0");
}

TEST_F(DeviceTensorTest, OutOfMemoryIsResourceExhausted) {
  // 2^46 f64 elements: 512 TiB, more than any GPU has.
  absl::StatusOr<DeviceTensor> tensor = DeviceTensor::Allocate(
      device().CopyRef(), DType::kF64, {int64_t{1} << 23, int64_t{1} << 23});
  ASSERT_FALSE(tensor.ok());
  EXPECT_EQ(tensor.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(tensor.status().message(),
            "allocating f64 tensor of shape [8388608, 8388608]: "
            "cudaMallocAsync of 562949953421312 bytes on gpu:0 stream 0: "
            "cudaErrorMemoryAllocation (out of memory)");
}

TEST_F(DeviceTensorTest, AStreamTheDeviceLacksIsAnError) {
  AsyncValueRef<DeviceTensor> copy = CopyToDevice(
      device(), HostTensor<int32_t>({1}, {1}), host(), /*stream_index=*/2);
  ASSERT_TRUE(copy.IsError());
  EXPECT_EQ(copy.GetError().message(),
            "copying i32 tensor of shape [1] to gpu:0: allocating i32 tensor "
            "of shape [1]: gpu:0 has no stream 2; it has 1");
}

}  // namespace
}  // namespace sluice::gpu
