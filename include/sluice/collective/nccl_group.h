// The NCCL backend of CollectiveGroup: collectives among the GPUs of one
// generation's ranks, over non-blocking NCCL communicators watched by the
// process's NCCL watchdog, so that a dead or stalled peer, or a hung NCCL
// call, becomes an error value within the collective's deadline instead of
// a hang. docs/collectives.md ("NCCL") describes the model, the watchdog,
// deadlines and escalation.
#ifndef SLUICE_COLLECTIVE_NCCL_GROUP_H_
#define SLUICE_COLLECTIVE_NCCL_GROUP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sluice/collective/collective_group.h"
#include "sluice/gpu/device_tensor.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/ref_count.h"

namespace sluice::ccl {

struct NcclGroupOptions {
  // host:port of the rendezvous store (lib/collective/store_service.proto)
  // where rank 0 publishes the communicator's ncclUniqueId under
  // gen/<generation>/nccl_unique_id.
  std::string store_address;
  int rank = 0;
  int size = 1;
  // The quorum id.
  int64_t generation = 0;
  // The CUDA device of this rank.
  int device = 0;
  // How long every rank has to reach the store and join the communicator.
  absl::Duration connect_timeout = absl::Seconds(30);
  // The timeout of a collective called with absl::InfiniteDuration().
  absl::Duration default_timeout = absl::Seconds(30);
  // How long ncclCommAbort may take before the process exits with the
  // launcher's restartable code (docs/collectives.md, "Escalation").
  absl::Duration abort_timeout = absl::Seconds(10);
  // The previous generation's NCCL group, when this rank had one: the new
  // communicator is split (ncclCommSplit) or shrunk (ncclCommShrink, with
  // `excluded_parent_ranks` left out) from its communicator when the
  // installed NCCL has the call and the parent still works, instead of a
  // new ncclCommInitRank. Every rank of the new group must pass its parent
  // (and the same excluded ranks), or none. The parent is retired: its
  // later calls fail with a stale error. The caller keeps it alive during
  // CreateNcclGroup and runs no collective on it meanwhile.
  CollectiveGroup* parent = nullptr;
  std::vector<int> excluded_parent_ranks;
  // Where host result tensors are allocated; null: the process heap.
  HostAllocator* allocator = nullptr;
};

// The collectives on device tensors, besides CollectiveGroup's on host
// tensors (which stage through device memory). Each enqueues on the group's
// stream, after the work already on the input's stream, and returns at
// once; the value becomes available on the watchdog's thread when the
// collective is done on the device, or an error (the same errors as the
// host collectives'). Waiters on it must be short (hand work to a queue).
class NcclGroup : public CollectiveGroup {
 public:
  virtual AsyncValueRef<gpu::DeviceTensor> DeviceAllReduce(
      const gpu::DeviceTensor& input, ReduceOp op, absl::Duration timeout) = 0;
  // Every rank's input stacked along a new dimension 0 of size().
  virtual AsyncValueRef<gpu::DeviceTensor> DeviceAllGather(
      const gpu::DeviceTensor& input, absl::Duration timeout) = 0;
  virtual AsyncValueRef<gpu::DeviceTensor> DeviceReduceScatter(
      const gpu::DeviceTensor& input, ReduceOp op, absl::Duration timeout) = 0;
  virtual AsyncValueRef<gpu::DeviceTensor> DeviceBroadcast(
      const gpu::DeviceTensor& input, int root, absl::Duration timeout) = 0;
  // Dimension 0 of `input` splits into size() parts; part p goes to rank p,
  // and part p of the result came from rank p.
  virtual AsyncValueRef<gpu::DeviceTensor> DeviceAllToAll(
      const gpu::DeviceTensor& input, absl::Duration timeout) = 0;
  // Point to point, matched in order per peer (NCCL has no tags).
  virtual AsyncValueRef<Chain> DeviceSend(const gpu::DeviceTensor& input,
                                          int peer, absl::Duration timeout) = 0;
  virtual AsyncValueRef<gpu::DeviceTensor> DeviceRecv(
      DType dtype, const TensorShape& shape, int peer,
      absl::Duration timeout) = 0;

  // How this group's communicator was made: "init", "split" or "shrink".
  virtual std::string_view created_by() const = 0;

 protected:
  using CollectiveGroup::CollectiveGroup;
};

// Creates this rank's communicator (blocking: every rank must call it) on
// the process's NCCL watchdog. FAILED_PRECONDITION "no CUDA device: ..."
// on a machine without one; retryable DEADLINE_EXCEEDED when the ranks do
// not all come within the connect timeout; stale when the store dropped
// the generation; INVALID_ARGUMENT for bad options.
absl::StatusOr<RCReference<NcclGroup>> CreateNcclGroup(
    const NcclGroupOptions& options);

// Whether this process sees a CUDA device (so that NCCL groups can work).
bool HasCudaDevice();

}  // namespace sluice::ccl

#endif  // SLUICE_COLLECTIVE_NCCL_GROUP_H_
