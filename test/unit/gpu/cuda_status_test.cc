// CUDA errors as statuses. The runtime names its errors without a device or
// driver, so this runs everywhere.
#include "sluice/gpu/cuda_status.h"

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace sluice::gpu {
namespace {

TEST(CudaStatusTest, SuccessIsOk) {
  EXPECT_TRUE(CudaStatus(cudaSuccess, "cudaMalloc of 8 bytes").ok());
}

TEST(CudaStatusTest, NamesTheCallAndTheError) {
  absl::Status status =
      CudaStatus(cudaErrorMemoryAllocation, "cudaMalloc of 8 bytes on gpu:0");
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "cudaMalloc of 8 bytes on gpu:0: cudaErrorMemoryAllocation (out "
            "of memory)");
}

TEST(CudaStatusTest, CodesSayWhatTheCallerCanDo) {
  EXPECT_EQ(CudaStatus(cudaErrorNoDevice, "x").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CudaStatus(cudaErrorInsufficientDriver, "x").code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CudaStatus(cudaErrorInvalidDevice, "x").code(),
            absl::StatusCode::kInvalidArgument);
  absl::Status launch = CudaStatus(cudaErrorLaunchFailure, "work on gpu:0");
  EXPECT_EQ(launch.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(launch.message(),
            "work on gpu:0: cudaErrorLaunchFailure (unspecified launch "
            "failure)");
}

}  // namespace
}  // namespace sluice::gpu
