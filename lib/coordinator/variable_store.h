// VariableStore: the variables of one parameter-server task, and the
// requests of the Variables service (variable_service.proto) carried out on
// them. Each variable has a lock of its own: updates of different variables
// run in parallel, updates of one run one at a time, each whole, and a read
// sees no update half done. The store's own lock is held only to find or
// add a variable, never while one is computed on or copied.
#ifndef SLUICE_LIB_COORDINATOR_VARIABLE_STORE_H_
#define SLUICE_LIB_COORDINATOR_VARIABLE_STORE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/coordinator/variable_service.pb.h"
#include "sluice/host_context/host_allocator.h"

namespace sluice::dist {

struct WireTensor;

class VariableStore {
 public:
  // `task_name` names this task in errors. Variables' elements come from
  // `allocator`, which must outlive the store. The variables' values and
  // their Adam moments together hold at most `max_variable_bytes` (0: no
  // bound); a create or an Adam step that needs more is refused with
  // ResourceExhausted.
  VariableStore(std::string task_name, HostAllocator* allocator,
                int64_t max_variable_bytes = 0);
  ~VariableStore();
  VariableStore(const VariableStore&) = delete;
  VariableStore& operator=(const VariableStore&) = delete;

  // Creates a variable holding the request's initial value. A variable of
  // that name with the same dtype and shape is kept as it is (`created` is
  // false): creating is idempotent, so a retried or repeated create does no
  // harm. AlreadyExists when its dtype or shape differ.
  absl::Status Create(const proto::CreateVariableRequest& request,
                      proto::CreateVariableResponse* response);

  // The variable's value (and its optimizer state, when asked), copied into
  // the response under the variable's lock.
  absl::Status Read(const proto::ReadVariableRequest& request,
                    proto::ReadVariableResponse* response);

  // Checks the update against the variable (dtype, shape, hyperparameters)
  // and applies it; nothing changes when a check fails.
  absl::Status Update(const proto::UpdateVariableRequest& request);

  // Every variable's name, dtype and shape, in name order.
  void List(proto::ListVariablesResponse* response);

  // The bytes the variables hold: their values and Adam moments.
  int64_t bytes_held() const {
    return bytes_held_.load(std::memory_order_relaxed);
  }

 private:
  struct Variable;
  struct UpdateCheck;
  class Reservation;

  // Counts `bytes` (what `role` of the request `what` needs) against the
  // bound, or ResourceExhausted naming both. The bytes count until the
  // reservation is destroyed, unless it is kept.
  absl::StatusOr<Reservation> Reserve(const std::string& what,
                                      std::string_view role, int64_t bytes);
  // Allocates `var`'s Adam moments, zeros, unless it has them; under its
  // lock.
  absl::Status EnsureAdamMoments(const UpdateCheck& check, Variable& var);

  // The variable `name`, or NotFound naming it and this task.
  absl::StatusOr<std::shared_ptr<Variable>> Find(std::string_view name);
  // The updates with checks of their own, made after the operand's.
  absl::Status ApplyAdam(const UpdateCheck& check,
                         const proto::AdamUpdate& adam,
                         const WireTensor& gradient);
  absl::Status SetAdamState(const UpdateCheck& check,
                            const proto::AdamState& state,
                            const WireTensor& first);

  const std::string task_name_;
  HostAllocator* const allocator_;
  const int64_t max_variable_bytes_;  // 0: no bound
  std::atomic<int64_t> bytes_held_{0};
  std::mutex mu_;
  // Shared: a request keeps the variable it works on alive without the
  // store's lock.
  std::map<std::string, std::shared_ptr<Variable>, std::less<>>
      variables_;  // guarded by mu_
};

}  // namespace sluice::dist

#endif  // SLUICE_LIB_COORDINATOR_VARIABLE_STORE_H_
