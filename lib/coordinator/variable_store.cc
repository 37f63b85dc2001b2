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

namespace {

// The tensor an update carries (its value, gradient or first moment), and
// what the update does, for messages ("applying SGD to"); null when the
// request names no update.
const proto::Tensor* UpdateOperand(const proto::UpdateVariableRequest& request,
                                   std::string* doing) {
  switch (request.update_case()) {
    case proto::UpdateVariableRequest::kAssign:
      *doing = "assigning";
      return &request.assign();
    case proto::UpdateVariableRequest::kAssignAdd:
      *doing = "assign-adding to";
      return &request.assign_add();
    case proto::UpdateVariableRequest::kSgd:
      *doing = "applying SGD to";
      return &request.sgd().gradient();
    case proto::UpdateVariableRequest::kAdam:
      *doing = "applying Adam to";
      return &request.adam().gradient();
    case proto::UpdateVariableRequest::kSetAdamState:
      *doing = "restoring the Adam state of";
      return &request.set_adam_state().m();
    case proto::UpdateVariableRequest::UPDATE_NOT_SET:
      break;
  }
  return nullptr;
}

}  // namespace

// What every kind of update checks, before the variable's lock is taken.
struct VariableStore::UpdateCheck {
  std::string what;  // "applying SGD to variable 'w' (f32 [2]) on task ps"
  Variable& var;

  template <typename... Detail>
  absl::Status Invalid(const Detail&... detail) const {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", detail...));
  }
  absl::Status Matches(const WireTensor& operand, std::string_view role) const {
    if (operand.dtype == var.dtype && operand.shape == var.shape) {
      return absl::OkStatus();
    }
    return Invalid("the ", std::string(role), " is ", operand.Describe(),
                   ", not ", var.Describe());
  }
  absl::Status Float() const {
    return IsFloat(var.dtype) ? absl::OkStatus()
                              : Invalid("only f32 and f64 variables");
  }
};

absl::Status VariableStore::Update(
    const proto::UpdateVariableRequest& request) {
  absl::StatusOr<std::shared_ptr<Variable>> found = Find(request.name());
  if (!found.ok()) return found.status();
  Variable& var = **found;
  std::string doing;
  const proto::Tensor* operand = UpdateOperand(request, &doing);
  if (operand == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("updating variable '", request.name(), "' on task ",
                     task_name_, ": the request names no update"));
  }
  const UpdateCheck check{
      absl::StrCat(doing, " variable '", request.name(), "' (", var.Describe(),
                   ") on task ", task_name_),
      var};
  // Every operand is checked, and matched against the variable, before
  // the lock is taken.
  absl::StatusOr<WireTensor> tensor = CheckTensor(*operand);
  if (!tensor.ok()) return check.Invalid(tensor.status().message());

  switch (request.update_case()) {
    case proto::UpdateVariableRequest::kAssign: {
      if (absl::Status matches = check.Matches(*tensor, "value");
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
      if (var.dtype == DType::kI1) {
        return check.Invalid("i1 variables do not add");
      }
      if (absl::Status matches = check.Matches(*tensor, "value");
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
      if (absl::Status is_float = check.Float(); !is_float.ok()) {
        return is_float;
      }
      if (!std::isfinite(learning_rate)) {
        return check.Invalid("the learning rate is ", learning_rate);
      }
      if (absl::Status matches = check.Matches(*tensor, "gradient");
          !matches.ok()) {
        return matches;
      }
      std::lock_guard<std::mutex> lock(var.mu);
      SgdInto(var.dtype, var.value.raw_data(), tensor->data,
              var.shape.num_elements(), learning_rate);
      return absl::OkStatus();
    }
    case proto::UpdateVariableRequest::kAdam:
      return ApplyAdam(check, request.adam(), *tensor);
    case proto::UpdateVariableRequest::kSetAdamState:
      return SetAdamState(check, request.set_adam_state(), *tensor);
    case proto::UpdateVariableRequest::UPDATE_NOT_SET:
      break;
  }
  return absl::OkStatus();
}

absl::Status VariableStore::ApplyAdam(const UpdateCheck& check,
                                      const proto::AdamUpdate& adam,
                                      const WireTensor& gradient) {
  if (absl::Status is_float = check.Float(); !is_float.ok()) return is_float;
  if (!std::isfinite(adam.learning_rate())) {
    return check.Invalid("the learning rate is ", adam.learning_rate());
  }
  for (auto [name, beta] :
       {std::pair<const char*, double>{"beta1", adam.beta1()},
        std::pair<const char*, double>{"beta2", adam.beta2()}}) {
    if (!(beta >= 0 && beta < 1)) {
      return check.Invalid(name, " is ", beta, ", not in [0, 1)");
    }
  }
  if (!(adam.epsilon() > 0 && std::isfinite(adam.epsilon()))) {
    return check.Invalid("epsilon is ", adam.epsilon(), ", not positive");
  }
  if (absl::Status matches = check.Matches(gradient, "gradient");
      !matches.ok()) {
    return matches;
  }
  Variable& var = check.var;
  std::lock_guard<std::mutex> lock(var.mu);
  if (var.adam_step == 0) {
    absl::StatusOr<DenseHostTensor> m = Zeros(var.dtype, var.shape, allocator_);
    if (!m.ok()) return m.status();
    absl::StatusOr<DenseHostTensor> v = Zeros(var.dtype, var.shape, allocator_);
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
           var.adam_v.raw_data(), gradient.data, var.shape.num_elements(),
           step);
  return absl::OkStatus();
}

absl::Status VariableStore::SetAdamState(const UpdateCheck& check,
                                         const proto::AdamState& state,
                                         const WireTensor& first) {
  if (absl::Status is_float = check.Float(); !is_float.ok()) return is_float;
  if (state.step() < 1) {
    return check.Invalid("the step is ", state.step(), ", not positive");
  }
  absl::StatusOr<WireTensor> second = CheckTensor(state.v());
  if (!second.ok()) return check.Invalid(second.status().message());
  const WireTensor& second_moment = *second;
  for (auto [moment, role] : {std::pair(&first, "first moment"),
                              std::pair(&second_moment, "second moment")}) {
    if (absl::Status matches = check.Matches(*moment, role); !matches.ok()) {
      return matches;
    }
  }
  Variable& var = check.var;
  std::lock_guard<std::mutex> lock(var.mu);
  for (DenseHostTensor* moment : {&var.adam_m, &var.adam_v}) {
    if (moment->buffer() != nullptr) continue;
    absl::StatusOr<DenseHostTensor> zeros =
        Zeros(var.dtype, var.shape, allocator_);
    if (!zeros.ok()) return zeros.status();
    *moment = *std::move(zeros);
  }
  if (first.size != 0) {
    std::memcpy(var.adam_m.raw_data(), first.data, first.size);
    std::memcpy(var.adam_v.raw_data(), second->data, second->size);
  }
  var.adam_step = state.step();
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
