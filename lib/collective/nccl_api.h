// The NCCL and CUDA runtime calls the NCCL backend makes, behind an
// interface: the real one over libnccl and libcudart (nccl_real_api.h), and a
// fake in tests (nccl_fake_api.h) that injects what a real GPU job meets
// rarely and cannot reproduce on demand: calls that stay in progress, async
// errors, collectives that never complete, an abort that hangs.
//
// The functions mirror NCCL's (nccl.h) and CUDA's one for one, with their
// types, so the code above them reads like code over NCCL.
#ifndef SLUICE_LIB_COLLECTIVE_NCCL_API_H_
#define SLUICE_LIB_COLLECTIVE_NCCL_API_H_

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <string>

#include "absl/status/status.h"

namespace sluice::ccl {

// NCCL_VERSION(2, 18, 0) and NCCL_VERSION(2, 27, 0): the releases that
// brought ncclCommSplit and ncclCommShrink.
inline constexpr int kNcclVersionWithSplit = 21800;
inline constexpr int kNcclVersionWithShrink = 22700;

class NcclApi {
 public:
  virtual ~NcclApi() = default;

  // ncclGetVersion of the library loaded at run time (e.g. 22809), 0 when it
  // cannot say.
  virtual int Version() = 0;
  // Whether both the nccl.h this was built with and the library loaded at
  // run time have ncclCommSplit / ncclCommShrink.
  virtual bool HasCommSplit() = 0;
  virtual bool HasCommShrink() = 0;

  virtual ncclResult_t GetUniqueId(ncclUniqueId* id) = 0;
  virtual ncclResult_t CommInitRankConfig(ncclComm_t* comm, int nranks,
                                          ncclUniqueId id, int rank,
                                          ncclConfig_t* config) = 0;
  virtual ncclResult_t CommSplit(ncclComm_t comm, int color, int key,
                                 ncclComm_t* new_comm,
                                 ncclConfig_t* config) = 0;
  virtual ncclResult_t CommShrink(ncclComm_t comm, int* exclude_ranks,
                                  int exclude_count, ncclComm_t* new_comm,
                                  ncclConfig_t* config, int flags) = 0;
  // The watchdog polls it. Not a plain read: it may progress or join the
  // communicator's background work (NCCL 2.28 frees its group job there),
  // so like every call on a communicator it must not run while another
  // thread is inside NCCL on the same one.
  virtual ncclResult_t CommGetAsyncError(ncclComm_t comm,
                                         ncclResult_t* async_error) = 0;
  // May be called from any thread, but none may be inside NCCL on `comm`
  // meanwhile; may hang (NCCL issues 992, 863, 1777).
  virtual ncclResult_t CommAbort(ncclComm_t comm) = 0;
  virtual ncclResult_t CommFinalize(ncclComm_t comm) = 0;
  virtual ncclResult_t CommDestroy(ncclComm_t comm) = 0;
  virtual std::string GetErrorString(ncclResult_t result) = 0;
  // NCCL's description of its last error ("" when none): the detail that
  // ncclGetErrorString's generic text lacks ("Duplicate GPU detected").
  virtual std::string GetLastError(ncclComm_t comm) = 0;

  virtual ncclResult_t AllReduce(const void* send, void* recv, size_t count,
                                 ncclDataType_t dtype, ncclRedOp_t op,
                                 ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t AllGather(const void* send, void* recv,
                                 size_t send_count, ncclDataType_t dtype,
                                 ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t ReduceScatter(const void* send, void* recv,
                                     size_t recv_count, ncclDataType_t dtype,
                                     ncclRedOp_t op, ncclComm_t comm,
                                     cudaStream_t stream) = 0;
  virtual ncclResult_t Broadcast(const void* send, void* recv, size_t count,
                                 ncclDataType_t dtype, int root,
                                 ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t Send(const void* send, size_t count,
                            ncclDataType_t dtype, int peer, ncclComm_t comm,
                            cudaStream_t stream) = 0;
  virtual ncclResult_t Recv(void* recv, size_t count, ncclDataType_t dtype,
                            int peer, ncclComm_t comm, cudaStream_t stream) = 0;
  virtual ncclResult_t GroupStart() = 0;
  virtual ncclResult_t GroupEnd() = 0;

  // The CUDA runtime calls around the collectives.
  virtual cudaError_t GetDeviceCount(int* count) = 0;
  virtual cudaError_t SetDevice(int device) = 0;
  virtual cudaError_t StreamCreate(cudaStream_t* stream) = 0;
  virtual cudaError_t StreamDestroy(cudaStream_t stream) = 0;
  virtual cudaError_t EventCreate(cudaEvent_t* event) = 0;
  virtual cudaError_t EventRecord(cudaEvent_t event, cudaStream_t stream) = 0;
  // cudaSuccess once the work recorded before the event is done,
  // cudaErrorNotReady before.
  virtual cudaError_t EventQuery(cudaEvent_t event) = 0;
  virtual cudaError_t EventDestroy(cudaEvent_t event) = 0;
  virtual cudaError_t StreamWaitEvent(cudaStream_t stream,
                                      cudaEvent_t event) = 0;
  // Only for streams whose work cannot wait on a collective.
  virtual cudaError_t StreamSynchronize(cudaStream_t stream) = 0;
  virtual cudaError_t Malloc(void** pointer, size_t bytes) = 0;
  virtual cudaError_t Free(void* pointer) = 0;
  virtual cudaError_t MemcpyAsync(void* destination, const void* source,
                                  size_t bytes, cudaMemcpyKind kind,
                                  cudaStream_t stream) = 0;
  virtual std::string CudaErrorString(cudaError_t error) = 0;
};

// `result` as a status for `what` ("ncclAllReduce"), with NCCL's last
// error appended: OK for ncclSuccess and ncclInProgress; INVALID_ARGUMENT
// for ncclInvalidArgument and ncclInvalidUsage (the caller's mistake,
// fatal); UNAVAILABLE for the others (a peer, the network, CUDA or NCCL
// itself failed: retryable once the communicator is rebuilt).
absl::Status NcclStatus(NcclApi& api, ncclResult_t result,
                        const std::string& what, ncclComm_t comm = nullptr);
// `error` as a status: OK for cudaSuccess, UNAVAILABLE otherwise.
absl::Status CudaStatus(NcclApi& api, cudaError_t error,
                        const std::string& what);

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_NCCL_API_H_
