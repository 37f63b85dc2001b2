// NcclApi over libnccl and libcudart.
//
// The binaries are linked with -z now, so every NCCL symbol they reference
// must exist in the libnccl found at load time, or the process stops before
// main. The GPU machines may carry an older NCCL (PyTorch's, >= 2.18), so
// the entry points newer than the oldest NCCL supported are not referenced:
// they are looked up by name at run time and used only when found.
// ncclCommInitRankConfig, ncclCommFinalize and ncclGetLastError (2.13/2.14)
// are older than any NCCL Sluice supports and stay direct calls.
#include "lib/collective/nccl_real_api.h"

#include <dlfcn.h>

#include <type_traits>

#include "absl/strings/str_cat.h"

namespace sluice::ccl {
namespace {

// Written out rather than decltype(&ncclCommSplit), so that they exist with
// an nccl.h that lacks the calls; checked against nccl.h where it has them.
using CommSplitFn = ncclResult_t (*)(ncclComm_t comm, int color, int key,
                                     ncclComm_t* newcomm, ncclConfig_t* config);
using CommShrinkFn = ncclResult_t (*)(ncclComm_t comm, int* excludeRanksList,
                                      int excludeRanksCount,
                                      ncclComm_t* newcomm, ncclConfig_t* config,
                                      int shrinkFlags);
#if NCCL_VERSION_CODE >= 21800
static_assert(std::is_same_v<CommSplitFn, decltype(&ncclCommSplit)>,
              "CommSplitFn differs from nccl.h's ncclCommSplit");
#endif
#if NCCL_VERSION_CODE >= 22700
static_assert(std::is_same_v<CommShrinkFn, decltype(&ncclCommShrink)>,
              "CommShrinkFn differs from nccl.h's ncclCommShrink");
#endif

// RTLD_DEFAULT, not a handle of our own: the libnccl to call is the one the
// process already loaded (the one ncclGetVersion answers for). Null when the
// nccl.h built against predates the call, so that a prototype it never
// declared is never trusted.
template <typename Fn>
Fn LookUp(const char* name, int header_version_needed) {
  if (NCCL_VERSION_CODE < header_version_needed) return nullptr;
  return reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
}

class RealApi final : public NcclApi {
 public:
  int Version() override {
    int version = 0;
    return ncclGetVersion(&version) == ncclSuccess ? version : 0;
  }
  bool HasCommSplit() override {
    return NCCL_VERSION_CODE >= kNcclVersionWithSplit &&
           Version() >= kNcclVersionWithSplit && comm_split_ != nullptr;
  }
  bool HasCommShrink() override {
    return NCCL_VERSION_CODE >= kNcclVersionWithShrink &&
           Version() >= kNcclVersionWithShrink && comm_shrink_ != nullptr;
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
    if (comm_split_ == nullptr) return ncclInvalidUsage;
    return comm_split_(comm, color, key, new_comm, config);
  }
  ncclResult_t CommShrink(ncclComm_t comm, int* exclude_ranks,
                          int exclude_count, ncclComm_t* new_comm,
                          ncclConfig_t* config, int flags) override {
    if (comm_shrink_ == nullptr) return ncclInvalidUsage;
    return comm_shrink_(comm, exclude_ranks, exclude_count, new_comm, config,
                        flags);
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

 private:
  // Looked up once, when RealNcclApi() first builds the API (a thread-safe
  // static), and never written again, so any thread may read them.
  const CommSplitFn comm_split_ =
      LookUp<CommSplitFn>("ncclCommSplit", kNcclVersionWithSplit);
  const CommShrinkFn comm_shrink_ =
      LookUp<CommShrinkFn>("ncclCommShrink", kNcclVersionWithShrink);
};

}  // namespace

NcclApi* RealNcclApi() {
  static NcclApi* const api = new RealApi();
  return api;
}

}  // namespace sluice::ccl
