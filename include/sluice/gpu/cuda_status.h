// CUDA runtime errors as absl::Status values.
#ifndef SLUICE_GPU_CUDA_STATUS_H_
#define SLUICE_GPU_CUDA_STATUS_H_

#include <cuda_runtime_api.h>

#include <string>

#include "absl/status/status.h"

namespace sluice {
namespace gpu {

// OK for cudaSuccess; otherwise "<what>: <error name> (<error string>)",
// e.g. "cudaMalloc of 1024 bytes on device 0: cudaErrorMemoryAllocation
// (out of memory)". The code says what a caller can do about it: out of
// memory is ResourceExhausted, a missing device or driver
// FailedPrecondition, a bad argument InvalidArgument, anything else
// (launch failures, a device that fell off the bus) Internal.
absl::Status CudaStatus(cudaError_t error, const std::string& what);

// "cudaErrorNoDevice (no CUDA-capable device is detected)".
std::string DescribeCudaError(cudaError_t error);

}  // namespace gpu
}  // namespace sluice

#endif  // SLUICE_GPU_CUDA_STATUS_H_
