// NCCL in a build without CUDA. Every call fails with ncclInvalidUsage,
// which Sluice treats as fatal rather than retrying (a retry cannot find
// what the build lacks), described by the CUDA stand-in's message; there is
// no library whose version ncclGetVersion could give, so it says 0.
#include <nccl.h>

#include "cuda_standin_message.h"

namespace {

ncclResult_t NoNccl() { return ncclInvalidUsage; }

}  // namespace

extern "C" {

ncclResult_t ncclGetVersion(int* version) {
  if (version != nullptr) *version = 0;
  return ncclSuccess;
}

// The other descriptions are the ones NCCL gives.
const char* ncclGetErrorString(ncclResult_t result) {
  switch (result) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error";
    case ncclSystemError:
      return "unhandled system error";
    case ncclInternalError:
      return "internal error";
    case ncclInvalidArgument:
      return "invalid argument";
    case ncclInvalidUsage:
      return SLUICE_NO_CUDA_MESSAGE;
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "NCCL operation in progress";
  }
  return "unknown result code";
}

// Empty: ncclGetErrorString already says all there is, and callers append a
// non-empty last error to it.
const char* ncclGetLastError(ncclComm_t) { return ""; }

ncclResult_t ncclGetUniqueId(ncclUniqueId*) { return NoNccl(); }

ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int, ncclUniqueId, int,
                                    ncclConfig_t*) {
  if (comm != nullptr) *comm = nullptr;
  return NoNccl();
}

ncclResult_t ncclCommSplit(ncclComm_t, int, int, ncclComm_t* newcomm,
                           ncclConfig_t*) {
  if (newcomm != nullptr) *newcomm = nullptr;
  return NoNccl();
}

ncclResult_t ncclCommShrink(ncclComm_t, int*, int, ncclComm_t* newcomm,
                            ncclConfig_t*, int) {
  if (newcomm != nullptr) *newcomm = nullptr;
  return NoNccl();
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t* asyncError) {
  if (asyncError != nullptr) *asyncError = ncclInvalidUsage;
  return NoNccl();
}

ncclResult_t ncclCommAbort(ncclComm_t) { return NoNccl(); }

ncclResult_t ncclCommFinalize(ncclComm_t) { return NoNccl(); }

ncclResult_t ncclCommDestroy(ncclComm_t) { return NoNccl(); }

ncclResult_t ncclAllReduce(const void*, void*, size_t, ncclDataType_t,
                           ncclRedOp_t, ncclComm_t, cudaStream_t) {
  return NoNccl();
}

ncclResult_t ncclAllGather(const void*, void*, size_t, ncclDataType_t,
                           ncclComm_t, cudaStream_t) {
  return NoNccl();
}

ncclResult_t ncclReduceScatter(const void*, void*, size_t, ncclDataType_t,
                               ncclRedOp_t, ncclComm_t, cudaStream_t) {
  return NoNccl();
}

ncclResult_t ncclBroadcast(const void*, void*, size_t, ncclDataType_t, int,
                           ncclComm_t, cudaStream_t) {
  return NoNccl();
}

ncclResult_t ncclSend(const void*, size_t, ncclDataType_t, int, ncclComm_t,
                      cudaStream_t) {
  return NoNccl();
}

ncclResult_t ncclRecv(void*, size_t, ncclDataType_t, int, ncclComm_t,
                      cudaStream_t) {
  return NoNccl();
}

ncclResult_t ncclGroupStart(void) { return NoNccl(); }

ncclResult_t ncclGroupEnd(void) { return NoNccl(); }

}  // extern "C"
