// Checkpoints of the variables on parameter servers (docs/checkpoints.md).
//
//   VariableClient client(spec, rpc_options, host);
//   absl::Status saved =
//       SaveVariables(client, host, "/ckpt/run1", step, epoch);
//   ...
//   // After a restart, possibly with another number of ps tasks:
//   absl::StatusOr<RestoredVariables> restored =
//       RestoreVariables(client, host, "/ckpt/run1");
//
// A checkpoint of variables is a checkpoint of named tensors
// (sluice/checkpoint/checkpoint.h) with the same guarantees: atomic,
// crash-safe, the newest intact one restored. It records each variable's
// name, value and Adam state, not the task that held it: a restore places
// the variables with the client's placement policy, onto as many ps tasks
// as the cluster has now.
#ifndef SLUICE_COORDINATOR_VARIABLE_CHECKPOINT_H_
#define SLUICE_COORDINATOR_VARIABLE_CHECKPOINT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/coordinator/variables.h"
#include "sluice/host_context/host_context.h"

namespace sluice::dist {

// Reads every variable of every ps task, with its Adam state, and saves
// them as the checkpoint of `step`. `host` is the client's HostContext: the
// calls wait on it. The reads are not one snapshot across variables: save
// between training steps. A task that fails fails the save with the
// client's error (retryable when the task went away), and nothing is
// written. FailedPrecondition when two tasks hold variables of the same
// name, which one checkpoint cannot tell apart.
absl::Status SaveVariables(VariableClient& client, HostContext* host,
                           const std::string& directory, int64_t step,
                           int64_t epoch,
                           const checkpoint::CheckpointOptions& options = {});

struct RestoredVariables {
  int64_t step = 0;
  int64_t epoch = 0;
  // Every variable of the checkpoint where it now lives, in name order.
  std::vector<VariableHandle> variables;
};

// Restores the newest intact checkpoint in `directory` (RestoreCheckpoint's
// choice) onto the client's ps tasks. A variable that a task already holds
// is assigned the saved value there (FailedPrecondition if its dtype or
// shape differs); any other is created through the client's placement
// policy with the saved value. Saved Adam state replaces the variable's.
// Variables the checkpoint does not name are left alone. Errors from the
// tasks are the client's; an intact checkpoint that is not one of
// variables (a tensor that no variable accounts for) is FailedPrecondition
// naming the tensor. So is a checkpoint that no parameter server would
// take back: a variable name CheckVariableName refuses, or Adam state with
// a step outside [1, kMaxAdamStep], a moment that is not finite or a
// negative second moment; nothing is restored then.
absl::StatusOr<RestoredVariables> RestoreVariables(
    VariableClient& client, HostContext* host, const std::string& directory);

}  // namespace sluice::dist

#endif  // SLUICE_COORDINATOR_VARIABLE_CHECKPOINT_H_
