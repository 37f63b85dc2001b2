// NcclApi over libnccl and libcudart.
#include "lib/collective/nccl_real_api.h"

#include "absl/strings/str_cat.h"

namespace sluice::ccl {
namespace {

class RealApi final : public NcclApi {
 public:
  int Version() override {
    int version = 0;
    return ncclGetVersion(&version) == ncclSuccess ? version : 0;
  }
  bool HasCommSplit() override {
    return NCCL_VERSION_CODE >= kNcclVersionWithSplit &&
           Version() >= kNcclVersionWithSplit;
  }
  bool HasCommShrink() override {
    return NCCL_VERSION_CODE >= kNcclVersionWithShrink &&
           Version() >= kNcclVersionWithShrink;
  }
  ncclResult_t GetUniqueId(ncclUniqueId* id) override {
    return ncclGetUniqueId(id);
  }
  ncclResult_t CommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id,
                                  int rank, ncclConfig_t* config) override {
    return ncclCommInitRankConfig(comm, nranks, id, rank, config);
  }
  ncclResult_t CommSplit(ncclComm_t comm, int color, int key,
                         ncclComm_t* new_comm, ncclConfig_t* config) override {
#if NCCL_VERSION_CODE >= 21800
    return ncclCommSplit(comm, color, key, new_comm, config);
#else
    return ncclInvalidUsage;
#endif
  }
  ncclResult_t CommShrink(ncclComm_t comm, int* exclude_ranks,
                          int exclude_count, ncclComm_t* new_comm,
                          ncclConfig_t* config, int flags) override {
#if NCCL_VERSION_CODE >= 22700
    return ncclCommShrink(comm, exclude_ranks, exclude_count, new_comm, config,
                          flags);
#else
    return ncclInvalidUsage;
#endif
  }
  ncclResult_t CommGetAsyncError(ncclComm_t comm,
                                 ncclResult_t* async_error) override {
    return ncclCommGetAsyncError(comm, async_error);
  }
  ncclResult_t CommAbort(ncclComm_t comm) override {
    return ncclCommAbort(comm);
  }
  ncclResult_t CommFinalize(ncclComm_t comm) override {
    return ncclCommFinalize(comm);
  }
  ncclResult_t CommDestroy(ncclComm_t comm) override {
    return ncclCommDestroy(comm);
  }
  std::string GetErrorString(ncclResult_t result) override {
    return ncclGetErrorString(result);
  }
  std::string GetLastError(ncclComm_t comm) override {
    const char* last = ncclGetLastError(comm);
    return last == nullptr ? "" : last;
  }
  ncclResult_t AllReduce(const void* send, void* recv, size_t count,
                         ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                         cudaStream_t stream) override {
    return ncclAllReduce(send, recv, count, dtype, op, comm, stream);
  }
  ncclResult_t AllGather(const void* send, void* recv, size_t send_count,
                         ncclDataType_t dtype, ncclComm_t comm,
                         cudaStream_t stream) override {
    return ncclAllGather(send, recv, send_count, dtype, comm, stream);
  }
  ncclResult_t ReduceScatter(const void* send, void* recv, size_t recv_count,
                             ncclDataType_t dtype, ncclRedOp_t op,
                             ncclComm_t comm, cudaStream_t stream) override {
    return ncclReduceScatter(send, recv, recv_count, dtype, op, comm, stream);
  }
  ncclResult_t Broadcast(const void* send, void* recv, size_t count,
                         ncclDataType_t dtype, int root, ncclComm_t comm,
                         cudaStream_t stream) override {
    return ncclBroadcast(send, recv, count, dtype, root, comm, stream);
  }
  ncclResult_t Send(const void* send, size_t count, ncclDataType_t dtype,
                    int peer, ncclComm_t comm, cudaStream_t stream) override {
    return ncclSend(send, count, dtype, peer, comm, stream);
  }
  ncclResult_t Recv(void* recv, size_t count, ncclDataType_t dtype, int peer,
                    ncclComm_t comm, cudaStream_t stream) override {
    return ncclRecv(recv, count, dtype, peer, comm, stream);
  }
  ncclResult_t GroupStart() override { return ncclGroupStart(); }
  ncclResult_t GroupEnd() override { return ncclGroupEnd(); }

  cudaError_t GetDeviceCount(int* count) override {
    return cudaGetDeviceCount(count);
  }
  cudaError_t SetDevice(int device) override { return cudaSetDevice(device); }
  cudaError_t StreamCreate(cudaStream_t* stream) override {
    return cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking);
  }
  cudaError_t StreamDestroy(cudaStream_t stream) override {
    return cudaStreamDestroy(stream);
  }
  cudaError_t EventCreate(cudaEvent_t* event) override {
    return cudaEventCreateWithFlags(event, cudaEventDisableTiming);
  }
  cudaError_t EventRecord(cudaEvent_t event, cudaStream_t stream) override {
    return cudaEventRecord(event, stream);
  }
  cudaError_t EventQuery(cudaEvent_t event) override {
    return cudaEventQuery(event);
  }
  cudaError_t EventDestroy(cudaEvent_t event) override {
    return cudaEventDestroy(event);
  }
  cudaError_t StreamWaitEvent(cudaStream_t stream, cudaEvent_t event) override {
    return cudaStreamWaitEvent(stream, event, 0);
  }
  cudaError_t StreamSynchronize(cudaStream_t stream) override {
    return cudaStreamSynchronize(stream);
  }
  cudaError_t Malloc(void** pointer, size_t bytes) override {
    return cudaMalloc(pointer, bytes);
  }
  cudaError_t Free(void* pointer) override { return cudaFree(pointer); }
  cudaError_t MemcpyAsync(void* destination, const void* source, size_t bytes,
                          cudaMemcpyKind kind, cudaStream_t stream) override {
    return cudaMemcpyAsync(destination, source, bytes, kind, stream);
  }
  std::string CudaErrorString(cudaError_t error) override {
    return absl::StrCat(cudaGetErrorName(error), ": ",
                        cudaGetErrorString(error));
  }
};

}  // namespace

NcclApi* RealNcclApi() {
  static NcclApi* const api = new RealApi();
  return api;
}

}  // namespace sluice::ccl
