// What each rank says about the collective it is about to run, exchanged
// before the collective so that ranks that disagree (another op, dtype or
// shape, or a rank one collective ahead) fail with a fatal error instead of
// moving bytes that mean different things.
#ifndef SLUICE_LIB_COLLECTIVE_OP_HEADER_H_
#define SLUICE_LIB_COLLECTIVE_OP_HEADER_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::ccl {

enum class OpKind : int64_t {
  kAllReduce = 1,
  kAllGather = 2,
  kReduceScatter = 3,
  kBroadcast = 4,
  kBarrier = 5,
  kSend = 6,
};

// A fixed-size record: the same bytes on two ranks mean they agree.
struct OpHeader {
  static constexpr int kMaxDims = 8;
  // sequence, kind, parameter, dtype, rank, dims..., hash of every dim
  static constexpr int kFields = 5 + kMaxDims + 1;
  std::array<int64_t, kFields> fields{};
};

// `parameter` is the reduction or the root; -1 when the op has none.
// `tensor` is null for a barrier.
OpHeader MakeOpHeader(int64_t sequence, OpKind kind, int64_t parameter,
                      const DenseHostTensor* tensor);
OpHeader MakeOpHeader(int64_t sequence, OpKind kind, int64_t parameter,
                      DType dtype, const TensorShape& shape);

// "allreduce #3 (param 0) of f32[2,3]".
std::string DescribeOpHeader(const OpHeader& header);

// InvalidArgument naming the first rank whose header differs from
// `headers[my_rank]`; OK when all agree.
absl::Status CheckOpHeaders(absl::Span<const OpHeader> headers, int my_rank);

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_OP_HEADER_H_
