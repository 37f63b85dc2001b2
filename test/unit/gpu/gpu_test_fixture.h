// A fixture for tests that need a CUDA device: they skip, saying why, on
// machines without one (developers' machines and CI).
#ifndef SLUICE_TEST_UNIT_GPU_GPU_TEST_FIXTURE_H_
#define SLUICE_TEST_UNIT_GPU_GPU_TEST_FIXTURE_H_

#include <memory>

#include "gtest/gtest.h"
#include "sluice/gpu/gpu_device.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_context.h"

namespace sluice::gpu {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<int> count = CountDevices();
    if (!count.ok()) GTEST_SKIP() << count.status().message();
    absl::StatusOr<RCReference<GpuDevice>> device = GpuDevice::Open(0);
    ASSERT_TRUE(device.ok()) << device.status();
    device_ = *std::move(device);
  }

  HostContext* host() { return host_.get(); }
  const RCReference<GpuDevice>& device() { return device_; }

 private:
  std::unique_ptr<HostContext> host_ = std::make_unique<HostContext>(
      [](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
      *CreateWorkQueue("mstd:2"));
  RCReference<GpuDevice> device_;
};

}  // namespace sluice::gpu

#endif  // SLUICE_TEST_UNIT_GPU_GPU_TEST_FIXTURE_H_
