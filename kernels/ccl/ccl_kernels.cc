// The tfrt_ccl kernels. Each collective blocks until every rank has taken
// part, so a kernel hands the group's call to the host's blocking pool and
// returns at once; its results are set when the call returns: the chain and
// the tensor, or the call's error (which names the op, the rank and the
// generation) on every result, through the frame, which adds the kernel and
// its `.mlir` location. Kernels are strict: an error in the group, the
// tensor or the chain passes to the results without any collective.
#include "sluice/kernels/ccl_kernels.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "kernels/dist/failure_policy.h"
#include "sluice/bef/format.h"
#include "sluice/collective/gloo_group.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {
namespace ccl_kernels {
namespace {

using ccl::CollectiveGroup;

absl::Duration Timeout(OptionalAttribute<int64_t> timeout_ms) {
  return timeout_ms ? absl::Milliseconds(*timeout_ms)
                    : absl::InfiniteDuration();
}

// Runs `call` (which returns a StatusOr<DenseHostTensor> or a Status) on the
// blocking pool and sets the chain (result 0) and the tensor (result 1,
// when the call returns one) from what it returns.
template <typename Call>
void RunBlocking(AsyncKernelFrame* frame, Call call) {
  frame->host()->EnqueueBlockingWork(
      [frame = *frame, call = std::move(call)]() mutable {
        auto result = call();
        if constexpr (std::is_same_v<decltype(result), absl::Status>) {
          if (!result.ok()) return frame.ReportError(std::move(result));
          frame.EmplaceResultAt<Chain>(0);
        } else {
          if (!result.ok()) return frame.ReportError(result.status());
          frame.EmplaceResultAt<Chain>(0);
          frame.EmplaceResultAt<DenseHostTensor>(1, *std::move(result));
        }
      });
}

// RunBlocking under `on_failure`, a #tfrt_dist.fallback: when the
// collective fails, the results of the fallback (the one function in
// `functions`), called with the op's operands, stand in its place.
template <typename Call>
void RunFallible(AsyncKernelFrame* frame,
                 const OptionalAggregateAttribute& on_failure,
                 const RemainingFunctions& functions, Call call) {
  if (!on_failure) return RunBlocking(frame, std::move(call));
  absl::StatusOr<FailurePolicy> policy = ReadFailurePolicy(
      *on_failure, functions.size() > 0 ? functions[0] : nullptr);
  if (!policy.ok()) return frame->ReportError(policy.status());
  // The verifier refuses a retry here; a program built without it may not.
  if (policy->max_attempts > 1) {
    return frame->ReportError(absl::InvalidArgumentError(
        "a collective cannot be retried (its group is broken for good by its "
        "first failure); its on_failure may only be a #tfrt_dist.fallback"));
  }
  std::vector<RCReference<AsyncValue>> operands;
  for (size_t i = 0; i < frame->GetNumArgs(); ++i) {
    operands.push_back(FormRef(frame->GetArgAt(i)));
  }
  HostContext* host = frame->host();
  // Started once: the policy makes one attempt.
  auto start = [host, call = std::move(call)]() mutable {
    AsyncValueRef<Chain> chain = MakeUnconstructedAsyncValueRef<Chain>();
    AsyncValueRef<DenseHostTensor> tensor =
        MakeUnconstructedAsyncValueRef<DenseHostTensor>();
    std::vector<RCReference<AsyncValue>> results;
    results.push_back(chain.CopyRCRef());
    results.push_back(tensor.CopyRCRef());
    host->EnqueueBlockingWork([call = std::move(call), chain = std::move(chain),
                               tensor = std::move(tensor)]() mutable {
      absl::StatusOr<DenseHostTensor> result = call();
      if (!result.ok()) {
        chain.SetError(result.status());
        tensor.SetError(result.status());
        return;
      }
      chain.emplace();
      tensor.emplace(*std::move(result));
    });
    return results;
  };
  RunWithFailurePolicy(
      *policy, frame->exec_ctx(), std::move(start), std::move(operands),
      // A copy, not a move: copying detaches the frame from the kernel's.
      [frame = *frame](std::vector<RCReference<AsyncValue>> results) mutable {
        for (size_t i = 0; i < results.size(); ++i) {
          frame.SetResultAt(i, std::move(results[i]));
        }
      });
}

void CreateGroup(const Chain&, int64_t rank, int64_t size, int64_t generation,
                 StringAttribute store,
                 OptionalAttribute<int64_t> connect_timeout_ms,
                 OptionalAttribute<int64_t> timeout_ms,
                 AsyncKernelFrame* frame) {
  ccl::GlooGroupOptions options;
  options.store_address = std::string(store.get());
  options.rank = static_cast<int>(rank);
  options.size = static_cast<int>(size);
  options.generation = generation;
  if (connect_timeout_ms) {
    options.connect_timeout = absl::Milliseconds(*connect_timeout_ms);
  }
  if (timeout_ms) options.default_timeout = absl::Milliseconds(*timeout_ms);
  frame->host()->EnqueueBlockingWork([frame = *frame, options]() mutable {
    absl::StatusOr<GroupValue> group = ccl::CreateGlooGroup(options);
    if (!group.ok()) return frame.ReportError(group.status());
    frame.EmplaceResultAt<Chain>(0);
    frame.EmplaceResultAt<GroupValue>(1, *std::move(group));
  });
}

absl::StatusOr<ccl::ReduceOp> Reduction(StringAttribute name) {
  return ccl::ParseReduceOp(name.get());
}

void AllReduce(const GroupValue& group, const DenseHostTensor& input,
               const Chain&, StringAttribute reduction,
               OptionalAttribute<int64_t> timeout_ms,
               OptionalAggregateAttribute on_failure,
               RemainingFunctions functions, AsyncKernelFrame* frame) {
  absl::StatusOr<ccl::ReduceOp> op = Reduction(reduction);
  if (!op.ok()) return frame->ReportError(op.status());
  RunFallible(frame, on_failure, functions,
              [group = group.CopyRef(), input, op = *op,
               timeout = Timeout(timeout_ms)] {
                return group->AllReduce(input, op, timeout);
              });
}

void ReduceScatter(const GroupValue& group, const DenseHostTensor& input,
                   const Chain&, StringAttribute reduction,
                   OptionalAttribute<int64_t> timeout_ms,
                   OptionalAggregateAttribute on_failure,
                   RemainingFunctions functions, AsyncKernelFrame* frame) {
  absl::StatusOr<ccl::ReduceOp> op = Reduction(reduction);
  if (!op.ok()) return frame->ReportError(op.status());
  RunFallible(frame, on_failure, functions,
              [group = group.CopyRef(), input, op = *op,
               timeout = Timeout(timeout_ms)] {
                return group->ReduceScatter(input, op, timeout);
              });
}

void AllGather(const GroupValue& group, const DenseHostTensor& input,
               const Chain&, OptionalAttribute<int64_t> timeout_ms,
               OptionalAggregateAttribute on_failure,
               RemainingFunctions functions, AsyncKernelFrame* frame) {
  RunFallible(frame, on_failure, functions,
              [group = group.CopyRef(), input, timeout = Timeout(timeout_ms)] {
                return group->AllGather(input, timeout);
              });
}

ccl::PartialOptions Partial(OptionalAttribute<int64_t> timeout_ms,
                            OptionalAttribute<int64_t> agreement_ms) {
  ccl::PartialOptions options;
  options.timeout = Timeout(timeout_ms);
  if (agreement_ms) {
    options.agreement_window = absl::Milliseconds(*agreement_ms);
  }
  return options;
}

// RunBlocking for a partial collective: the chain, the value and the
// contributors' ranks (an i64 tensor).
template <typename Call>
void RunPartial(AsyncKernelFrame* frame, Call call) {
  frame->host()->EnqueueBlockingWork(
      [frame = *frame, call = std::move(call)]() mutable {
        absl::StatusOr<ccl::PartialResult> result = call();
        if (!result.ok()) return frame.ReportError(result.status());
        std::vector<int64_t> ranks(result->contributors.begin(),
                                   result->contributors.end());
        absl::StatusOr<DenseHostTensor> contributors =
            DenseHostTensor::FromValues<int64_t>(
                {static_cast<int64_t>(ranks.size())}, ranks,
                frame.host()->allocator());
        if (!contributors.ok()) return frame.ReportError(contributors.status());
        frame.EmplaceResultAt<Chain>(0);
        frame.EmplaceResultAt<DenseHostTensor>(1, std::move(result->value));
        frame.EmplaceResultAt<DenseHostTensor>(2, *std::move(contributors));
      });
}

void AllReducePartial(const GroupValue& group, const DenseHostTensor& input,
                      const Chain&, StringAttribute reduction,
                      OptionalAttribute<int64_t> timeout_ms,
                      OptionalAttribute<int64_t> agreement_ms,
                      AsyncKernelFrame* frame) {
  absl::StatusOr<ccl::ReduceOp> op = Reduction(reduction);
  if (!op.ok()) return frame->ReportError(op.status());
  RunPartial(frame, [group = group.CopyRef(), input, op = *op,
                     options = Partial(timeout_ms, agreement_ms)] {
    return group->AllReducePartial(input, op, options);
  });
}

void AllGatherPartial(const GroupValue& group, const DenseHostTensor& input,
                      const Chain&, OptionalAttribute<int64_t> timeout_ms,
                      OptionalAttribute<int64_t> agreement_ms,
                      AsyncKernelFrame* frame) {
  RunPartial(frame, [group = group.CopyRef(), input,
                     options = Partial(timeout_ms, agreement_ms)] {
    return group->AllGatherPartial(input, options);
  });
}

void Broadcast(const GroupValue& group, const DenseHostTensor& input,
               const Chain&, Attribute<int64_t> root,
               OptionalAttribute<int64_t> timeout_ms,
               OptionalAggregateAttribute on_failure,
               RemainingFunctions functions, AsyncKernelFrame* frame) {
  RunFallible(frame, on_failure, functions,
              [group = group.CopyRef(), input, root = *root,
               timeout = Timeout(timeout_ms)] {
                return group->Broadcast(input, static_cast<int>(root), timeout);
              });
}

void Barrier(const GroupValue& group, const Chain&,
             OptionalAttribute<int64_t> timeout_ms, AsyncKernelFrame* frame) {
  RunBlocking(frame, [group = group.CopyRef(), timeout = Timeout(timeout_ms)] {
    return group->Barrier(timeout);
  });
}

void Send(const GroupValue& group, const DenseHostTensor& input, const Chain&,
          Attribute<int64_t> peer, Attribute<int64_t> tag,
          OptionalAttribute<int64_t> timeout_ms, AsyncKernelFrame* frame) {
  RunBlocking(frame, [group = group.CopyRef(), input, peer = *peer, tag = *tag,
                      timeout = Timeout(timeout_ms)] {
    return group->Send(input, static_cast<int>(peer), tag, timeout);
  });
}

void Recv(const GroupValue& group, const Chain&, Attribute<int64_t> peer,
          Attribute<int64_t> tag, StringAttribute dtype_name,
          AggregateAttribute dims, OptionalAttribute<int64_t> timeout_ms,
          AsyncKernelFrame* frame) {
  absl::StatusOr<std::pair<DType, TensorShape>> type =
      ReceivedTensorType(dtype_name, dims);
  if (!type.ok()) return frame->ReportError(type.status());
  RunBlocking(frame, [group = group.CopyRef(), dtype = type->first,
                      shape = std::move(type->second), peer = *peer, tag = *tag,
                      timeout = Timeout(timeout_ms)] {
    return group->Recv(dtype, shape, static_cast<int>(peer), tag, timeout);
  });
}

}  // namespace
}  // namespace ccl_kernels

absl::StatusOr<std::pair<DType, TensorShape>> ReceivedTensorType(
    StringAttribute dtype_name, const AggregateAttribute& shape) {
  std::optional<DType> dtype = ParseDType(dtype_name.get());
  if (!dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown dtype '", std::string(dtype_name.get()), "'"));
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    auto type = static_cast<bef::AttributeType>(shape.type(i));
    if (type != bef::AttributeType::kI64) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dimension ", i, " of the shape is an attribute of type ",
          bef::AttributeTypeName(type), "; dimensions are i64"));
    }
    dims.push_back(*Attribute<int64_t>(shape.data(i)));
  }
  absl::StatusOr<TensorShape> tensor_shape = TensorShape::Create(dims);
  if (!tensor_shape.ok()) return tensor_shape.status();
  return std::make_pair(*dtype, *std::move(tensor_shape));
}

absl::Status RegisterCclKernels(KernelRegistry* registry) {
  using namespace ccl_kernels;  // NOLINT: the kernels of this file
  return registry->AddKernels({
      {"tfrt_ccl.create_group",
       SLUICE_KERNEL(CreateGroup)
           .WithAttributeNames({"store", "connect_timeout_ms", "timeout_ms"})},
      {"tfrt_ccl.allreduce", SLUICE_KERNEL(AllReduce).WithAttributeNames(
                                 {"reduction", "timeout_ms", "on_failure"})},
      {"tfrt_ccl.reduce_scatter",
       SLUICE_KERNEL(ReduceScatter)
           .WithAttributeNames({"reduction", "timeout_ms", "on_failure"})},
      {"tfrt_ccl.allgather", SLUICE_KERNEL(AllGather).WithAttributeNames(
                                 {"timeout_ms", "on_failure"})},
      {"tfrt_ccl.allreduce_partial",
       SLUICE_KERNEL(AllReducePartial)
           .WithAttributeNames({"reduction", "timeout_ms", "agreement_ms"})},
      {"tfrt_ccl.allgather_partial",
       SLUICE_KERNEL(AllGatherPartial)
           .WithAttributeNames({"timeout_ms", "agreement_ms"})},
      {"tfrt_ccl.broadcast", SLUICE_KERNEL(Broadcast).WithAttributeNames(
                                 {"root", "timeout_ms", "on_failure"})},
      {"tfrt_ccl.barrier",
       SLUICE_KERNEL(Barrier).WithAttributeNames({"timeout_ms"})},
      {"tfrt_ccl.send",
       SLUICE_KERNEL(Send).WithAttributeNames({"peer", "tag", "timeout_ms"})},
      {"tfrt_ccl.recv", SLUICE_KERNEL(Recv).WithAttributeNames(
                            {"peer", "tag", "dtype", "shape", "timeout_ms"})},
  });
}

}  // namespace sluice
