#include "lib/coordinator/variable_store.h"

#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/coordinator/variable_math.h"
#include "lib/distributed/tensor_codec.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::dist {

struct VariableStore::Variable {
  explicit Variable(DenseHostTensor initial)
      : dtype(initial.dtype()),
        shape(initial.shape()),
        value(std::move(initial)) {}

  // Fixed at creation: read without the lock.
  const DType dtype;
  const TensorShape shape;

  std::mutex mu;
  DenseHostTensor value;  // its elements guarded by mu
  // Adam's state, made by its first step (or restored); guarded by mu.
  int64_t adam_step = 0;
  DenseHostTensor adam_m;
  DenseHostTensor adam_v;

  std::string Describe() const {
    return absl::StrCat(DTypeName(dtype), " ", shape.ToString());
  }
};

namespace {

bool IsFloat(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF64;
}

// Zeros of `dtype` and `shape` from `allocator`.
absl::StatusOr<DenseHostTensor> Zeros(DType dtype, const TensorShape& shape,
                                      HostAllocator* allocator) {
  absl::StatusOr<DenseHostTensor> tensor =
      DenseHostTensor::Create(dtype, shape, allocator);
  if (tensor.ok() && tensor->num_bytes() != 0) {
    std::memset(tensor->raw_data(), 0, tensor->num_bytes());
  }
  return tensor;
}

}  // namespace

VariableStore::VariableStore(std::string task_name, HostAllocator* allocator)
    : task_name_(std::move(task_name)), allocator_(allocator) {}

VariableStore::~VariableStore() = default;

absl::StatusOr<std::shared_ptr<VariableStore::Variable>> VariableStore::Find(
    std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = variables_.find(name);
  if (it == variables_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "task ", task_name_, " has no variable '", std::string(name), "'"));
  }
  return it->second;
}

absl::Status VariableStore::Create(const proto::CreateVariableRequest& request,
                                   proto::CreateVariableResponse* response) {
  const std::string what = absl::StrCat("creating variable '", request.name(),
                                        "' on task ", task_name_);
  if (request.name().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "creating a variable on task ", task_name_, ": the name is empty"));
  }
  absl::StatusOr<DenseHostTensor> initial =
      DecodeTensor(request.initial_value(), allocator_);
  if (!initial.ok()) {
    return absl::Status(initial.status().code(),
                        absl::StrCat(what, ": the initial value: ",
                                     initial.status().message()));
  }
  // Made before the store's lock is taken, and dropped if the name is
  // taken: the lock covers the map, never an allocation or a copy.
  auto variable = std::make_shared<Variable>(*std::move(initial));
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = variables_.try_emplace(request.name(), variable);
  if (!inserted) {
    const Variable& existing = *it->second;
    if (existing.dtype != variable->dtype ||
        existing.shape != variable->shape) {
      return absl::AlreadyExistsError(
          absl::StrCat(what, ": it exists as ", existing.Describe(),
                       ", not as ", variable->Describe()));
    }
  }
  response->set_created(inserted);
  return absl::OkStatus();
}

absl::Status VariableStore::Read(const proto::ReadVariableRequest& request,
                                 proto::ReadVariableResponse* response) {
  absl::StatusOr<std::shared_ptr<Variable>> variable = Find(request.name());
  if (!variable.ok()) return variable.status();
  Variable& var = **variable;
  std::lock_guard<std::mutex> lock(var.mu);
  absl::Status encoded = EncodeTensor(var.value, response->mutable_value());
  if (encoded.ok() && request.with_optimizer_state() && var.adam_step > 0) {
    proto::AdamState* adam = response->mutable_adam();
    adam->set_step(var.adam_step);
    encoded = EncodeTensor(var.adam_m, adam->mutable_m());
    if (encoded.ok()) encoded = EncodeTensor(var.adam_v, adam->mutable_v());
  }
  return encoded;
}

absl::Status VariableStore::Update(
    const proto::UpdateVariableRequest& request) {
  absl::StatusOr<std::shared_ptr<Variable>> found = Find(request.name());
  if (!found.ok()) return found.status();
  Variable& var = **found;

  std::string what;
  const proto::Tensor* operand = nullptr;
  switch (request.update_case()) {
    case proto::UpdateVariableRequest::kAssign:
      what = "assigning";
      operand = &request.assign();
      break;
    case proto::UpdateVariableRequest::kAssignAdd:
      what = "assign-adding to";
      operand = &request.assign_add();
      break;
    case proto::UpdateVariableRequest::kSgd:
      what = "applying SGD to";
      operand = &request.sgd().gradient();
      break;
    case proto::UpdateVariableRequest::kAdam:
      what = "applying Adam to";
      operand = &request.adam().gradient();
      break;
    case proto::UpdateVariableRequest::kSetAdamState:
      what = "restoring the Adam state of";
      operand = &request.set_adam_state().m();
      break;
    case proto::UpdateVariableRequest::UPDATE_NOT_SET:
      return absl::InvalidArgumentError(
          absl::StrCat("updating variable '", request.name(), "' on task ",
                       task_name_, ": the request names no update"));
  }
  absl::StrAppend(&what, " variable '", request.name(), "' (", var.Describe(),
                  ") on task ", task_name_);
  auto invalid = [&what](const auto&... detail) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", detail...));
  };

  // Every operand is checked, and matched against the variable, before
  // the lock is taken.
  absl::StatusOr<WireTensor> tensor = CheckTensor(*operand);
  if (!tensor.ok()) return invalid(tensor.status().message());
  auto check_matches = [&](const WireTensor& operand,
                           std::string_view role) -> absl::Status {
    if (operand.dtype == var.dtype && operand.shape == var.shape) {
      return absl::OkStatus();
    }
    return invalid("the ", std::string(role), " is ", operand.Describe(),
                   ", not ", var.Describe());
  };

  switch (request.update_case()) {
    case proto::UpdateVariableRequest::kAssign: {
      if (absl::Status matches = check_matches(*tensor, "value");
          !matches.ok()) {
        return matches;
      }
      std::lock_guard<std::mutex> lock(var.mu);
      if (tensor->size != 0) {
        std::memcpy(var.value.raw_data(), tensor->data, tensor->size);
      }
      return absl::OkStatus();
    }
    case proto::UpdateVariableRequest::kAssignAdd: {
      if (var.dtype == DType::kI1) return invalid("i1 variables do not add");
      if (absl::Status matches = check_matches(*tensor, "value");
          !matches.ok()) {
        return matches;
      }
      std::lock_guard<std::mutex> lock(var.mu);
      AddInto(var.dtype, var.value.raw_data(), tensor->data,
              var.shape.num_elements());
      return absl::OkStatus();
    }
    case proto::UpdateVariableRequest::kSgd: {
      const double learning_rate = request.sgd().learning_rate();
      if (!IsFloat(var.dtype)) return invalid("only f32 and f64 variables");
      if (!std::isfinite(learning_rate)) {
        return invalid("the learning rate is ", learning_rate);
      }
      if (absl::Status matches = check_matches(*tensor, "gradient");
          !matches.ok()) {
        return matches;
      }
      std::lock_guard<std::mutex> lock(var.mu);
      SgdInto(var.dtype, var.value.raw_data(), tensor->data,
              var.shape.num_elements(), learning_rate);
      return absl::OkStatus();
    }
    case proto::UpdateVariableRequest::kAdam: {
      const proto::AdamUpdate& adam = request.adam();
      if (!IsFloat(var.dtype)) return invalid("only f32 and f64 variables");
      if (!std::isfinite(adam.learning_rate())) {
        return invalid("the learning rate is ", adam.learning_rate());
      }
      for (auto [name, beta] :
           {std::pair<const char*, double>{"beta1", adam.beta1()},
            std::pair<const char*, double>{"beta2", adam.beta2()}}) {
        if (!(beta >= 0 && beta < 1)) {
          return invalid(name, " is ", beta, ", not in [0, 1)");
        }
      }
      if (!(adam.epsilon() > 0 && std::isfinite(adam.epsilon()))) {
        return invalid("epsilon is ", adam.epsilon(), ", not positive");
      }
      if (absl::Status matches = check_matches(*tensor, "gradient");
          !matches.ok()) {
        return matches;
      }
      std::lock_guard<std::mutex> lock(var.mu);
      if (var.adam_step == 0) {
        absl::StatusOr<DenseHostTensor> m =
            Zeros(var.dtype, var.shape, allocator_);
        if (!m.ok()) return m.status();
        absl::StatusOr<DenseHostTensor> v =
            Zeros(var.dtype, var.shape, allocator_);
        if (!v.ok()) return v.status();
        var.adam_m = *std::move(m);
        var.adam_v = *std::move(v);
      }
      ++var.adam_step;
      AdamStep step;
      step.step_size = AdamStepSize(adam.learning_rate(), adam.beta1(),
                                    adam.beta2(), var.adam_step);
      step.beta1 = adam.beta1();
      step.beta2 = adam.beta2();
      step.epsilon = adam.epsilon();
      AdamInto(var.dtype, var.value.raw_data(), var.adam_m.raw_data(),
               var.adam_v.raw_data(), tensor->data, var.shape.num_elements(),
               step);
      return absl::OkStatus();
    }
    case proto::UpdateVariableRequest::kSetAdamState: {
      const proto::AdamState& state = request.set_adam_state();
      if (!IsFloat(var.dtype)) return invalid("only f32 and f64 variables");
      if (state.step() < 1) {
        return invalid("the step is ", state.step(), ", not positive");
      }
      absl::StatusOr<WireTensor> second = CheckTensor(state.v());
      if (!second.ok()) return invalid(second.status().message());
      for (auto [operand, role] : {std::pair(&*tensor, "first moment"),
                                   std::pair(&*second, "second moment")}) {
        if (absl::Status matches = check_matches(*operand, role);
            !matches.ok()) {
          return matches;
        }
      }
      std::lock_guard<std::mutex> lock(var.mu);
      for (DenseHostTensor* moment : {&var.adam_m, &var.adam_v}) {
        if (moment->buffer() != nullptr) continue;
        absl::StatusOr<DenseHostTensor> zeros =
            Zeros(var.dtype, var.shape, allocator_);
        if (!zeros.ok()) return zeros.status();
        *moment = *std::move(zeros);
      }
      if (tensor->size != 0) {
        std::memcpy(var.adam_m.raw_data(), tensor->data, tensor->size);
        std::memcpy(var.adam_v.raw_data(), second->data, second->size);
      }
      var.adam_step = state.step();
      return absl::OkStatus();
    }
    case proto::UpdateVariableRequest::UPDATE_NOT_SET:
      break;
  }
  return absl::OkStatus();
}

void VariableStore::List(proto::ListVariablesResponse* response) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, variable] : variables_) {
    proto::VariableInfo* info = response->add_variables();
    info->set_name(name);
    info->set_dtype(static_cast<uint32_t>(variable->dtype));
    info->mutable_dims()->Add(variable->shape.dims().begin(),
                              variable->shape.dims().end());
  }
}

}  // namespace sluice::dist
