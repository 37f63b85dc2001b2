// tfrt_ft.save_checkpoint and tfrt_ft.restore_checkpoint: the checkpoint
// library (sluice/checkpoint/checkpoint.h) on the blocking pool, since
// both wait on the disk. Their directory is confined to the host's data
// root when one is set (a worker's --data_root, lib/checkpoint/data_root.h).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/ft/kernel_groups.h"
#include "lib/checkpoint/data_root.h"
#include "sluice/bef/format.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice {
namespace {

// The names in `names`, each a string attribute; `op` names the op in the
// error a malformed program gets.
absl::StatusOr<std::vector<std::string>> NamesOf(
    const AggregateAttribute& names, const char* op) {
  std::vector<std::string> result;
  for (size_t i = 0; i < names.size(); ++i) {
    const auto type = static_cast<bef::AttributeType>(names.type(i));
    if (type != bef::AttributeType::kString) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": names[", i, "] is a ",
                       bef::AttributeTypeName(type), ", not a string"));
    }
    result.push_back(StringAttribute(names.data(i)).str());
  }
  return result;
}

// `directory` as `op` may open it on `host`: under the host's data root, if
// it has one. The refusal names the op; the frame adds its location.
absl::StatusOr<std::string> ConfinedDirectory(HostContext* host,
                                              const char* op,
                                              const std::string& directory) {
  absl::StatusOr<std::string> resolved =
      host->GetOrCreateSharedContext<checkpoint::DataRoot>().Resolve(
          directory);
  if (!resolved.ok()) {
    return absl::Status(resolved.status().code(),
                        absl::StrCat(op, ": checkpoint directory refused: ",
                                     resolved.status().message()));
  }
  return resolved;
}

// tfrt_ft.save_checkpoint %chain, %step, %epoch, %tensors...
//     {directory, names, keep_last} -> !tfrt.chain
void SaveCheckpointKernel(const Chain&, int64_t step, int64_t epoch,
                          RemainingArguments tensors, StringAttribute directory,
                          AggregateAttribute names,
                          Attribute<int32_t> keep_last,
                          AsyncKernelFrame* frame) {
  constexpr char kOp[] = "tfrt_ft.save_checkpoint";
  absl::StatusOr<std::vector<std::string>> tensor_names = NamesOf(names, kOp);
  if (!tensor_names.ok()) return frame->ReportError(tensor_names.status());
  if (tensor_names->size() != tensors.size()) {
    return frame->ReportError(absl::InvalidArgumentError(
        absl::StrCat(kOp, ": ", tensor_names->size(), " names for ",
                     tensors.size(), " tensors")));
  }
  // Copies share the tensors' buffers, so the blocking task owns what it
  // writes even after the frame's arguments are gone.
  std::map<std::string, DenseHostTensor> named;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i]->IsType<DenseHostTensor>()) {
      return frame->ReportError(absl::InvalidArgumentError(
          absl::StrCat(kOp, ": tensor #", i, " ('", (*tensor_names)[i],
                       "') is not a dense host tensor")));
    }
    named[(*tensor_names)[i]] = tensors[i]->get<DenseHostTensor>();
  }
  absl::StatusOr<std::string> confined =
      ConfinedDirectory(frame->host(), kOp, directory.str());
  if (!confined.ok()) return frame->ReportError(confined.status());
  checkpoint::CheckpointOptions options;
  options.keep_last = *keep_last;
  frame->host()->EnqueueBlockingWork(
      [frame = *frame, directory = *std::move(confined), step, epoch,
       named = std::move(named), options]() mutable {
        absl::Status saved =
            checkpoint::SaveCheckpoint(directory, step, epoch, named, options);
        if (!saved.ok()) return frame.ReportError(saved);
        frame.EmplaceResultAt<Chain>(0);
      });
}

// %chain, %step, %epoch, %tensors... = tfrt_ft.restore_checkpoint %chain
//     {directory, names}
void RestoreCheckpointKernel(const Chain&, StringAttribute directory,
                             AggregateAttribute names,
                             AsyncKernelFrame* frame) {
  constexpr char kOp[] = "tfrt_ft.restore_checkpoint";
  absl::StatusOr<std::vector<std::string>> tensor_names = NamesOf(names, kOp);
  if (!tensor_names.ok()) return frame->ReportError(tensor_names.status());
  if (frame->GetNumResults() != 3 + tensor_names->size()) {
    return frame->ReportError(absl::InvalidArgumentError(
        absl::StrCat(kOp, ": ", frame->GetNumResults(), " results for ",
                     tensor_names->size(), " names (3 more expected)")));
  }
  absl::StatusOr<std::string> confined =
      ConfinedDirectory(frame->host(), kOp, directory.str());
  if (!confined.ok()) return frame->ReportError(confined.status());
  frame->host()->EnqueueBlockingWork(
      [frame = *frame, directory = *std::move(confined),
       tensor_names = *std::move(tensor_names)]() mutable {
        absl::StatusOr<checkpoint::Checkpoint> checkpoint =
            checkpoint::RestoreCheckpoint(directory, frame.host()->allocator());
        if (!checkpoint.ok()) return frame.ReportError(checkpoint.status());
        std::vector<DenseHostTensor> tensors;
        for (const std::string& name : tensor_names) {
          auto it = checkpoint->tensors.find(name);
          if (it == checkpoint->tensors.end()) {
            return frame.ReportError(absl::NotFoundError(
                absl::StrCat("checkpoint '", checkpoint->manifest_path,
                             "' has no tensor '", name, "'")));
          }
          tensors.push_back(std::move(it->second));
        }
        frame.EmplaceResultAt<Chain>(0);
        frame.EmplaceResultAt<int64_t>(1, checkpoint->step);
        frame.EmplaceResultAt<int64_t>(2, checkpoint->epoch);
        for (size_t i = 0; i < tensors.size(); ++i) {
          frame.EmplaceResultAt<DenseHostTensor>(3 + i, std::move(tensors[i]));
        }
      });
}

}  // namespace

absl::Status RegisterCheckpointKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_ft.save_checkpoint",
       SLUICE_KERNEL(SaveCheckpointKernel)
           .WithAttributeNames({"directory", "names", "keep_last"})},
      {"tfrt_ft.restore_checkpoint",
       SLUICE_KERNEL(RestoreCheckpointKernel)
           .WithAttributeNames({"directory", "names"})},
  });
}

}  // namespace sluice
