// A fake NcclApi for tests on machines without a GPU. Communicators,
// streams and events are host objects and "device" memory is host memory.
// A collective on a communicator of one rank moves its data as NCCL would
// (the send buffer's elements into the receive buffer) when it is
// enqueued; a communicator of several ranks moves nothing, since the fake
// has no peers. What the tests need and a real GPU cannot produce on demand
// is scripted (FakeNcclScript): calls that stay ncclInProgress for N polls,
// an async error after N polls, collectives that never complete, an abort
// that hangs until the test lets it go.
#ifndef SLUICE_LIB_COLLECTIVE_NCCL_FAKE_API_H_
#define SLUICE_LIB_COLLECTIVE_NCCL_FAKE_API_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/time/time.h"
#include "lib/collective/nccl_api.h"

namespace sluice::ccl {

struct FakeNcclScript {
  int version = NCCL_VERSION_CODE;
  // Whether the library has ncclCommSplit / ncclCommShrink.
  bool split = true;
  bool shrink = true;
  // How many GPUs the machine has.
  int devices = 1;
  // Communicator creation (init, split, shrink) answers ncclInProgress and
  // ncclCommGetAsyncError keeps saying so for this many polls.
  int init_in_progress_polls = 0;
  // When positive, creation answers ncclInProgress and completes this much
  // later on a thread of the fake: ncclCommInitRankConfig's communicator
  // says ncclInProgress until then; a split or shrink leaves the new
  // communicator NULL, writes it then (unless the parent was aborted), and
  // its parent says ncclInProgress meanwhile.
  absl::Duration creation_takes = absl::ZeroDuration();
  // When positive, ncclCommFinalize answers ncclInProgress and the
  // communicator says so for this long.
  absl::Duration finalize_takes = absl::ZeroDuration();
  // How long a collective call keeps its caller inside NCCL.
  absl::Duration enqueue_takes = absl::ZeroDuration();
  // What ncclGetLastError says.
  std::string last_error;
  // Each collective call answers ncclInProgress and ncclCommGetAsyncError
  // keeps saying so for this many polls.
  int enqueue_in_progress_polls = 0;
  // What a collective call answers otherwise (ncclSuccess, or an error).
  ncclResult_t enqueue_result = ncclSuccess;
  // A collective's event reports cudaErrorNotReady for this many queries,
  // then cudaSuccess; -1: it never completes (a hung collective).
  int complete_after_queries = 0;
  // ncclCommGetAsyncError reports `async_error` from this many polls on
  // (-1: never).
  int async_error_after_polls = -1;
  ncclResult_t async_error = ncclRemoteError;
  // ncclCommAbort blocks until ReleaseAborts().
  bool abort_hangs = false;
};

class FakeNcclApi final : public NcclApi {
 public:
  explicit FakeNcclApi(FakeNcclScript script = {});
  ~FakeNcclApi() override;

  // Changes the script for communicators and collectives made after.
  void SetScript(const FakeNcclScript& script);
  // Lets every hung ncclCommAbort return (and later ones not hang).
  void ReleaseAborts();

  // What happened, for the tests to check.
  int aborts_started() const;
  int aborts_returned() const;
  int comms_destroyed() const;
  int async_error_polls() const;
  // Bytes of fake device memory not yet freed.
  int64_t device_bytes_in_use() const;
  // NCCL calls on a communicator after it was aborted or destroyed, which
  // NCCL forbids.
  int calls_after_release() const;
  // ncclCommSplit and ncclCommShrink calls, and the excluded ranks of the
  // last shrink.
  int splits() const;
  int shrinks() const;
  // Calls that entered NCCL on a communicator while another thread was
  // inside NCCL on it, which NCCL forbids.
  int concurrent_calls() const;
  // cudaEventRecord of an event made on one device on another's stream.
  int device_mismatches() const;

  int Version() override;
  bool HasCommSplit() override;
  bool HasCommShrink() override;
  ncclResult_t GetUniqueId(ncclUniqueId* id) override;
  ncclResult_t CommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id,
                                  int rank, ncclConfig_t* config) override;
  ncclResult_t CommSplit(ncclComm_t comm, int color, int key,
                         ncclComm_t* new_comm, ncclConfig_t* config) override;
  ncclResult_t CommShrink(ncclComm_t comm, int* exclude_ranks,
                          int exclude_count, ncclComm_t* new_comm,
                          ncclConfig_t* config, int flags) override;
  ncclResult_t CommGetAsyncError(ncclComm_t comm,
                                 ncclResult_t* async_error) override;
  ncclResult_t CommAbort(ncclComm_t comm) override;
  ncclResult_t CommFinalize(ncclComm_t comm) override;
  ncclResult_t CommDestroy(ncclComm_t comm) override;
  std::string GetErrorString(ncclResult_t result) override;
  std::string GetLastError(ncclComm_t comm) override;
  ncclResult_t AllReduce(const void* send, void* recv, size_t count,
                         ncclDataType_t dtype, ncclRedOp_t op, ncclComm_t comm,
                         cudaStream_t stream) override;
  ncclResult_t AllGather(const void* send, void* recv, size_t send_count,
                         ncclDataType_t dtype, ncclComm_t comm,
                         cudaStream_t stream) override;
  ncclResult_t ReduceScatter(const void* send, void* recv, size_t recv_count,
                             ncclDataType_t dtype, ncclRedOp_t op,
                             ncclComm_t comm, cudaStream_t stream) override;
  ncclResult_t Broadcast(const void* send, void* recv, size_t count,
                         ncclDataType_t dtype, int root, ncclComm_t comm,
                         cudaStream_t stream) override;
  ncclResult_t Send(const void* send, size_t count, ncclDataType_t dtype,
                    int peer, ncclComm_t comm, cudaStream_t stream) override;
  ncclResult_t Recv(void* recv, size_t count, ncclDataType_t dtype, int peer,
                    ncclComm_t comm, cudaStream_t stream) override;
  ncclResult_t GroupStart() override;
  ncclResult_t GroupEnd() override;

  cudaError_t GetDeviceCount(int* count) override;
  cudaError_t SetDevice(int device) override;
  cudaError_t StreamCreate(cudaStream_t* stream) override;
  cudaError_t StreamDestroy(cudaStream_t stream) override;
  cudaError_t EventCreate(cudaEvent_t* event) override;
  cudaError_t EventRecord(cudaEvent_t event, cudaStream_t stream) override;
  cudaError_t EventQuery(cudaEvent_t event) override;
  cudaError_t EventDestroy(cudaEvent_t event) override;
  cudaError_t StreamWaitEvent(cudaStream_t stream, cudaEvent_t event) override;
  cudaError_t StreamSynchronize(cudaStream_t stream) override;
  cudaError_t Malloc(void** pointer, size_t bytes) override;
  cudaError_t Free(void* pointer) override;
  cudaError_t MemcpyAsync(void* destination, const void* source, size_t bytes,
                          cudaMemcpyKind kind, cudaStream_t stream) override;
  std::string CudaErrorString(cudaError_t error) override;

 private:
  struct State;
  // Takes a collective on `comm`: copies `bytes` from `send` to `recv` on a
  // communicator of one rank, and queues a fake operation on `stream`.
  ncclResult_t Collective(ncclComm_t comm, cudaStream_t stream,
                          const void* send, void* recv, size_t bytes);

  const std::unique_ptr<State> state_;
};

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_NCCL_FAKE_API_H_
