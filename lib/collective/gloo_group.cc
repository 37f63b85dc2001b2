// The Gloo backend of CollectiveGroup.
//
// Each group owns a thread that makes the blocking Gloo calls. A caller
// hands it the call and waits for the result, for an Abort, or for the
// call's timeout, whichever comes first, so that the caller returns on time
// whatever Gloo does. On an Abort or an error the group breaks its
// connections at once: the call in flight fails and peers blocked in the
// same collective see the connections close. On its own timeout the caller
// returns DEADLINE_EXCEEDED but the connections stay up a little longer
// (Gloo's own timeout is the call's plus a grace period): peers that wait
// for the same stalled rank then reach their own timeouts and report
// DEADLINE_EXCEEDED too, rather than a connection closed by this rank. A
// peer that goes silent (its host or the link gone) fails the call within
// the liveness bound instead (gloo_liveness.h).
#include "sluice/collective/gloo_group.h"

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gloo/allgather.h"
#include "gloo/allreduce.h"
#include "gloo/broadcast.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/transport/tcp/device.h"
#include "gloo/transport/unbound_buffer.h"
#include "gloo/types.h"
#include "grpcpp/grpcpp.h"
#include "lib/collective/contributor_agreement.h"
#include "lib/collective/gloo_failure.h"
#include "lib/collective/gloo_liveness.h"
#include "lib/collective/gloo_store.h"
#include "lib/collective/group_error.h"
#include "lib/collective/op_header.h"
#include "lib/support/grpc_credentials.h"
#include "lib/support/grpc_handshake.h"
#include "lib/support/grpc_liveness.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"
#include "sluice/support/liveness.h"
#include "sluice/support/logging.h"

namespace sluice::ccl {
namespace {

// Slot prefixes of our own messages (Gloo's collectives use 0x01 to 0x08):
// a point-to-point header, then its payload; the headers of a collective.
constexpr uint8_t kSendHeaderSlot = 0x70;
constexpr uint8_t kSendPayloadSlot = 0x71;
constexpr uint8_t kHeaderSlot = 0x72;

// How long past a caller's timeout the connections stay up (see above).
absl::Duration DeadlineGrace(absl::Duration timeout) {
  return std::clamp(timeout / 10, absl::Milliseconds(50), absl::Seconds(2));
}

std::chrono::milliseconds Remaining(absl::Time deadline) {
  return std::max(std::chrono::milliseconds(1),
                  absl::ToChronoMilliseconds(deadline - absl::Now()));
}

// The allocator of results when the options name none. Result tensors
// outlive their group, so it is never destroyed.
HostAllocator* ProcessHeap() {
  static HostAllocator* const heap = CreateMallocAllocator().release();
  return heap;
}

using ReduceFunction = void (*)(void*, const void*, const void*, size_t);

template <typename T>
ReduceFunction ReduceFunctionOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMin:
      return &gloo::min<T>;
    case ReduceOp::kMax:
      return &gloo::max<T>;
    case ReduceOp::kSum:
    case ReduceOp::kAvg:
      break;
  }
  return &gloo::sum<T>;
}

// Calls f with a value of the C++ type of `dtype`, for the dtypes
// reductions support.
template <typename F>
absl::Status DispatchReducible(DType dtype, std::string_view op, F&& f) {
  switch (dtype) {
    case DType::kF32:
      f(float{});
      return absl::OkStatus();
    case DType::kF64:
      f(double{});
      return absl::OkStatus();
    case DType::kI32:
      f(int32_t{});
      return absl::OkStatus();
    case DType::kI64:
      f(int64_t{});
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(op), " cannot reduce ", DTypeName(dtype),
                       " tensors (f32, f64, i32 and i64 it can)"));
  }
}

class GlooGroup final : public CollectiveGroup {
 public:
  GlooGroup(const GlooGroupOptions& options,
            std::shared_ptr<gloo::Context> context,
            std::shared_ptr<gloo::transport::Device> device)
      : CollectiveGroup(options.rank, options.size, options.generation),
        options_(options),
        store_(proto::KeyValueStore::NewStub(
            NewLivenessChannel(options.store_address))),
        default_timeout_(options.default_timeout),
        check_agreement_(options.check_agreement),
        allocator_(options.allocator == nullptr ? ProcessHeap()
                                                : options.allocator),
        device_(std::move(device)),
        context_(std::move(context)),
        worker_([this] { Work(); }) {}

  ~GlooGroup() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      changed_.notify_all();
    }
    // A call still in flight ends at Gloo's timeout at the latest.
    worker_.join();
  }

  absl::StatusOr<DenseHostTensor> AllReduce(const DenseHostTensor& input,
                                            ReduceOp op,
                                            absl::Duration timeout) override {
    std::string what = Describe("allreduce", ReduceOpName(op));
    if (absl::Status fault = SLUICE_FAULT_POINT("collective.allreduce.send");
        !fault.ok()) {
      return Fail(what, fault);
    }
    absl::StatusOr<DenseHostTensor> output =
        DenseHostTensor::Create(input.dtype(), input.shape(), allocator_);
    if (!output.ok()) return Fail(what, output.status());
    absl::Status status =
        Run(what, timeout,
            MakeOpHeader(NextSequence(), OpKind::kAllReduce,
                         static_cast<int64_t>(op), &input),
            [this, input, output = *output, op](absl::Time deadline) mutable {
              return Reduce(input, output, op, deadline);
            });
    if (!status.ok()) return status;
    return std::move(*output);
  }

  absl::StatusOr<DenseHostTensor> AllGather(const DenseHostTensor& input,
                                            absl::Duration timeout) override {
    std::string what = Describe("allgather", "");
    std::vector<int64_t> dims = {size()};
    dims.insert(dims.end(), input.shape().dims().begin(),
                input.shape().dims().end());
    absl::StatusOr<TensorShape> shape = TensorShape::Create(dims);
    if (!shape.ok()) return Fail(what, shape.status());
    absl::StatusOr<DenseHostTensor> output =
        DenseHostTensor::Create(input.dtype(), *shape, allocator_);
    if (!output.ok()) return Fail(what, output.status());
    absl::Status status =
        Run(what, timeout,
            MakeOpHeader(NextSequence(), OpKind::kAllGather, -1, &input),
            [this, input, output = *output](absl::Time deadline) mutable {
              if (input.num_bytes() == 0) return absl::OkStatus();
              return CatchGloo([&] {
                gloo::AllgatherOptions options(context_);
                options.setInput<char>(
                    static_cast<char*>(const_cast<void*>(input.raw_data())),
                    input.num_bytes());
                options.setOutput<char>(static_cast<char*>(output.raw_data()),
                                        output.num_bytes());
                options.setTimeout(Remaining(deadline));
                gloo::allgather(options);
              });
            });
    if (!status.ok()) return status;
    return std::move(*output);
  }

  absl::StatusOr<DenseHostTensor> ReduceScatter(
      const DenseHostTensor& input, ReduceOp op,
      absl::Duration timeout) override {
    std::string what = Describe("reduce_scatter", ReduceOpName(op));
    if (input.shape().rank() == 0 || input.shape().dim(0) % size() != 0) {
      return Fail(what, absl::InvalidArgumentError(absl::StrCat(
                            "the input's dimension 0 must split into ", size(),
                            " equal parts, but its shape is ",
                            input.shape().ToString())));
    }
    std::vector<int64_t> dims(input.shape().dims().begin(),
                              input.shape().dims().end());
    dims[0] /= size();
    absl::StatusOr<TensorShape> shape = TensorShape::Create(dims);
    if (!shape.ok()) return Fail(what, shape.status());
    absl::StatusOr<DenseHostTensor> reduced =
        DenseHostTensor::Create(input.dtype(), input.shape(), allocator_);
    if (!reduced.ok()) return Fail(what, reduced.status());
    absl::StatusOr<DenseHostTensor> output =
        DenseHostTensor::Create(input.dtype(), *shape, allocator_);
    if (!output.ok()) return Fail(what, output.status());
    // The full reduction on every rank, of which each keeps its part: one
    // allreduce moves as many bytes per rank as Gloo's reduce-scatter.
    absl::Status status =
        Run(what, timeout,
            MakeOpHeader(NextSequence(), OpKind::kReduceScatter,
                         static_cast<int64_t>(op), &input),
            [this, input, reduced = *reduced, output = *output,
             op](absl::Time deadline) mutable {
              absl::Status reduce = Reduce(input, reduced, op, deadline);
              if (!reduce.ok()) return reduce;
              std::memcpy(output.raw_data(),
                          static_cast<const char*>(reduced.raw_data()) +
                              rank() * output.num_bytes(),
                          output.num_bytes());
              return absl::OkStatus();
            });
    if (!status.ok()) return status;
    return std::move(*output);
  }

  absl::StatusOr<DenseHostTensor> Broadcast(const DenseHostTensor& input,
                                            int root,
                                            absl::Duration timeout) override {
    std::string what = Describe("broadcast", absl::StrCat("root ", root));
    if (root < 0 || root >= size()) {
      return Fail(what, absl::InvalidArgumentError(absl::StrCat(
                            "root ", root, " is not a rank of the group")));
    }
    absl::StatusOr<DenseHostTensor> output =
        DenseHostTensor::Create(input.dtype(), input.shape(), allocator_);
    if (!output.ok()) return Fail(what, output.status());
    if (root == rank() && input.num_bytes() > 0) {
      std::memcpy(output->raw_data(), input.raw_data(), input.num_bytes());
    }
    absl::Status status =
        Run(what, timeout,
            MakeOpHeader(NextSequence(), OpKind::kBroadcast, root, &input),
            [this, output = *output, root](absl::Time deadline) mutable {
              if (output.num_bytes() == 0) return absl::OkStatus();
              return CatchGloo([&] {
                gloo::BroadcastOptions options(context_);
                options.setOutput<char>(static_cast<char*>(output.raw_data()),
                                        output.num_bytes());
                options.setRoot(root);
                options.setTimeout(Remaining(deadline));
                gloo::broadcast(options);
              });
            });
    if (!status.ok()) return status;
    return std::move(*output);
  }

  // The header exchange is itself a barrier (no rank has every header
  // before every rank has sent its own), with or without check_agreement.
  absl::Status Barrier(absl::Duration timeout) override {
    OpHeader header =
        MakeOpHeader(NextSequence(), OpKind::kBarrier, -1, nullptr);
    return RunJob(Describe("barrier", ""), timeout,
                  [this, header](absl::Time deadline) {
                    return ExchangeHeaders(header, deadline);
                  });
  }

  absl::Status Send(const DenseHostTensor& input, int peer, int64_t tag,
                    absl::Duration timeout) override {
    std::string what =
        Describe("send", absl::StrCat("to rank ", peer, ", tag ", tag));
    if (absl::Status bad = CheckPeer(rank(), size(), peer, tag); !bad.ok()) {
      return Fail(what, bad);
    }
    OpHeader header = MakeOpHeader(0, OpKind::kSend, tag, &input);
    return RunJob(
        what, timeout,
        [this, input, header, peer, tag](absl::Time deadline) mutable {
          return CatchGloo([&] {
            auto header_buffer = context_->createUnboundBuffer(
                header.fields.data(), sizeof(header));
            header_buffer->send(peer, gloo::Slot::build(kSendHeaderSlot, tag));
            std::unique_ptr<gloo::transport::UnboundBuffer> payload;
            if (input.num_bytes() > 0) {
              payload = context_->createUnboundBuffer(
                  const_cast<void*>(input.raw_data()), input.num_bytes());
              payload->send(peer, gloo::Slot::build(kSendPayloadSlot, tag));
            }
            header_buffer->waitSend(Remaining(deadline));
            if (payload) payload->waitSend(Remaining(deadline));
          });
        });
  }

  absl::StatusOr<DenseHostTensor> Recv(DType dtype, const TensorShape& shape,
                                       int peer, int64_t tag,
                                       absl::Duration timeout) override {
    std::string what =
        Describe("recv", absl::StrCat("from rank ", peer, ", tag ", tag));
    if (absl::Status bad = CheckPeer(rank(), size(), peer, tag); !bad.ok()) {
      return Fail(what, bad);
    }
    absl::StatusOr<DenseHostTensor> output =
        DenseHostTensor::Create(dtype, shape, allocator_);
    if (!output.ok()) return Fail(what, output.status());
    OpHeader expected = MakeOpHeader(0, OpKind::kSend, tag, dtype, shape);
    absl::Status status = RunJob(
        what, timeout,
        [this, output = *output, expected, peer,
         tag](absl::Time deadline) mutable {
          OpHeader sent;
          absl::Status received = CatchGloo([&] {
            auto header_buffer =
                context_->createUnboundBuffer(sent.fields.data(), sizeof(sent));
            header_buffer->recv(peer, gloo::Slot::build(kSendHeaderSlot, tag));
            header_buffer->waitRecv(Remaining(deadline));
          });
          if (!received.ok()) return received;
          if (sent.fields != expected.fields) {
            return absl::InvalidArgumentError(absl::StrCat(
                "rank ", peer, " sent ", DescribeOpHeader(sent), " but ",
                rank(), " expected ", DescribeOpHeader(expected)));
          }
          if (output.num_bytes() == 0) return absl::OkStatus();
          return CatchGloo([&] {
            auto payload = context_->createUnboundBuffer(output.raw_data(),
                                                         output.num_bytes());
            payload->recv(peer, gloo::Slot::build(kSendPayloadSlot, tag));
            payload->waitRecv(Remaining(deadline));
          });
        });
    if (!status.ok()) return status;
    return std::move(*output);
  }

  absl::StatusOr<PartialResult> AllReducePartial(
      const DenseHostTensor& input, ReduceOp op,
      const PartialOptions& options) override {
    return RunPartial(
        Describe("partial allreduce", ReduceOpName(op)), options,
        [&](CollectiveGroup& group, absl::Duration timeout) {
          return group.AllReduce(input, op, timeout);
        },
        [&](CollectiveGroup& survivors) {
          return survivors.AllReducePartial(input, op, options);
        });
  }

  absl::StatusOr<PartialResult> AllGatherPartial(
      const DenseHostTensor& input, const PartialOptions& options) override {
    return RunPartial(
        Describe("partial allgather", ""), options,
        [&](CollectiveGroup& group, absl::Duration timeout) {
          return group.AllGather(input, timeout);
        },
        [&](CollectiveGroup& survivors) {
          return survivors.AllGatherPartial(input, options);
        });
  }

  void Abort(absl::Status reason) override {
    if (reason.ok()) reason = absl::CancelledError("aborted with no reason");
    (void)Break("aborted: ", reason, /*close_connections=*/true);
  }

  absl::Status health() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return broken_;
  }

 private:
  using Job = std::function<absl::Status(absl::Time deadline)>;
  using Collective = std::function<absl::StatusOr<DenseHostTensor>(
      CollectiveGroup& group, absl::Duration timeout)>;
  using PartialCollective =
      std::function<absl::StatusOr<PartialResult>(CollectiveGroup& group)>;

  // The partial collective `what` (collective_group.h): `collective` among
  // every rank, the agreement on who contributed, then `collective` again
  // among the contributors when some were left out or failed. Once this
  // group has broken that way, `on_survivors` runs on the contributors'
  // group instead.
  absl::StatusOr<PartialResult> RunPartial(
      const std::string& what, const PartialOptions& options,
      const Collective& collective, const PartialCollective& on_survivors) {
    if (options.agreement_window <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": the agreement window must be positive, got ",
                       absl::FormatDuration(options.agreement_window)));
    }
    RCReference<CollectiveGroup> survivors;
    std::vector<int> survivor_ranks;
    int64_t sequence = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      survivors = survivors_.CopyRef();
      survivor_ranks = survivor_ranks_;
      sequence = ++partial_sequence_;
    }
    if (survivors) {
      absl::StatusOr<PartialResult> result = on_survivors(*survivors);
      if (!result.ok()) {
        return WithMessagePrefix(
            result.status(),
            absl::StrCat(what, ": among the contributors [",
                         absl::StrJoin(survivor_ranks, ", "),
                         "] of an earlier partial collective: "));
      }
      return InGroupRanks(*std::move(result), survivor_ranks, what);
    }

    absl::StatusOr<DenseHostTensor> whole = collective(*this, options.timeout);
    const std::string prefix =
        absl::StrCat(options_.key_prefix, "partial/", sequence, "/");
    absl::StatusOr<ContributorAgreement> agreed =
        AgreeOnContributors(*store_, generation(), prefix, rank(), size(),
                            whole.ok(), options.agreement_window);
    if (!agreed.ok()) {
      absl::Status error = GroupError(
          agreed.status(),
          absl::StrCat(what, ": no agreement on who contributed",
                       whole.ok() ? "" : " after the collective failed (",
                       whole.ok() ? "" : whole.status().message(),
                       whole.ok() ? ": " : "): "),
          generation());
      (void)Break("", error, /*close_connections=*/true);
      return error;
    }
    const std::vector<int>& contributors = agreed->contributors;
    if (agreed->all_succeeded) {
      return PartialResult{*std::move(whole), contributors,
                           std::vector<absl::Status>(size())};
    }

    // Ranks were left out, or a part failed: the contributors run the
    // collective again among themselves, on their saved inputs.
    std::vector<absl::Status> rank_errors(size());
    for (int r = 0, next = 0; r < size(); ++r) {
      if (next < static_cast<int>(contributors.size()) &&
          contributors[next] == r) {
        ++next;
        continue;
      }
      rank_errors[r] =
          GroupError(absl::UnavailableError(absl::StrCat(
                         "rank ", r,
                         " did not tell the store how its part "
                         "went within ",
                         absl::FormatDuration(options.agreement_window),
                         " of the first rank")),
                     absl::StrCat(what, ": "), generation());
    }
    (void)Break(absl::StrCat(what, ": "),
                absl::UnavailableError(absl::StrCat(
                    "the contributors [", absl::StrJoin(contributors, ", "),
                    "] go on in a group of their own")),
                /*close_connections=*/true);
    GlooGroupOptions among = options_;
    among.key_prefix = prefix;
    among.size = static_cast<int>(contributors.size());
    among.rank = static_cast<int>(
        std::find(contributors.begin(), contributors.end(), rank()) -
        contributors.begin());
    const std::string again =
        absl::StrCat(what, ": among the contributors [",
                     absl::StrJoin(contributors, ", "), "]: ");
    // Every contributor has just had the store's answer, so they connect at
    // once; one that dies meanwhile holds the others up to the group's
    // connect timeout.
    absl::StatusOr<RCReference<CollectiveGroup>> group = CreateGlooGroup(among);
    if (!group.ok()) return WithMessagePrefix(group.status(), again);
    {
      std::lock_guard<std::mutex> lock(mu_);
      survivors_ = group->CopyRef();
      survivor_ranks_ = contributors;
    }
    absl::StatusOr<DenseHostTensor> value =
        collective(**group, options.timeout);
    if (!value.ok()) return WithMessagePrefix(value.status(), again);
    return PartialResult{*std::move(value), contributors,
                         std::move(rank_errors)};
  }

  // `result` of the group of `survivor_ranks` in this group's ranks: a rank
  // left out earlier has the error that says so.
  PartialResult InGroupRanks(PartialResult result,
                             const std::vector<int>& survivor_ranks,
                             const std::string& what) const {
    std::vector<absl::Status> rank_errors(size());
    for (int r = 0; r < size(); ++r) {
      rank_errors[r] = GroupError(
          absl::UnavailableError(absl::StrCat(
              "rank ", r,
              " was left out of an earlier partial collective of the group")),
          absl::StrCat(what, ": "), generation());
    }
    for (size_t i = 0; i < survivor_ranks.size(); ++i) {
      const absl::Status& error = result.rank_errors[i];
      rank_errors[survivor_ranks[i]] =
          error.ok() ? error
                     : WithMessagePrefix(
                           error, absl::StrCat("rank ", survivor_ranks[i],
                                               " of the whole group: "));
    }
    for (int& contributor : result.contributors) {
      contributor = survivor_ranks[contributor];
    }
    result.rank_errors = std::move(rank_errors);
    return result;
  }

  std::string Describe(std::string_view op, std::string_view detail) const {
    return absl::StrCat(
        std::string(op),
        detail.empty() ? "" : absl::StrCat(" (", std::string(detail), ")"),
        " on rank ", rank(), " of ", size(), " (generation ", generation(),
        ")");
  }

  int64_t NextSequence() {
    std::lock_guard<std::mutex> lock(mu_);
    return ++sequence_;
  }

  // `op` (a collective every rank runs) after the header exchange.
  absl::Status Run(const std::string& what, absl::Duration timeout,
                   OpHeader header, Job op) {
    return RunJob(what, timeout,
                  [this, header, op = std::move(op)](absl::Time deadline) {
                    if (check_agreement_) {
                      absl::Status agree = ExchangeHeaders(header, deadline);
                      if (!agree.ok()) return agree;
                    }
                    return op(deadline);
                  });
  }

  // Sends `mine` to every peer and receives theirs, all at once (one
  // message delay, where Gloo's ring allgather takes size() - 1), then
  // compares them.
  absl::Status ExchangeHeaders(const OpHeader& mine, absl::Time deadline) {
    std::vector<OpHeader> headers(size());
    headers[rank()] = mine;
    const uint64_t slot =
        gloo::Slot::build(kHeaderSlot, static_cast<uint32_t>(mine.fields[0]));
    absl::Status exchanged = CatchGloo([&] {
      // One buffer per message: Gloo allows one pending operation on each.
      std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> sent,
          received;
      for (int peer = 0; peer < size(); ++peer) {
        if (peer == rank()) continue;
        received.push_back(context_->createUnboundBuffer(
            headers[peer].fields.data(), sizeof(OpHeader)));
        received.back()->recv(peer, slot);
        sent.push_back(context_->createUnboundBuffer(
            const_cast<int64_t*>(mine.fields.data()), sizeof(OpHeader)));
        sent.back()->send(peer, slot);
      }
      for (auto& buffer : received) buffer->waitRecv(Remaining(deadline));
      for (auto& buffer : sent) buffer->waitSend(Remaining(deadline));
    });
    if (!exchanged.ok()) return exchanged;
    return CheckOpHeaders(headers, rank());
  }

  // Hands `job` to the worker and waits for its end, an Abort, or the
  // timeout.
  absl::Status RunJob(const std::string& what, absl::Duration timeout,
                      Job job) {
    if (timeout == absl::InfiniteDuration()) timeout = default_timeout_;
    if (timeout <= absl::ZeroDuration()) {
      return Fail(what, absl::InvalidArgumentError(
                            absl::StrCat("the timeout must be positive, got ",
                                         absl::FormatDuration(timeout))));
    }
    std::lock_guard<std::mutex> call(call_mu_);
    absl::Time deadline = absl::Now() + timeout;
    bool done = false;
    absl::Status result;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (!broken_.ok()) return Refused(what);
      job_ = std::move(job);
      job_deadline_ = deadline + DeadlineGrace(timeout);
      job_done_ = false;
      changed_.notify_all();
      changed_.wait_until(lock, absl::ToChronoTime(deadline),
                          [this] { return job_done_ || !broken_.ok(); });
      // Only an Abort breaks the group while a call waits.
      if (!broken_.ok()) return WithMessagePrefix(broken_, what + ": ");
      done = job_done_;
      result = job_result_;
    }
    if (done) return result.ok() ? result : Fail(what, result);
    return Break(what + ": ",
                 absl::DeadlineExceededError(absl::StrCat(
                     "no result within ", absl::FormatDuration(timeout))),
                 /*close_connections=*/false);
  }

  // Breaks the group with `cause` (the failure of `what`) and returns the
  // error that broke it.
  absl::Status Fail(const std::string& what, const absl::Status& cause) {
    return Break(what + ": ", cause, /*close_connections=*/true);
  }

  // Makes `prefix` + `cause` the group's error, unless it is already broken,
  // and returns the group's error.
  absl::Status Break(const std::string& prefix, const absl::Status& cause,
                     bool close_connections) {
    absl::Status error = GroupError(cause, prefix, generation());
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (broken_.ok()) {
        broken_ = error;
        first = true;
        changed_.notify_all();
      }
      error = broken_;
    }
    if (first && close_connections) {
      BreakConnections(*context_, std::string(error.message()));
    }
    return error;
  }

  // With mu_ held.
  absl::Status Refused(const std::string& what) const {
    return RefusedError(broken_, what);
  }

  absl::Status Reduce(const DenseHostTensor& input, DenseHostTensor& output,
                      ReduceOp op, absl::Time deadline) {
    absl::Status result;
    absl::Status dispatched =
        DispatchReducible(input.dtype(), "allreduce", [&](auto zero) {
          using T = decltype(zero);
          size_t elements = static_cast<size_t>(input.num_elements());
          if (elements == 0) return;
          result = CatchGloo([&] {
            gloo::AllreduceOptions options(context_);
            options.setInput<T>(
                static_cast<T*>(const_cast<void*>(input.raw_data())), elements);
            options.setOutput<T>(static_cast<T*>(output.raw_data()), elements);
            options.setReduceFunction(ReduceFunctionOf<T>(op));
            options.setTimeout(Remaining(deadline));
            gloo::allreduce(options);
          });
          if (result.ok() && op == ReduceOp::kAvg) {
            T* values = static_cast<T*>(output.raw_data());
            for (size_t i = 0; i < elements; ++i) {
              values[i] /= static_cast<T>(size());
            }
          }
        });
    return dispatched.ok() ? result : dispatched;
  }

  void Work() {
    while (true) {
      Job job;
      absl::Time deadline;
      {
        std::unique_lock<std::mutex> lock(mu_);
        changed_.wait(lock, [this] { return job_ != nullptr || stopping_; });
        if (job_ == nullptr) return;
        job = std::move(job_);
        job_ = nullptr;
        deadline = job_deadline_;
      }
      absl::Status result = job(deadline);
      // The job's tensors go before the caller hears of its end.
      job = nullptr;
      std::lock_guard<std::mutex> lock(mu_);
      job_result_ = std::move(result);
      job_done_ = true;
      changed_.notify_all();
    }
  }

  const GlooGroupOptions options_;
  const std::unique_ptr<proto::KeyValueStore::Stub> store_;
  const absl::Duration default_timeout_;
  const bool check_agreement_;
  HostAllocator* const allocator_;
  const std::shared_ptr<gloo::transport::Device> device_;
  const std::shared_ptr<gloo::Context> context_;

  // One call at a time.
  std::mutex call_mu_;
  // std::mutex, not absl::Mutex: ThreadSanitizer sees pthread mutexes, and
  // Debian's Abseil is not instrumented. Guards the members below it.
  mutable std::mutex mu_;
  std::condition_variable changed_;
  absl::Status broken_;
  int64_t sequence_ = 0;
  int64_t partial_sequence_ = 0;
  // Once a partial collective left ranks out: the contributors' group and
  // their ranks in this one, ascending.
  RCReference<CollectiveGroup> survivors_;
  std::vector<int> survivor_ranks_;
  Job job_;
  absl::Time job_deadline_;
  bool job_done_ = false;
  absl::Status job_result_;
  bool stopping_ = false;
  std::thread worker_;
};

absl::Status ValidateOptions(const GlooGroupOptions& options) {
  if (options.store_address.empty()) {
    return absl::InvalidArgumentError("gloo group: no store address");
  }
  if (options.size < 1 || options.rank < 0 || options.rank >= options.size) {
    return absl::InvalidArgumentError(
        absl::StrCat("gloo group: rank ", options.rank,
                     " is not in a group of size ", options.size));
  }
  if (options.generation < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gloo group: generation ", options.generation, " is negative"));
  }
  if (options.connect_timeout <= absl::ZeroDuration() ||
      options.default_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("gloo group: timeouts must be positive");
  }
  return absl::OkStatus();
}

// Gloo writes to its peers' sockets without MSG_NOSIGNAL, so a write to a
// dead peer raises SIGPIPE, whose default action would kill the survivor
// too. Ignored, the write fails and the collective's result is an error
// value. A handler the program installed itself is left alone.
void IgnoreSigpipeUnlessHandled() {
  static const bool once = [] {
    struct sigaction current {};
    if (sigaction(SIGPIPE, nullptr, &current) == 0 &&
        current.sa_handler == SIG_DFL) {
      std::signal(SIGPIPE, SIG_IGN);
    }
    return true;
  }();
  (void)once;
}

}  // namespace

absl::StatusOr<RCReference<CollectiveGroup>> CreateGlooGroup(
    const GlooGroupOptions& options) {
  IgnoreSigpipeUnlessHandled();
  if (absl::Status invalid = ValidateOptions(options); !invalid.ok()) {
    return invalid;
  }
  std::string what = absl::StrCat(
      "connecting rank ", options.rank, " of ", options.size, " (generation ",
      options.generation, ") through the store at ", options.store_address);
  // The store's calls wait for it, and would wait out the connect timeout
  // on a refused TLS handshake, saying nothing of why. Fatal: the store
  // would refuse it again.
  if (grpc::Status reached = WaitForServer(
          options.store_address, absl::Now() + options.connect_timeout);
      !reached.ok()) {
    const bool refused = HandshakeFailed(reached);
    ErrorContext origin;
    origin.generation = options.generation;
    return MarkFailureClass(
        AddErrorContext(
            absl::Status(static_cast<absl::StatusCode>(reached.error_code()),
                         absl::StrCat(what, " failed: rendezvous store: ",
                                      refused ? HandshakeReason(reached)
                                              : reached.error_message())),
            origin),
        refused ? FailureClass::kFatal : FailureClass::kRetryable);
  }
  GlooStore store(NewLivenessChannel(options.store_address), options.generation,
                  options.key_prefix, options.connect_timeout);
  std::shared_ptr<gloo::transport::Device> device;
  auto context =
      std::make_shared<gloo::rendezvous::Context>(options.rank, options.size);
  absl::Status connected = CatchGloo([&] {
    gloo::transport::tcp::attr attr(options.bind_host.c_str());
    device = gloo::transport::tcp::CreateDevice(attr);
    context->setTimeout(absl::ToChronoMilliseconds(options.connect_timeout));
    context->connectFullMesh(store, device);
  });
  if (!connected.ok()) {
    absl::Status cause = store.error().ok() ? connected : store.error();
    absl::Status error =
        WithMessagePrefix(cause, absl::StrCat(what, " failed: "));
    ErrorContext origin;
    origin.generation = options.generation;
    error = AddErrorContext(error, origin);
    if (cause.code() == absl::StatusCode::kAborted) {
      return MarkStale(error, options.generation);
    }
    if (cause.code() == absl::StatusCode::kInvalidArgument ||
        cause.code() == absl::StatusCode::kInternal) {
      return MarkFailureClass(error, FailureClass::kFatal);
    }
    return MarkFailureClass(error, FailureClass::kRetryable);
  }
  // Without it a peer that went silent holds a collective until its
  // timeout; the group works either way.
  if (absl::Status live = SetPairLiveness(*context, LivenessTimeout());
      !live.ok()) {
    SLUICE_LOG(WARNING) << "rank " << options.rank << " of generation "
                        << options.generation << ": " << live.message();
  }
  return TakeRef<CollectiveGroup>(
      new GlooGroup(options, std::move(context), std::move(device)));
}

}  // namespace sluice::ccl
