// Dense host tensors on the wire (proto::Tensor): the checks every tensor
// message from a peer passes before anything reads its elements, and the
// copies in and out of a message. Shared by the value codec (remote calls)
// and the parameter-server variables, which update a variable straight from
// the message's bytes without decoding them into a tensor of their own.
#ifndef SLUICE_LIB_DISTRIBUTED_TENSOR_CODEC_H_
#define SLUICE_LIB_DISTRIBUTED_TENSOR_CODEC_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/distributed/worker_service.pb.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice::dist {

// A tensor message that passed CheckTensor: its elements are `data`, inside
// the message (not copied, not necessarily aligned), valid while the
// message is.
struct WireTensor {
  DType dtype = DType::kI32;
  TensorShape shape;
  const char* data = nullptr;
  size_t size = 0;  // bytes: shape.num_elements() * DTypeSize(dtype)

  // "f32 [2, 3]".
  std::string Describe() const;
};

// Checks what a peer sent: a known dtype, a valid shape (no negative
// dimension, a rank within TensorShape::kMaxRank, an element count that
// int64 holds), exactly the bytes the dtype and shape need, and i1 bytes
// that are 0 or 1. InvalidArgument naming what is wrong otherwise.
absl::StatusOr<WireTensor> CheckTensor(const proto::Tensor& tensor);

// A tensor of its own: the message's bytes copied once into a 64-byte
// aligned buffer from `allocator`. CheckTensor's errors, or
// ResourceExhausted when the allocator refuses.
absl::StatusOr<DenseHostTensor> DecodeTensor(const proto::Tensor& tensor,
                                             HostAllocator* allocator);

// Writes `tensor` (its bytes copied once, into the message's string).
// InvalidArgument for a tensor without a buffer (never assigned).
absl::Status EncodeTensor(const DenseHostTensor& tensor, proto::Tensor* out);

// "f32 [2, 3]".
std::string DescribeTensor(const DenseHostTensor& tensor);

}  // namespace sluice::dist

#endif  // SLUICE_LIB_DISTRIBUTED_TENSOR_CODEC_H_
