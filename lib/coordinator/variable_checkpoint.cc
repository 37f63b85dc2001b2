#include "sluice/coordinator/variable_checkpoint.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/coordinator/variable_math.h"
#include "sluice/checkpoint/checkpoint.h"
#include "sluice/coordinator/variables.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/support/error_util.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::dist {
namespace {

// A variable's tensors in a checkpoint are named "<kind>:<variable name>".
// The kinds hold no ':', so the first one ends the kind whatever the
// variable's name holds.
constexpr std::string_view kValue = "value";
constexpr std::string_view kAdamM = "adam.m";
constexpr std::string_view kAdamV = "adam.v";
constexpr std::string_view kAdamStep = "adam.step";

std::string TensorName(std::string_view kind, const std::string& variable) {
  return absl::StrCat(std::string(kind), ":", variable);
}

// Waits for every value on `host`; the first error in order, if any.
template <typename T>
absl::Status AwaitAll(HostContext* host,
                      const std::vector<AsyncValueRef<T>>& values) {
  std::vector<RCReference<AsyncValue>> pending;
  pending.reserve(values.size());
  for (const AsyncValueRef<T>& value : values) {
    pending.push_back(value.CopyRCRef());
  }
  host->Await(pending);
  for (const AsyncValueRef<T>& value : values) {
    if (value.IsError()) return value.GetError();
  }
  return absl::OkStatus();
}

template <typename T>
absl::StatusOr<T> AwaitOne(HostContext* host, const AsyncValueRef<T>& value) {
  host->Await(value.CopyRCRef());
  if (value.IsError()) return value.GetError();
  return value.get();
}

// A variable as a checkpoint holds it.
struct SavedVariable {
  std::optional<DenseHostTensor> value;
  std::optional<DenseHostTensor> adam_m;
  std::optional<DenseHostTensor> adam_v;
  std::optional<DenseHostTensor> adam_step;
};

// The variables in `checkpoint`'s tensors, checked to be complete and
// consistent, in name order.
absl::StatusOr<std::map<std::string, VariableState>> VariablesOf(
    const checkpoint::Checkpoint& checkpoint) {
  const std::string where =
      absl::StrCat("checkpoint '", checkpoint.manifest_path, "'");
  std::map<std::string, SavedVariable> saved;
  for (const auto& [tensor_name, tensor] : checkpoint.tensors) {
    const size_t colon = tensor_name.find(':');
    const std::string kind = tensor_name.substr(0, colon);
    std::optional<DenseHostTensor>* slot = nullptr;
    if (colon != std::string::npos && colon + 1 < tensor_name.size()) {
      SavedVariable& variable = saved[tensor_name.substr(colon + 1)];
      if (kind == kValue) slot = &variable.value;
      if (kind == kAdamM) slot = &variable.adam_m;
      if (kind == kAdamV) slot = &variable.adam_v;
      if (kind == kAdamStep) slot = &variable.adam_step;
    }
    if (slot == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(where, " holds tensor '", tensor_name,
                       "', which is no variable's (value:, adam.m:, adam.v: or "
                       "adam.step: and a name)"));
    }
    *slot = tensor;
  }

  std::map<std::string, VariableState> variables;
  for (const auto& entry : saved) {
    // Not a structured binding: C++17 lambdas cannot capture one.
    const std::string& name = entry.first;
    const SavedVariable& variable = entry.second;
    auto bad = [&](const std::string& what) {
      return absl::FailedPreconditionError(absl::StrCat(
          where, ": variable ", QuotedVariableName(name), " ", what));
    };
    // Checked here as the parameter servers would: a restore refused
    // halfway would leave some variables restored and others not.
    if (absl::Status valid = CheckVariableName(name); !valid.ok()) {
      return bad(absl::StrCat("cannot be restored: ", valid.message()));
    }
    if (!variable.value) return bad("has Adam state but no value");
    VariableState& state = variables[name];
    state.value = *variable.value;
    const int adam_parts = variable.adam_m.has_value() +
                           variable.adam_v.has_value() +
                           variable.adam_step.has_value();
    if (adam_parts == 0) continue;
    if (adam_parts != 3) {
      return bad("has part of Adam's state (m, v and step go together)");
    }
    const DenseHostTensor& step = *variable.adam_step;
    if (step.dtype() != DType::kI64 || step.shape().rank() != 0 ||
        step.values<int64_t>()[0] < 1) {
      return bad(absl::StrCat("has Adam step ", step.ToString(),
                              ", not an i64 scalar of at least 1"));
    }
    for (const DenseHostTensor* moment :
         {&*variable.adam_m, &*variable.adam_v}) {
      if (moment->dtype() != state.value.dtype() ||
          moment->shape() != state.value.shape()) {
        return bad(absl::StrFormat(
            "is %s %s but has an Adam moment of %s %s",
            DTypeName(state.value.dtype()), state.value.shape().ToString(),
            DTypeName(moment->dtype()), moment->shape().ToString()));
      }
    }
    if (absl::Status numbers = CheckAdamState(
            step.values<int64_t>()[0], state.value.dtype(),
            static_cast<const char*>(variable.adam_m->raw_data()),
            static_cast<const char*>(variable.adam_v->raw_data()),
            state.value.num_elements());
        !numbers.ok()) {
      return bad(absl::StrCat("has Adam state that cannot be restored: ",
                              numbers.message()));
    }
    state.adam.step = step.values<int64_t>()[0];
    state.adam.m = *variable.adam_m;
    state.adam.v = *variable.adam_v;
  }
  return variables;
}

}  // namespace

absl::Status SaveVariables(VariableClient& client, HostContext* host,
                           const std::string& directory, int64_t step,
                           int64_t epoch,
                           const checkpoint::CheckpointOptions& options) {
  const std::string context = absl::StrFormat(
      "saving the variables as checkpoint of step %d in '%s'", step, directory);
  absl::StatusOr<std::vector<VariableHandle>> handles =
      AwaitOne(host, client.ListAll());
  if (!handles.ok()) {
    return WithMessagePrefix(handles.status(), absl::StrCat(context, ": "));
  }
  std::vector<AsyncValueRef<VariableState>> states;
  states.reserve(handles->size());
  for (const VariableHandle& handle : *handles) {
    states.push_back(client.ReadState(handle));
  }
  absl::Status status = AwaitAll(host, states);
  if (!status.ok()) {
    return WithMessagePrefix(status, absl::StrCat(context, ": "));
  }

  std::map<std::string, DenseHostTensor> tensors;
  std::map<std::string, std::string> task_of;
  for (size_t i = 0; i < handles->size(); ++i) {
    const VariableHandle& handle = (*handles)[i];
    auto [it, inserted] = task_of.emplace(handle.name, handle.task);
    if (!inserted) {
      return absl::FailedPreconditionError(
          absl::StrCat(context, ": variable '", handle.name, "' is on both ",
                       it->second, " and ", handle.task));
    }
    const VariableState& state = *states[i];
    tensors[TensorName(kValue, handle.name)] = state.value;
    if (state.adam.step > 0) {
      std::vector<int64_t> adam_step = {state.adam.step};
      absl::StatusOr<DenseHostTensor> step_tensor =
          DenseHostTensor::FromValues<int64_t>(TensorShape{}, adam_step,
                                               host->allocator());
      if (!step_tensor.ok()) {
        return WithMessagePrefix(step_tensor.status(),
                                 absl::StrCat(context, ": "));
      }
      tensors[TensorName(kAdamStep, handle.name)] = *std::move(step_tensor);
      tensors[TensorName(kAdamM, handle.name)] = state.adam.m;
      tensors[TensorName(kAdamV, handle.name)] = state.adam.v;
    }
  }
  return checkpoint::SaveCheckpoint(directory, step, epoch, tensors, options);
}

absl::StatusOr<RestoredVariables> RestoreVariables(
    VariableClient& client, HostContext* host, const std::string& directory) {
  absl::StatusOr<checkpoint::Checkpoint> checkpoint =
      checkpoint::RestoreCheckpoint(directory, host->allocator());
  if (!checkpoint.ok()) return checkpoint.status();
  absl::StatusOr<std::map<std::string, VariableState>> variables =
      VariablesOf(*checkpoint);
  if (!variables.ok()) return variables.status();
  const std::string context = absl::StrFormat(
      "restoring the variables of checkpoint '%s'", checkpoint->manifest_path);

  // Variables the tasks hold already keep their place; the others are
  // created where the placement policy puts them.
  absl::StatusOr<std::vector<VariableHandle>> existing =
      AwaitOne(host, client.ListAll());
  if (!existing.ok()) {
    return WithMessagePrefix(existing.status(), absl::StrCat(context, ": "));
  }
  std::map<std::string, VariableHandle> held;
  for (VariableHandle& handle : *existing) {
    held.emplace(handle.name, std::move(handle));
  }
  std::vector<AsyncValueRef<VariableHandle>> handles;
  std::vector<AsyncValueRef<Chain>> updates;
  for (const auto& [name, state] : *variables) {
    auto it = held.find(name);
    if (it == held.end()) {
      handles.push_back(client.Create(name, state.value));
      continue;
    }
    const VariableHandle& handle = it->second;
    if (handle.dtype != state.value.dtype() ||
        handle.shape != state.value.shape()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s: variable '%s' on %s is %s %s, the checkpoint's is %s %s",
          context, name, handle.task, DTypeName(handle.dtype),
          handle.shape.ToString(), DTypeName(state.value.dtype()),
          state.value.shape().ToString()));
    }
    handles.push_back(MakeAvailableAsyncValueRef<VariableHandle>(handle));
    updates.push_back(client.Assign(handle, state.value));
  }
  absl::Status status = AwaitAll(host, handles);
  if (!status.ok()) {
    return WithMessagePrefix(status, absl::StrCat(context, ": "));
  }

  RestoredVariables restored;
  restored.step = checkpoint->step;
  restored.epoch = checkpoint->epoch;
  for (const AsyncValueRef<VariableHandle>& handle : handles) {
    restored.variables.push_back(*handle);
    const VariableState& state = variables->at(handle->name);
    if (state.adam.step > 0) {
      updates.push_back(client.RestoreAdamState(*handle, state.adam));
    }
  }
  status = AwaitAll(host, updates);
  if (!status.ok()) {
    return WithMessagePrefix(status, absl::StrCat(context, ": "));
  }
  return restored;
}

}  // namespace sluice::dist
