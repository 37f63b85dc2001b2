#include "lib/collective/op_header.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace sluice::ccl {
namespace {

enum Field { kSequence = 0, kKind = 1, kParameter = 2, kDType = 3, kRank = 4 };
constexpr int kFirstDim = 5;
constexpr int kDimsHash = OpHeader::kFields - 1;

const char* KindName(int64_t kind) {
  switch (static_cast<OpKind>(kind)) {
    case OpKind::kAllReduce:
      return "allreduce";
    case OpKind::kAllGather:
      return "allgather";
    case OpKind::kReduceScatter:
      return "reduce_scatter";
    case OpKind::kBroadcast:
      return "broadcast";
    case OpKind::kBarrier:
      return "barrier";
    case OpKind::kSend:
      return "send";
  }
  return "unknown op";
}

}  // namespace

OpHeader MakeOpHeader(int64_t sequence, OpKind kind, int64_t parameter,
                      DType dtype, const TensorShape& shape) {
  OpHeader header;
  header.fields[kSequence] = sequence;
  header.fields[kKind] = static_cast<int64_t>(kind);
  header.fields[kParameter] = parameter;
  header.fields[kDType] = static_cast<int64_t>(dtype);
  header.fields[kRank] = shape.rank();
  // FNV-1a over the dims, for shapes with more than kMaxDims of them.
  uint64_t hash = 1469598103934665603ull;
  for (int i = 0; i < shape.rank(); ++i) {
    if (i < OpHeader::kMaxDims) header.fields[kFirstDim + i] = shape.dim(i);
    hash = (hash ^ static_cast<uint64_t>(shape.dim(i))) * 1099511628211ull;
  }
  header.fields[kDimsHash] = static_cast<int64_t>(hash);
  return header;
}

OpHeader MakeOpHeader(int64_t sequence, OpKind kind, int64_t parameter,
                      const DenseHostTensor* tensor) {
  if (tensor == nullptr) {
    OpHeader header;
    header.fields[kSequence] = sequence;
    header.fields[kKind] = static_cast<int64_t>(kind);
    header.fields[kParameter] = parameter;
    header.fields[kDType] = -1;
    return header;
  }
  return MakeOpHeader(sequence, kind, parameter, tensor->dtype(),
                      tensor->shape());
}

std::string DescribeOpHeader(const OpHeader& header) {
  const auto& f = header.fields;
  std::string description =
      absl::StrCat(KindName(f[kKind]), " #", f[kSequence]);
  if (f[kParameter] >= 0)
    absl::StrAppend(&description, " (", f[kParameter], ")");
  if (f[kDType] < 0) return description;
  std::optional<DType> dtype = DTypeFromByte(static_cast<uint8_t>(f[kDType]));
  absl::StrAppend(&description, " of ",
                  dtype ? DTypeName(*dtype) : "unknown dtype");
  if (f[kRank] > OpHeader::kMaxDims) {
    absl::StrAppend(&description, " with a shape of rank ", f[kRank]);
    return description;
  }
  std::vector<int64_t> dims(f.begin() + kFirstDim,
                            f.begin() + kFirstDim + f[kRank]);
  absl::StrAppend(&description, "[", absl::StrJoin(dims, ","), "]");
  return description;
}

absl::Status CheckOpHeaders(absl::Span<const OpHeader> headers, int my_rank) {
  const OpHeader& mine = headers[my_rank];
  for (int rank = 0; rank < static_cast<int>(headers.size()); ++rank) {
    if (headers[rank].fields == mine.fields) continue;
    return absl::InvalidArgumentError(
        absl::StrCat("ranks disagree on the collective: rank ", rank, " runs ",
                     DescribeOpHeader(headers[rank]), " but rank ", my_rank,
                     " runs ", DescribeOpHeader(mine)));
  }
  return absl::OkStatus();
}

}  // namespace sluice::ccl
