// A real NCCL group of one rank in this process, on CUDA device 0: host
// collectives through the staging path, device-tensor collectives, and a
// new generation split from the old one. Skips, saying why, without a
// device.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/collective/nccl_group.h"
#include "sluice/gpu/device_tensor.h"
#include "sluice/gpu/gpu_device.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_context.h"
#include "sluice/support/failure.h"
#include "test/util/store_server.h"

namespace sluice::ccl {
namespace {

std::unique_ptr<HostAllocator> allocator = CreateMallocAllocator();

DenseHostTensor F32(std::vector<float> values) {
  return *DenseHostTensor::FromValues<float>(
      {static_cast<int64_t>(values.size())}, values, allocator.get());
}

std::vector<float> Values(const DenseHostTensor& tensor) {
  auto values = tensor.values<float>();
  return std::vector<float>(values.begin(), values.end());
}

// Waits (bounded) for `value` and returns it or its error.
template <typename T>
absl::StatusOr<T> Await(const AsyncValueRef<T>& value) {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
  value.AndThen([&] {
    std::lock_guard<std::mutex> lock(mu);
    ready = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  if (!cv.wait_for(lock, std::chrono::seconds(60), [&] { return ready; })) {
    return absl::DeadlineExceededError("no value within 60 s");
  }
  if (value.IsError()) return value.GetError();
  return value.get();
}

class NcclGpuGroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<int> devices = gpu::CountDevices();
    if (!devices.ok()) GTEST_SKIP() << devices.status().message();
    absl::StatusOr<RCReference<gpu::GpuDevice>> device =
        gpu::GpuDevice::Shared(0);
    ASSERT_TRUE(device.ok()) << device.status();
    device_ = *std::move(device);
  }

  NcclGroupOptions Options(int64_t generation) {
    NcclGroupOptions options;
    options.store_address = store_.address();
    options.generation = generation;
    return options;
  }

  sluice::testing::StoreServer store_;
  RCReference<gpu::GpuDevice> device_;
  std::unique_ptr<HostContext> host_ = std::make_unique<HostContext>(
      [](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
      *CreateWorkQueue("mstd:2"));
};

TEST_F(NcclGpuGroupTest, HostCollectivesOfOneRank) {
  absl::StatusOr<RCReference<NcclGroup>> group = CreateNcclGroup(Options(1));
  ASSERT_TRUE(group.ok()) << group.status();
  auto sum =
      (*group)->AllReduce(F32({1, 2, 3}), ReduceOp::kSum, absl::Seconds(30));
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(Values(*sum), (std::vector<float>{1, 2, 3}));
  auto gathered = (*group)->AllGather(F32({4, 5}), absl::Seconds(30));
  ASSERT_TRUE(gathered.ok()) << gathered.status();
  EXPECT_EQ(gathered->shape(), TensorShape({1, 2}));
  EXPECT_EQ(Values(*gathered), (std::vector<float>{4, 5}));
  auto broadcast = (*group)->Broadcast(F32({6}), 0, absl::Seconds(30));
  ASSERT_TRUE(broadcast.ok()) << broadcast.status();
  EXPECT_EQ(Values(*broadcast), (std::vector<float>{6}));
  EXPECT_TRUE((*group)->Barrier(absl::Seconds(30)).ok());
}

TEST_F(NcclGpuGroupTest, DeviceAllReduceAndAllToAll) {
  absl::StatusOr<RCReference<NcclGroup>> group = CreateNcclGroup(Options(2));
  ASSERT_TRUE(group.ok()) << group.status();
  absl::StatusOr<gpu::DeviceTensor> input =
      Await(gpu::CopyToDevice(device_, F32({1.5, -2, 8}), host_.get()));
  ASSERT_TRUE(input.ok()) << input.status();
  absl::StatusOr<gpu::DeviceTensor> avg = Await(
      (*group)->DeviceAllReduce(*input, ReduceOp::kAvg, absl::Seconds(30)));
  ASSERT_TRUE(avg.ok()) << avg.status();
  absl::StatusOr<DenseHostTensor> back =
      Await(gpu::CopyToHost(*avg, host_.get()));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(Values(*back), (std::vector<float>{1.5, -2, 8}));
  absl::StatusOr<gpu::DeviceTensor> swapped =
      Await((*group)->DeviceAllToAll(*input, absl::Seconds(30)));
  ASSERT_TRUE(swapped.ok()) << swapped.status();
  back = Await(gpu::CopyToHost(*swapped, host_.get()));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(Values(*back), (std::vector<float>{1.5, -2, 8}));
}

TEST_F(NcclGpuGroupTest, NextGenerationIsSplitWhenNcclHasIt) {
  absl::StatusOr<RCReference<NcclGroup>> parent = CreateNcclGroup(Options(3));
  ASSERT_TRUE(parent.ok()) << parent.status();
  NcclGroupOptions options = Options(4);
  options.parent = parent->get();
  absl::StatusOr<RCReference<NcclGroup>> child = CreateNcclGroup(options);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ((*child)->created_by(), "split");
  auto stale = (*parent)->AllReduce(F32({1}), ReduceOp::kSum, absl::Seconds(5));
  EXPECT_EQ(Classify(stale.status()), FailureClass::kStale) << stale.status();
  auto sum = (*child)->AllReduce(F32({2}), ReduceOp::kSum, absl::Seconds(30));
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(Values(*sum), (std::vector<float>{2}));
}

}  // namespace
}  // namespace sluice::ccl
