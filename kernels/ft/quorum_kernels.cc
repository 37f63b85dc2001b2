// tfrt_ft.start_quorum and tfrt_ft.should_commit: the process's manager
// (process_manager.h). Both return at once; the manager's calls, which wait
// on the lighthouse and the peers, run on the host's blocking pool.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/ft/kernel_groups.h"
#include "kernels/ft/process_manager.h"
#include "sluice/collective/collective_group.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernels/ccl_kernels.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {
namespace {

using ft::ProcessManager;

constexpr char kStartQuorum[] = "tfrt_ft.start_quorum";
constexpr char kShouldCommit[] = "tfrt_ft.should_commit";

// "f32 [2, 3]".
std::string Describe(const DenseHostTensor& tensor) {
  return absl::StrCat(DTypeName(tensor.dtype()), " ",
                      tensor.shape().ToString());
}

// The healed tensors must be the ones this replica holds, peer for peer.
absl::Status CheckHealed(const std::vector<DenseHostTensor>& given,
                         const std::vector<DenseHostTensor>& healed,
                         const std::string& peer) {
  if (given.size() != healed.size()) {
    return absl::FailedPreconditionError(
        absl::StrCat(kStartQuorum, ": replica ", peer, " sent ", healed.size(),
                     " tensors, this replica holds ", given.size()));
  }
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i].dtype() != healed[i].dtype() ||
        given[i].shape() != healed[i].shape()) {
      return absl::FailedPreconditionError(absl::StrCat(
          kStartQuorum, ": replica ", peer, " sent tensor #", i, " as ",
          Describe(healed[i]), ", this replica holds ", Describe(given[i])));
    }
  }
  return absl::OkStatus();
}

// %group, %generation, %step, %tensors... =
//     tfrt_ft.start_quorum %step, %tensors...
void StartQuorumKernel(int64_t step, RemainingArguments tensors,
                       AsyncKernelFrame* frame) {
  if (frame->GetNumResults() != 3 + tensors.size()) {
    return frame->ReportError(absl::InvalidArgumentError(
        absl::StrCat(kStartQuorum, ": ", frame->GetNumResults(),
                     " results for ", tensors.size(), " tensors")));
  }
  std::vector<DenseHostTensor> given;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i]->IsType<DenseHostTensor>()) {
      return frame->ReportError(absl::InvalidArgumentError(absl::StrCat(
          kStartQuorum, ": tensor #", i, " is not a dense host tensor")));
    }
    // Shares the buffer: the state served to peers is these tensors.
    given.push_back(tensors[i]->get<DenseHostTensor>());
  }
  absl::StatusOr<ProcessManager*> process = ProcessManager::Get();
  if (!process.ok()) return frame->ReportError(process.status());
  ft::TensorReplicaState* state =
      &frame->host()->GetOrCreateSharedContext<ft::HostReplicaState>().state();
  // StartQuorum waits for the lighthouse and the peers: on the blocking
  // pool.
  frame->host()->EnqueueBlockingWork([frame = *frame, process = *process, state,
                                      step,
                                      given = std::move(given)]() mutable {
    // This host's tensors are what the manager serves from now on.
    process->Attach(state);
    state->Set(given);
    absl::StatusOr<ft::QuorumView> view = process->manager().StartQuorum(step);
    if (!view.ok()) return frame.ReportError(view.status());
    std::vector<DenseHostTensor> out = std::move(given);
    if (!view->healed_from.empty()) {
      std::vector<DenseHostTensor> healed = state->Get();
      if (absl::Status same = CheckHealed(out, healed, view->healed_from);
          !same.ok()) {
        return frame.ReportError(same);
      }
      out = std::move(healed);
    }
    frame.EmplaceResultAt<GroupValue>(0, std::move(view->group));
    frame.EmplaceResultAt<int64_t>(1, view->generation);
    frame.EmplaceResultAt<int64_t>(2, view->max_step);
    for (size_t i = 0; i < out.size(); ++i) {
      frame.EmplaceResultAt<DenseHostTensor>(3 + i, std::move(out[i]));
    }
  });
}

// %commit = tfrt_ft.should_commit %step, %deps...: non-strict, so that a
// failed collective among %deps reaches the vote instead of skipping it.
void ShouldCommitKernel(Argument<int64_t> step, RemainingArguments deps,
                        AsyncKernelFrame* frame) {
  auto waited = std::make_shared<std::vector<RCReference<AsyncValue>>>();
  waited->push_back(FormRef(step.value()));
  for (AsyncValue* dep : deps.values()) waited->push_back(FormRef(dep));
  RunWhenReady(*waited, [frame = *frame, waited]() mutable {
    AsyncValue* step_value = (*waited)[0].get();
    if (step_value->IsError()) return frame.ReportError(step_value->GetError());
    absl::StatusOr<ProcessManager*> process = ProcessManager::Get();
    if (!process.ok()) return frame.ReportError(process.status());
    absl::Status failed;
    for (size_t i = 1; i < waited->size() && failed.ok(); ++i) {
      if ((*waited)[i]->IsError()) failed = (*waited)[i]->GetError();
    }
    const int64_t step = step_value->get<int64_t>();
    // The vote waits for every participant's: on the blocking pool.
    frame.host()->EnqueueBlockingWork([frame = std::move(frame),
                                       process = *process, step,
                                       failed = std::move(failed)]() mutable {
      if (!failed.ok()) process->manager().ReportError(failed);
      absl::StatusOr<bool> commit = process->manager().ShouldCommit(step);
      if (!commit.ok()) return frame.ReportError(commit.status());
      frame.EmplaceResultAt<bool>(0, *commit);
    });
  });
}

}  // namespace

absl::Status RegisterQuorumKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {kStartQuorum, SLUICE_KERNEL(StartQuorumKernel)},
      {kShouldCommit, SLUICE_KERNEL(ShouldCommitKernel),
       Strictness::kNonStrict},
  });
}

}  // namespace sluice
