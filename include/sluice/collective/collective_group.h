// A collective group: the ranks of one generation (quorum) and a backend
// that moves tensors among them (Gloo on CPU; NCCL on GPU later). A group is
// built for one generation and never reused after a failure: a peer that
// dies or stalls, a timeout or an Abort breaks it for good, and every later
// collective on it fails at once with the error that broke it. The next
// quorum builds a new group.
//
// Collectives are issued in the same order on every rank. A group runs them
// one at a time, in the order its callers call, on the calling thread;
// callers that must not block (kernels) hand the call to a thread of their
// own. Every collective takes a timeout; past it the group breaks and the
// call returns DEADLINE_EXCEEDED marked retryable.
//
// Errors are classified (sluice/support/failure.h): a peer that went away or
// a timeout is retryable; an Abort carries the status it was given (a stale
// one when the manager retires the group for a newer generation); shapes or
// dtypes that differ across ranks, or a bad argument, are fatal. Every error
// records the group's generation.
#ifndef SLUICE_COLLECTIVE_COLLECTIVE_GROUP_H_
#define SLUICE_COLLECTIVE_COLLECTIVE_GROUP_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sluice/support/ref_count.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::ccl {

enum class ReduceOp { kSum, kAvg, kMin, kMax };

// "sum", "avg", "min", "max".
std::string_view ReduceOpName(ReduceOp op);
absl::StatusOr<ReduceOp> ParseReduceOp(std::string_view name);

// What a partial collective returns: the result over the ranks that
// contributed, the same on every rank that gets it.
struct PartialResult {
  // The reduction of the contributors' inputs (`avg` divides by their
  // count), or their inputs stacked in the order of `contributors`.
  DenseHostTensor value;
  // The ranks whose input is in `value`, ascending; this rank is one.
  std::vector<int> contributors;
  // One per rank of the group: OK for a contributor, else why its input is
  // missing (UNAVAILABLE, retryable, naming the rank).
  std::vector<absl::Status> rank_errors;
};

struct PartialOptions {
  // Bounds the collective among all ranks; the group's default when
  // infinite.
  absl::Duration timeout = absl::InfiniteDuration();
  // How long after the first rank has told the store how its part went the
  // store waits for the others: a rank that has not told it by then is left
  // out, so it is what a rank that died costs the survivors.
  absl::Duration agreement_window = absl::Seconds(1);
};

class CollectiveGroup : public ReferenceCounted<CollectiveGroup> {
 public:
  virtual ~CollectiveGroup() = default;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int64_t generation() const { return generation_; }

  // The element-wise reduction of every rank's `input` (same dtype and
  // shape on every rank), in a new tensor.
  virtual absl::StatusOr<DenseHostTensor> AllReduce(
      const DenseHostTensor& input, ReduceOp op, absl::Duration timeout) = 0;
  // Every rank's `input` stacked along a new leading dimension of size().
  virtual absl::StatusOr<DenseHostTensor> AllGather(
      const DenseHostTensor& input, absl::Duration timeout) = 0;
  // The reduction of every rank's `input`, split along dimension 0 into
  // size() equal parts: this rank's part.
  virtual absl::StatusOr<DenseHostTensor> ReduceScatter(
      const DenseHostTensor& input, ReduceOp op, absl::Duration timeout) = 0;
  // `root`'s `input` on every rank (others pass a tensor of the same dtype
  // and shape).
  virtual absl::StatusOr<DenseHostTensor> Broadcast(
      const DenseHostTensor& input, int root, absl::Duration timeout) = 0;
  virtual absl::Status Barrier(absl::Duration timeout) = 0;

  // Partial collectives: AllReduce and AllGather that survive the failure
  // of some ranks. After the collective among all ranks, every rank that is
  // still alive tells the rendezvous store whether its part succeeded, and
  // the store decides on the contributors, once for all (a rank that has
  // not told it within the agreement window of the first is left out). When
  // every rank took part and succeeded, that is the result; else the
  // contributors run the collective again among themselves, on their saved
  // inputs, and this group breaks: its later partial collectives run on the
  // contributors' group, its other collectives are refused. Every rank
  // that returns a result returns the same contributors; a rank that
  // cannot agree with the others (it was left out, or the ranks saw
  // different contributors) gets an error, as from AllReduce. Backends
  // without them return UNIMPLEMENTED.
  virtual absl::StatusOr<PartialResult> AllReducePartial(
      const DenseHostTensor& input, ReduceOp op, const PartialOptions& options);
  virtual absl::StatusOr<PartialResult> AllGatherPartial(
      const DenseHostTensor& input, const PartialOptions& options);
  // Point to point; `tag` matches a Send with its Recv.
  virtual absl::Status Send(const DenseHostTensor& input, int peer, int64_t tag,
                            absl::Duration timeout) = 0;
  // Receives into a new tensor of `dtype` and `shape`.
  virtual absl::StatusOr<DenseHostTensor> Recv(DType dtype,
                                               const TensorShape& shape,
                                               int peer, int64_t tag,
                                               absl::Duration timeout) = 0;

  // Breaks the group from any thread: the collective in flight (if any) and
  // every later one fail with `reason` (not OK) within about a millisecond,
  // without waiting for the timeout. The first reason wins.
  virtual void Abort(absl::Status reason) = 0;

  // OK while the group works; the error that broke it after.
  virtual absl::Status health() const = 0;

 protected:
  CollectiveGroup(int rank, int size, int64_t generation)
      : rank_(rank), size_(size), generation_(generation) {}

 private:
  const int rank_;
  const int size_;
  const int64_t generation_;
};

}  // namespace sluice::ccl

#endif  // SLUICE_COLLECTIVE_COLLECTIVE_GROUP_H_
