// Parallel loops of the `tfrt` dialect (as TFRT defines them):
// tfrt.parallel_for.i32 (the body is a region) and tfrt.parallel_call.i32
// (the body is the function the `callee` attribute names). Both reach the
// kernel as its first function, so one implementation serves both.
//
// Operands: start, end, block size (i32), then the extra values every block
// receives after its (block_start, block_end). The range [start, end) is cut
// into blocks of `block size` (the last one shorter); each block runs the
// body as a task of the host's work queue. The single result is a chain that
// becomes available once every block's results are; if any block's result is
// an error, the chain is that error value instead (the first to be seen when
// several fail).
//
// The kernels are non-strict: they wait for the three bounds themselves (an
// error bound makes the chain that error), and pass the extra values to the
// body as they are, pending or not. A block that has not started when the
// request is cancelled does not run; it counts as failed with the request's
// cancel value. A block size that is not positive is reported as an
// InvalidArgument error. An empty range (end <= start) runs no block and the
// chain is available at once.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "kernels/basic/basic_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/kernel/async_kernel_frame.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/ref_count.h"

namespace sluice {
namespace basic_kernels {
namespace {

// The kernel's name as absl::StrCat takes it: Debian's Abseil has a
// string_view of its own.
absl::string_view KernelName(const KernelFrame& frame) {
  const std::string_view name = frame.debug_info().name;
  return absl::string_view(name.data(), name.size());
}

constexpr size_t kNumBounds = 3;  // start, end, block size

// The first error among `values`, all available, or nullptr.
AsyncValue* FirstError(absl::Span<const RCReference<AsyncValue>> values) {
  for (const RCReference<AsyncValue>& value : values) {
    if (value->IsError()) return value.get();
  }
  return nullptr;
}

// What the blocks of one execution share: the detached kernel frame (which
// keeps the extra operands, the request and the result placeholder alive)
// and the count of blocks still running.
class ParallelBlocks : public ReferenceCounted<ParallelBlocks> {
 public:
  ParallelBlocks(AsyncKernelFrame frame, const Function* body,
                 int64_t num_blocks)
      : frame_(std::move(frame)), body_(body), remaining_(num_blocks) {}

  // Runs on a work-queue thread. Blocks only read the shared frame; the
  // last one to finish is the only writer.
  void RunBlock(int32_t block_start, int32_t block_end) {
    const ExecutionContext& context = frame_.exec_ctx();
    if (context.IsCancelled()) {
      BlockDone(context.request_context()->GetCancelAsyncValue());
      return;
    }
    RCReference<AsyncValue> start =
        MakeAvailableAsyncValueRef<int32_t>(block_start).ReleaseRCRef();
    RCReference<AsyncValue> end =
        MakeAvailableAsyncValueRef<int32_t>(block_end).ReleaseRCRef();
    std::vector<AsyncValue*> arguments = {start.get(), end.get()};
    for (size_t i = 2; i < body_->num_arguments(); ++i) {
      arguments.push_back(frame_.GetArgAt(kNumBounds + i - 2));
    }
    // On the heap so that the span RunWhenReady reads and the callback that
    // keeps the values alive refer to the same storage.
    auto results = std::make_shared<std::vector<RCReference<AsyncValue>>>(
        body_->num_results());
    body_->Execute(context, arguments, absl::MakeSpan(*results));
    RunWhenReady(absl::MakeConstSpan(*results),
                 [self = FormRef(this), results] {
                   self->BlockDone(FirstError(*results));
                 });
  }

 private:
  void BlockDone(AsyncValue* error) {
    if (error != nullptr) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!first_error_) first_error_ = FormRef(error);
    }
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    RCReference<AsyncValue> outcome;
    {
      std::lock_guard<std::mutex> lock(mu_);
      outcome = std::move(first_error_);
    }
    if (!outcome) outcome = MakeReadyChain().ReleaseRCRef();
    frame_.SetResultAt(0, std::move(outcome));
  }

  AsyncKernelFrame frame_;
  const Function* const body_;
  std::atomic<int64_t> remaining_;
  std::mutex mu_;
  RCReference<AsyncValue> first_error_;  // guarded by mu_
};

// Runs once the bounds are available.
void LaunchBlocks(AsyncKernelFrame frame, const Function* body) {
  for (size_t i = 0; i < kNumBounds; ++i) {
    AsyncValue* bound = frame.GetArgAt(i);
    if (bound->IsError()) {
      frame.SetResultAt(0, FormRef(bound));
      return;
    }
  }
  // In 64 bits, so that stepping past the last block cannot overflow.
  const int64_t start = frame.GetArgValueAt<int32_t>(0);
  const int64_t end = frame.GetArgValueAt<int32_t>(1);
  const int64_t block_size = frame.GetArgValueAt<int32_t>(2);
  if (block_size <= 0) {
    frame.ReportError(absl::InvalidArgumentError(
        absl::StrCat("block size must be positive, got ", block_size)));
    return;
  }
  if (end <= start) {
    frame.SetResultAt(0, MakeReadyChain().ReleaseRCRef());
    return;
  }
  const int64_t num_blocks = (end - start + block_size - 1) / block_size;
  HostContext* host = frame.host();
  RCReference<ParallelBlocks> blocks =
      MakeRef<ParallelBlocks>(std::move(frame), body, num_blocks);
  for (int64_t block_start = start; block_start < end;
       block_start += block_size) {
    const int64_t block_end = std::min(end, block_start + block_size);
    host->EnqueueWork([blocks = blocks.CopyRef(), block_start, block_end] {
      blocks->RunBlock(static_cast<int32_t>(block_start),
                       static_cast<int32_t>(block_end));
    });
  }
}

void ParallelForI32(KernelFrame* frame) {
  if (frame->GetNumFunctions() < 1) {
    frame->ReportError(absl::InvalidArgumentError(
        absl::StrCat(KernelName(*frame), " needs a body function")));
    return;
  }
  const Function* body = frame->GetFunctionAt(0);
  if (body->num_arguments() < 2) {
    frame->ReportError(absl::InvalidArgumentError(
        absl::StrCat("'", body->name(), "' takes ", body->num_arguments(),
                     " arguments but needs at least the block start and "
                     "end")));
    return;
  }
  const size_t num_extras = body->num_arguments() - 2;
  if (frame->GetNumArgs() < kNumBounds + num_extras) {
    frame->ReportError(absl::InvalidArgumentError(
        absl::StrCat(KernelName(*frame), " has ", frame->GetNumArgs(),
                     " operands; start, end, block size and ", num_extras,
                     " extra value(s) for '", body->name(), "' are needed")));
    return;
  }
  if (frame->GetNumResults() != 1) {
    frame->ReportError(absl::InvalidArgumentError(
        absl::StrCat(KernelName(*frame), " has one result (a chain), not ",
                     frame->GetNumResults())));
    return;
  }
  // Copying the frame detaches it: the chain becomes a placeholder the
  // caller sees now, and the copy keeps the operands and the request alive
  // for the blocks.
  AsyncKernelFrame in_place(frame);
  AsyncKernelFrame detached(in_place);
  RunWhenReady(frame->GetArguments().subspan(0, kNumBounds),
               [async_frame = std::move(detached), body]() mutable {
                 LaunchBlocks(std::move(async_frame), body);
               });
}

}  // namespace

absl::Status RegisterParallelKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt.parallel_for.i32", &ParallelForI32, Strictness::kNonStrict},
      {"tfrt.parallel_call.i32", &ParallelForI32, Strictness::kNonStrict},
  });
}

}  // namespace basic_kernels
}  // namespace sluice
