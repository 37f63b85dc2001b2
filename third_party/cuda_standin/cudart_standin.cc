// The CUDA runtime of a build without CUDA: there is no device, so every
// call fails with cudaErrorNoDevice, whose description says why, and the
// GPU code reports that as it reports a machine without a GPU
// (docs/gpu.md, "Building").
#include <cuda_runtime_api.h>

#include "cuda_standin_message.h"

namespace {

cudaError_t NoCuda() { return cudaErrorNoDevice; }

}  // namespace

extern "C" {

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInsufficientDriver:
      return "cudaErrorInsufficientDriver";
    case cudaErrorDevicesUnavailable:
      return "cudaErrorDevicesUnavailable";
    case cudaErrorNoDevice:
      return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle:
      return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady:
      return "cudaErrorNotReady";
    case cudaErrorLaunchFailure:
      return "cudaErrorLaunchFailure";
    case cudaErrorSystemDriverMismatch:
      return "cudaErrorSystemDriverMismatch";
    case cudaErrorCompatNotSupportedOnDevice:
      return "cudaErrorCompatNotSupportedOnDevice";
  }
  return "cudaErrorUnknown";
}

// The other descriptions are those the runtime gives, as messages and tests
// quote them whether or not the build has CUDA.
const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInsufficientDriver:
      return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorDevicesUnavailable:
      return "CUDA-capable device(s) is/are busy or unavailable";
    case cudaErrorNoDevice:
      return SLUICE_NO_CUDA_MESSAGE;
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorLaunchFailure:
      return "unspecified launch failure";
    case cudaErrorSystemDriverMismatch:
      return "system has unsupported display driver / cuda driver combination";
    case cudaErrorCompatNotSupportedOnDevice:
      return "forward compatibility was attempted on non supported HW";
  }
  return "unrecognized error code";
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (count != nullptr) *count = 0;
  return NoCuda();
}

cudaError_t cudaSetDevice(int) { return NoCuda(); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp*, int) { return NoCuda(); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  if (stream != nullptr) *stream = nullptr;
  return NoCuda();
}

cudaError_t cudaStreamDestroy(cudaStream_t) { return NoCuda(); }

cudaError_t cudaStreamSynchronize(cudaStream_t) { return NoCuda(); }

cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned int) {
  return NoCuda();
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  if (event != nullptr) *event = nullptr;
  return NoCuda();
}

cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return NoCuda(); }

cudaError_t cudaEventQuery(cudaEvent_t) { return NoCuda(); }

cudaError_t cudaEventDestroy(cudaEvent_t) { return NoCuda(); }

cudaError_t cudaMalloc(void** pointer, size_t) {
  if (pointer != nullptr) *pointer = nullptr;
  return NoCuda();
}

cudaError_t cudaFree(void*) { return NoCuda(); }

cudaError_t cudaMallocAsync(void** pointer, size_t, cudaStream_t) {
  if (pointer != nullptr) *pointer = nullptr;
  return NoCuda();
}

cudaError_t cudaFreeAsync(void*, cudaStream_t) { return NoCuda(); }

cudaError_t cudaHostAlloc(void** pointer, size_t, unsigned int) {
  if (pointer != nullptr) *pointer = nullptr;
  return NoCuda();
}

cudaError_t cudaMemcpyAsync(void*, const void*, size_t, cudaMemcpyKind,
                            cudaStream_t) {
  return NoCuda();
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes*, const void*) {
  return NoCuda();
}

}  // extern "C"
