// A replica's state as a list of dense host tensors (the tensors a
// `tfrt_ft.start_quorum` op is given), and the byte format it heals with:
//
//   "SLTS" u32 count, then per tensor: u8 dtype, u8 rank, i64 dims[rank],
//   u64 bytes, the elements (row-major)
//
// integers in the host's byte order (replicas of a job share an
// architecture). Checked field by field on the way in: a peer's bytes are
// never trusted.
#ifndef SLUICE_LIB_FT_TENSOR_REPLICA_STATE_H_
#define SLUICE_LIB_FT_TENSOR_REPLICA_STATE_H_

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sluice/ft/manager.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::ft {

// The tensors in the format above; InvalidArgument for a tensor without a
// buffer.
absl::StatusOr<std::string> SerializeTensors(
    absl::Span<const DenseHostTensor> tensors);

// The tensors `bytes` holds, each in a buffer from `allocator`.
// InvalidArgument naming the tensor and the field when the bytes are not
// the format above.
absl::StatusOr<std::vector<DenseHostTensor>> ParseTensors(
    std::string_view bytes, HostAllocator* allocator);

class TensorReplicaState final : public ReplicaState {
 public:
  explicit TensorReplicaState(HostAllocator* allocator)
      : allocator_(allocator) {}

  // The state from now on (the tensors share their buffers with the
  // caller's, which are not written after they are given here).
  void Set(std::vector<DenseHostTensor> tensors);
  std::vector<DenseHostTensor> Get() const;

  absl::StatusOr<std::string> Save() override;
  absl::Status Load(std::string_view bytes) override;

 private:
  HostAllocator* const allocator_;
  mutable std::mutex mu_;
  std::vector<DenseHostTensor> tensors_;
};

}  // namespace sluice::ft

#endif  // SLUICE_LIB_FT_TENSOR_REPLICA_STATE_H_
