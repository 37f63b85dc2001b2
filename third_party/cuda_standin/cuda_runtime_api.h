// Sluice's stand-in for the CUDA runtime's header, used when the build found
// no CUDA toolkit (third_party/cuda_configure.bzl). It declares only what
// Sluice calls, with the runtime's names, values and signatures, so that the
// code compiles unchanged; cudart_standin.cc makes every call fail.
#ifndef SLUICE_THIRD_PARTY_CUDA_STANDIN_CUDA_RUNTIME_API_H_
#define SLUICE_THIRD_PARTY_CUDA_STANDIN_CUDA_RUNTIME_API_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// The runtime's numbering, so that a code logged by this build reads the
// same as one logged by a build with CUDA.
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInsufficientDriver = 35,
  cudaErrorDevicesUnavailable = 46,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorLaunchFailure = 719,
  cudaErrorSystemDriverMismatch = 803,
  cudaErrorCompatNotSupportedOnDevice = 804,
};
typedef enum cudaError cudaError_t;

typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
};

enum cudaMemoryType {
  cudaMemoryTypeHost = 1,
};

struct cudaPointerAttributes {
  enum cudaMemoryType type;
};

struct cudaDeviceProp {
  char name[256];
};

#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00

const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* properties,
                                    int device);

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned int flags);

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventDestroy(cudaEvent_t event);

cudaError_t cudaMalloc(void** pointer, size_t bytes);
cudaError_t cudaFree(void* pointer);
cudaError_t cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t stream);
cudaError_t cudaFreeAsync(void* pointer, cudaStream_t stream);
cudaError_t cudaHostAlloc(void** pointer, size_t bytes, unsigned int flags);
cudaError_t cudaMemcpyAsync(void* destination, const void* source,
                            size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes* attributes,
                                     const void* pointer);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // SLUICE_THIRD_PARTY_CUDA_STANDIN_CUDA_RUNTIME_API_H_
