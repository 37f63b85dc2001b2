// Variables on parameter servers: named tensors held by the tasks of the
// cluster's `ps` job (sluice_worker processes, which serve them; see
// sluice/coordinator/variable_service.h), read and updated by any number of
// clients. docs/variables.md describes the semantics; in short:
//
//   - Each update (assign, assign-add, an SGD or Adam step) is atomic per
//     variable: concurrent updates from many clients are applied one at a
//     time, each whole, and a read sees none half done.
//   - Creating a variable that exists with the same dtype and shape keeps
//     it (and its value): a retried or repeated create is harmless.
//   - Every call returns an AsyncValue at once; it resolves on the client's
//     HostContext work queue when the task answers. Every RPC has a
//     deadline. A task that is down, dies or does not answer resolves it
//     to an error naming the task and the variable, marked retryable
//     (sluice/support/failure.h).
#ifndef SLUICE_COORDINATOR_VARIABLES_H_
#define SLUICE_COORDINATOR_VARIABLES_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/distributed/variable_handle.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"
#include "sluice/tensor/tensor_shape.h"

namespace sluice::dist {
namespace internal {
class VariableChannel;
}  // namespace internal

// Limits every parameter server enforces (docs/variables.md#limits).
//
// A variable's name is 1 to kMaxVariableNameBytes bytes of [A-Za-z0-9._/-]:
// short enough that every checkpoint can store it and every error message
// can quote it, and made of bytes no log or file name misreads.
inline constexpr size_t kMaxVariableNameBytes = 256;
// Adam's step count is at most 2^53: a double, in which the bias correction
// is computed, counts every step exactly up to there.
inline constexpr int64_t kMaxAdamStep = int64_t{1} << 53;

// OK when `name` is a valid variable name; otherwise InvalidArgument saying
// which rule it breaks ("the name is empty", ...), quoting it safely.
absl::Status CheckVariableName(std::string_view name);

// `name` quoted for an error message: a valid name as it is ('w'); any
// other with its bytes outside [A-Za-z0-9._/-] escaped, and cut after its
// first bytes with its length added when it is too long to be a name.
std::string QuotedVariableName(std::string_view name);

// Adam's hyperparameters (Kingma and Ba; the defaults are Keras's).
struct AdamOptions {
  double learning_rate = 0.001;
  double beta1 = 0.9;     // in [0, 1)
  double beta2 = 0.999;   // in [0, 1)
  double epsilon = 1e-7;  // > 0
};

// What a variable holds beyond its value: Adam's state, once an Adam step
// has run on it. Checkpoints save and restore it with the value.
struct AdamState {
  int64_t step = 0;   // steps taken; 0: no Adam step has run
  DenseHostTensor m;  // first moment, the variable's dtype and shape
  DenseHostTensor v;  // second moment
};

struct VariableState {
  DenseHostTensor value;
  AdamState adam;
};

// Where new variables go. Implementations must be thread-safe: clients
// create variables from many threads.
class PlacementPolicy {
 public:
  virtual ~PlacementPolicy();
  // The index, in `ps_tasks` (never empty, in task order), of the task to
  // hold the new variable `name`.
  virtual size_t Place(std::string_view name, DType dtype,
                       const TensorShape& shape,
                       absl::Span<const std::string> ps_tasks) = 0;
};

// The default: the first variable a client creates goes to ps task 0, the
// next to task 1, and so on, wrapping around.
class RoundRobinPlacement : public PlacementPolicy {
 public:
  size_t Place(std::string_view name, DType dtype, const TensorShape& shape,
               absl::Span<const std::string> ps_tasks) override;

 private:
  std::atomic<uint64_t> next_{0};
};

struct VariableClientOptions {
  // The job whose tasks hold variables.
  std::string ps_job = "ps";
  // Round robin when null.
  std::unique_ptr<PlacementPolicy> placement;
};

class VariableClient {
 public:
  // Results resolve on `host`, which must outlive the client.
  VariableClient(ClusterSpec spec, RpcOptions options, HostContext* host,
                 VariableClientOptions client_options = {});
  // Cancels the RPCs still in flight (their values resolve to the
  // cancellation) and waits for them.
  ~VariableClient();
  VariableClient(const VariableClient&) = delete;
  VariableClient& operator=(const VariableClient&) = delete;

  // The tasks of the ps job, in task order.
  const std::vector<std::string>& ps_tasks() const { return ps_tasks_; }

  // Creates `name` on the task the placement policy picks, holding a copy
  // of `initial_value`. A name this client placed before goes to the same
  // task again, whatever the policy says; clients that create the same
  // variables in the same order place them alike under round robin.
  // InvalidArgument, with nothing sent, for a name CheckVariableName
  // refuses; FailedPrecondition when the cluster has no ps task;
  // AlreadyExists when the task holds `name` with another dtype or shape;
  // ResourceExhausted when the task's --max_variable_bytes has no room.
  // The first contact with a task waits for it to come up (until the
  // deadline) under the default fail-fast policy, as a status RPC does.
  AsyncValueRef<VariableHandle> Create(std::string name,
                                       const DenseHostTensor& initial_value);
  // The same on a task of the caller's choice (any task of the cluster).
  AsyncValueRef<VariableHandle> CreateOn(std::string_view task,
                                         std::string name,
                                         const DenseHostTensor& initial_value);

  // A copy of the value, in a buffer from the host's allocator.
  AsyncValueRef<DenseHostTensor> Read(const VariableHandle& variable);
  // The value and Adam's state, read together (for checkpoints).
  AsyncValueRef<VariableState> ReadState(const VariableHandle& variable);

  // The updates. Each value or gradient must have the variable's dtype and
  // shape (InvalidArgument otherwise, and the variable is unchanged).
  AsyncValueRef<Chain> Assign(const VariableHandle& variable,
                              const DenseHostTensor& value);
  // i32, i64, f32 and f64 variables; integers wrap around.
  AsyncValueRef<Chain> AssignAdd(const VariableHandle& variable,
                                 const DenseHostTensor& delta);
  // var -= learning_rate * gradient; f32 and f64 variables.
  AsyncValueRef<Chain> ApplySgd(const VariableHandle& variable,
                                const DenseHostTensor& gradient,
                                double learning_rate);
  // One Adam step with the variable's moments and step count, which the
  // task keeps (the first step starts them at zero); f32 and f64 variables.
  AsyncValueRef<Chain> ApplyAdam(const VariableHandle& variable,
                                 const DenseHostTensor& gradient,
                                 const AdamOptions& options = {});
  // Replaces Adam's state (a checkpoint being restored): a step in
  // [1, kMaxAdamStep], finite moments of the variable's dtype and shape, a
  // second moment of no negative element. InvalidArgument otherwise, and
  // the variable is unchanged.
  AsyncValueRef<Chain> RestoreAdamState(const VariableHandle& variable,
                                        const AdamState& state);

  // The variables `task` holds, in name order.
  AsyncValueRef<std::vector<VariableHandle>> List(std::string_view task);
  // The variables of every ps task, task by task; fails with the first
  // task's failure.
  AsyncValueRef<std::vector<VariableHandle>> ListAll();

 private:
  // The channel to `task` (made on first use), or NotFound naming the
  // cluster's tasks.
  absl::StatusOr<internal::VariableChannel*> ChannelOf(std::string_view task);

  const ClusterSpec spec_;
  const RpcOptions options_;
  HostContext* const host_;
  const std::vector<std::string> ps_tasks_;
  const std::unique_ptr<PlacementPolicy> placement_;
  std::mutex mu_;
  // Where Create put each name.
  std::map<std::string, size_t, std::less<>> placed_;  // guarded by mu_
  std::map<std::string, std::unique_ptr<internal::VariableChannel>,
           std::less<>>
      channels_;  // guarded by mu_
};

}  // namespace sluice::dist

#endif  // SLUICE_COORDINATOR_VARIABLES_H_
