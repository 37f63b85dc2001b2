#include "lib/coordinator/variable_store.h"

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/coordinator/variable_math.h"
#include "lib/distributed/tensor_codec.h"
#include "sluice/coordinator/variables.h"
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

// Bytes counted against the store's bound, given back when the reservation
// is destroyed unless Keep() hands them to what they were reserved for.
// Variables are never deleted: kept bytes count for the store's life.
class VariableStore::Reservation {
 public:
  Reservation(std::atomic<int64_t>* held, int64_t bytes)
      : held_(held), bytes_(bytes) {}
  Reservation(Reservation&& other) noexcept
      : held_(std::exchange(other.held_, nullptr)), bytes_(other.bytes_) {}
  Reservation& operator=(Reservation&&) = delete;
  ~Reservation() {
    if (held_ != nullptr) held_->fetch_sub(bytes_, std::memory_order_relaxed);
  }

  void Keep() { held_ = nullptr; }

 private:
  std::atomic<int64_t>* held_;
  const int64_t bytes_;
};

VariableStore::VariableStore(std::string task_name, HostAllocator* allocator,
                             int64_t max_variable_bytes)
    : task_name_(std::move(task_name)),
      allocator_(allocator),
      max_variable_bytes_(max_variable_bytes) {}

VariableStore::~VariableStore() = default;

absl::StatusOr<VariableStore::Reservation> VariableStore::Reserve(
    const std::string& what, std::string_view role, int64_t bytes) {
  int64_t held = bytes_held_.load(std::memory_order_relaxed);
  do {
    // held never passes the bound, so the subtraction cannot overflow.
    if (max_variable_bytes_ > 0 && bytes > max_variable_bytes_ - held) {
      return absl::ResourceExhaustedError(
          absl::StrCat(what, ": ", std::string(role), " would take ", bytes,
                       " more bytes, and the task's variables already hold ",
                       held, " of the ", max_variable_bytes_,
                       " bytes it allows them (--max_variable_bytes)"));
    }
  } while (!bytes_held_.compare_exchange_weak(held, held + bytes,
                                              std::memory_order_relaxed));
  return Reservation(&bytes_held_, bytes);
}

absl::StatusOr<std::shared_ptr<VariableStore::Variable>> VariableStore::Find(
    std::string_view name) {
  // No variable has an invalid name; saying why beats NotFound, and keeps
  // a hostile name out of the message.
  if (absl::Status valid = CheckVariableName(name); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("task ", task_name_,
                     " was asked for a variable by a name no variable can "
                     "have: ",
                     valid.message()));
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = variables_.find(name);
  if (it == variables_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "task ", task_name_, " has no variable '", std::string(name), "'"));
  }
  return it->second;
}

namespace {

// The answer to a create of a name the store holds: kept as it is when
// `wanted` has its dtype and shape, AlreadyExists otherwise.
absl::Status AnswerExisting(const std::string& what,
                            const std::string& existing_described,
                            bool same_dtype_and_shape,
                            const std::string& wanted_described,
                            proto::CreateVariableResponse* response) {
  if (!same_dtype_and_shape) {
    return absl::AlreadyExistsError(
        absl::StrCat(what, ": it exists as ", existing_described, ", not as ",
                     wanted_described));
  }
  response->set_created(false);
  return absl::OkStatus();
}

}  // namespace

absl::Status VariableStore::Create(const proto::CreateVariableRequest& request,
                                   proto::CreateVariableResponse* response) {
  if (absl::Status valid = CheckVariableName(request.name()); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "creating a variable on task ", task_name_, ": ", valid.message()));
  }
  // The name is valid: quoting it as it is is safe.
  const std::string what = absl::StrCat("creating variable '", request.name(),
                                        "' on task ", task_name_);
  absl::StatusOr<WireTensor> wanted = CheckTensor(request.initial_value());
  if (!wanted.ok()) {
    return absl::Status(
        wanted.status().code(),
        absl::StrCat(what, ": the initial value: ", wanted.status().message()));
  }
  // A repeated create finds the variable and counts no bytes again, even
  // when the store is full.
  if (absl::StatusOr<std::shared_ptr<Variable>> existing = Find(request.name());
      existing.ok()) {
    const Variable& var = **existing;
    return AnswerExisting(
        what, var.Describe(),
        var.dtype == wanted->dtype && var.shape == wanted->shape,
        wanted->Describe(), response);
  }
  // Counted before the value is copied: the bound covers the copy too.
  absl::StatusOr<Reservation> reserved =
      Reserve(what, absl::StrCat("its value (", wanted->Describe(), ")"),
              static_cast<int64_t>(wanted->size));
  if (!reserved.ok()) return reserved.status();
  absl::StatusOr<DenseHostTensor> initial =
      DecodeTensor(request.initial_value(), allocator_);
  if (!initial.ok()) {
    return absl::Status(initial.status().code(),
                        absl::StrCat(what, ": the initial value: ",
                                     initial.status().message()));
  }
  // Made before the store's lock is taken, and dropped if another create
  // took the name meanwhile: the lock covers the map, never an allocation
  // or a copy.
  auto variable = std::make_shared<Variable>(*std::move(initial));
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = variables_.try_emplace(request.name(), variable);
  if (!inserted) {
    const Variable& existing = *it->second;
    return AnswerExisting(
        what, existing.Describe(),
        existing.dtype == variable->dtype && existing.shape == variable->shape,
        variable->Describe(), response);
  }
  reserved->Keep();
  response->set_created(true);
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
  if (absl::Status moments = EnsureAdamMoments(check, var); !moments.ok()) {
    return moments;
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

absl::Status VariableStore::EnsureAdamMoments(const UpdateCheck& check,
                                              Variable& var) {
  // Both moments are made together, and only here.
  if (var.adam_m.buffer() != nullptr && var.adam_v.buffer() != nullptr) {
    return absl::OkStatus();
  }
  const int64_t moment_bytes =
      static_cast<int64_t>(var.shape.num_elements() * DTypeSize(var.dtype));
  absl::StatusOr<Reservation> reserved =
      Reserve(check.what, "its Adam moments", 2 * moment_bytes);
  if (!reserved.ok()) return reserved.status();
  absl::StatusOr<DenseHostTensor> m = Zeros(var.dtype, var.shape, allocator_);
  if (!m.ok()) return m.status();
  absl::StatusOr<DenseHostTensor> v = Zeros(var.dtype, var.shape, allocator_);
  if (!v.ok()) return v.status();
  var.adam_m = *std::move(m);
  var.adam_v = *std::move(v);
  reserved->Keep();
  return absl::OkStatus();
}

absl::Status VariableStore::SetAdamState(const UpdateCheck& check,
                                         const proto::AdamState& state,
                                         const WireTensor& first) {
  if (absl::Status is_float = check.Float(); !is_float.ok()) return is_float;
  absl::StatusOr<WireTensor> second = CheckTensor(state.v());
  if (!second.ok()) return check.Invalid(second.status().message());
  const WireTensor& second_moment = *second;
  for (auto [moment, role] : {std::pair(&first, "first moment"),
                              std::pair(&second_moment, "second moment")}) {
    if (absl::Status matches = check.Matches(*moment, role); !matches.ok()) {
      return matches;
    }
  }
  // A step past the bound or a moment that is not a number would turn the
  // variable to NaN at its next step: refused here, with nothing changed.
  if (absl::Status numbers =
          CheckAdamState(state.step(), check.var.dtype, first.data,
                         second_moment.data, check.var.shape.num_elements());
      !numbers.ok()) {
    return check.Invalid(numbers.message());
  }
  Variable& var = check.var;
  std::lock_guard<std::mutex> lock(var.mu);
  if (absl::Status moments = EnsureAdamMoments(check, var); !moments.ok()) {
    return moments;
  }
  if (first.size != 0) {
    std::memcpy(var.adam_m.raw_data(), first.data, first.size);
    std::memcpy(var.adam_v.raw_data(), second_moment.data, second_moment.size);
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
