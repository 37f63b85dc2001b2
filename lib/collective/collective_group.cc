// What every backend of CollectiveGroup shares.
#include "sluice/collective/collective_group.h"

#include "absl/strings/str_cat.h"

namespace sluice::ccl {

std::string_view ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sum";
    case ReduceOp::kAvg:
      return "avg";
    case ReduceOp::kMin:
      return "min";
    case ReduceOp::kMax:
      return "max";
  }
  return "unknown";
}

absl::StatusOr<ReduceOp> ParseReduceOp(std::string_view name) {
  for (ReduceOp op :
       {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMin, ReduceOp::kMax}) {
    if (ReduceOpName(op) == name) return op;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown reduction '", std::string(name),
                   "' (expected sum, avg, min or max)"));
}

absl::StatusOr<PartialResult> CollectiveGroup::AllReducePartial(
    const DenseHostTensor&, ReduceOp op, const PartialOptions&) {
  return absl::UnimplementedError(
      absl::StrCat("partial allreduce (", std::string(ReduceOpName(op)),
                   ") on rank ", rank(), " of ", size(),
                   ": this backend has no partial collectives (gloo has)"));
}

absl::StatusOr<PartialResult> CollectiveGroup::AllGatherPartial(
    const DenseHostTensor&, const PartialOptions&) {
  return absl::UnimplementedError(
      absl::StrCat("partial allgather on rank ", rank(), " of ", size(),
                   ": this backend has no partial collectives (gloo has)"));
}

}  // namespace sluice::ccl
