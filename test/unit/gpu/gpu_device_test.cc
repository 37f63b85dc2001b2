#include "sluice/gpu/gpu_device.h"

#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/unit/gpu/gpu_test_fixture.h"

namespace sluice::gpu {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// Runs on machines without a device: what every GPU operation reports there.
TEST(NoGpuTest, OpeningADeviceSaysThereIsNone) {
  if (CountDevices().ok()) GTEST_SKIP() << "this machine has a CUDA device";
  absl::StatusOr<RCReference<GpuDevice>> device = GpuDevice::Open(0);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), absl::StatusCode::kFailedPrecondition);
  // Without a driver the runtime says cudaErrorInsufficientDriver, with a
  // driver and no card cudaErrorNoDevice; both name the call.
  EXPECT_THAT(std::string(device.status().message()),
              StartsWith("no CUDA device: cudaGetDeviceCount returned "
                         "cudaError"));
  EXPECT_EQ(GpuDevice::Shared(0).status(), device.status());
}

using GpuDeviceTest = GpuTest;

TEST_F(GpuDeviceTest, OpensWithItsStreams) {
  absl::StatusOr<RCReference<GpuDevice>> device = GpuDevice::Open(0, 3);
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->ordinal(), 0);
  EXPECT_EQ((*device)->num_streams(), 3);
  EXPECT_NE((*device)->stream(0), (*device)->stream(1));
  EXPECT_NE((*device)->stream(1), (*device)->stream(2));
  EXPECT_FALSE((*device)->name().empty());
  EXPECT_EQ((*device)->ToString(), "gpu:0");
}

TEST_F(GpuDeviceTest, RejectsAnOrdinalTheMachineLacks) {
  const int count = *CountDevices();
  absl::StatusOr<RCReference<GpuDevice>> device = GpuDevice::Open(count);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(device.status().message()),
              StartsWith("no CUDA device " + std::to_string(count) +
                         ": the machine has " + std::to_string(count)));
}

TEST_F(GpuDeviceTest, RejectsZeroStreams) {
  absl::StatusOr<RCReference<GpuDevice>> device = GpuDevice::Open(0, 0);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().message(),
            "gpu:0 needs at least one stream, got 0");
}

TEST_F(GpuDeviceTest, SharedDeviceIsOnePerOrdinal) {
  absl::StatusOr<RCReference<GpuDevice>> first = GpuDevice::Shared(0);
  absl::StatusOr<RCReference<GpuDevice>> second = GpuDevice::Shared(0);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(first->get(), second->get());
}

TEST_F(GpuDeviceTest, OnStreamDoneResolvesWhenTheStreamIsIdle) {
  AsyncValueRef<Chain> done = device()->OnStreamDone(0, host());
  host()->Await(done.CopyRCRef());
  EXPECT_TRUE(done.IsConcrete()) << done.GetError();
}

TEST_F(GpuDeviceTest, OnStreamDoneRejectsAStreamTheDeviceLacks) {
  AsyncValueRef<Chain> done = device()->OnStreamDone(1, host());
  ASSERT_TRUE(done.IsError());
  EXPECT_EQ(done.GetError().message(), "gpu:0 has no stream 1; it has 1");
}

}  // namespace
}  // namespace sluice::gpu
