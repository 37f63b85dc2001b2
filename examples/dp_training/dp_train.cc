// dp_train: one replica group (one process) of the data-parallel example.
// It loads model.sbf (model.mlir, compiled at build time), joins the
// lighthouse's quorum through an ft::Manager each step, runs train_step with
// the quorum's collective group (gradients averaged by allreduce), and keeps
// the new parameters only when every participant voted to commit the step. A
// replica that is behind (restarted after a kill) heals from a peer in the
// background while the others train on (--heal_in_background, the
// default): it takes part in each step with zero gradients, keeps the
// step's update, and re-applies the kept updates once the peer's
// parameters arrive; with --heal_in_background=false it heals inside
// StartQuorum while its peers wait. Under `sluice_launch --restart=rank`
// (run.py) each replica's index is $SLUICE_RANK. See README.md.
//
// Each committed step prints one line that the tests and run.py read:
//   step 12 generation 3 quorum 3 checksum 8f3a0c2e5d6b7a19 loss 0.5210
//       accuracy 0.8125 at 1764000000.123
// (one line; the checksum is FNV-1a over the parameters' bytes, so replicas
// holding bit-identical parameters print the same one).
#include <unistd.h>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/types/span.h"
#include "lib/ft/tensor_replica_state.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/executor/program.h"
#include "sluice/ft/manager.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/kernels/ccl_kernels.h"
#include "sluice/kernels/data_kernels.h"
#include "sluice/kernels/math_kernels.h"
#include "sluice/kernels/tensor_kernels.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "sluice/support/file_reading.h"
#include "sluice/tensor/random.h"
#include "tools/common/flag_checks.h"
#include "tools/common/flags.h"
#include "tools/common/tool_flags.h"

namespace {

using sluice::AsyncValue;
using sluice::DenseHostTensor;
using sluice::RCReference;

sluice::tools::FlagSet flags;
sluice::tools::Flag<std::string> model_path(
    flags, "model",
    "model.sbf, the compiled model.mlir (required; bazel build "
    "//examples/dp_training:model_sbf)");
sluice::tools::Flag<std::string> lighthouse(
    flags, "lighthouse",
    "host:port of the lighthouse, or several separated by commas (default: "
    "$SLUICE_LIGHTHOUSE)");
sluice::tools::Flag<std::string> replica_id(
    flags, "replica_id",
    "this replica's id, stable across its restarts (default: "
    "replica_$SLUICE_RANK)");
// Far inside the int64_t step counters, and more than any run needs.
constexpr int64_t kMaxSteps = 1000000000;

sluice::tools::Flag<int64_t> steps(flags, "steps", "committed steps to train",
                                   600,
                                   sluice::tools::InRange(int64_t{0},
                                                          kMaxSteps));
sluice::tools::Flag<uint64_t> seed(flags, "seed", "seed of the initial weights",
                                   1);
sluice::tools::Flag<bool> heal_in_background(
    flags, "heal_in_background",
    "a replica behind its peers heals while they train on, instead of "
    "stalling them for the transfer (ManagerOptions::heal_in_background)",
    true);
sluice::tools::Flag<bool> partial_allreduce(
    flags, "partial_allreduce",
    "sum each step's gradients with one partial allreduce: a replica that "
    "dies mid-step is left out and the survivors keep the step, where "
    "otherwise they drop it and do it again in the next quorum",
    false);
// model.mlir's learning rate.
constexpr float kLearningRate = 0.1f;

// The layer sizes; model.mlir's shapes.
constexpr int64_t kFeatures = 16;
constexpr int64_t kHidden = 32;
constexpr int64_t kClasses = 8;
constexpr int kNumParameters = 4;

const std::vector<sluice::TensorShape>& ParameterShapes() {
  static const auto* shapes = new std::vector<sluice::TensorShape>{
      {kFeatures, kHidden}, {kHidden}, {kHidden, kClasses}, {kClasses}};
  return *shapes;
}

// 64-bit FNV-1a, over the parameters' bytes in order.
uint64_t Checksum(const std::vector<DenseHostTensor>& parameters) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const DenseHostTensor& tensor : parameters) {
    const auto* bytes = static_cast<const uint8_t*>(tensor.raw_data());
    for (size_t i = 0; i < tensor.num_bytes(); ++i) {
      hash = (hash ^ bytes[i]) * 0x100000001b3ull;
    }
  }
  return hash;
}

// The committed parameters and step: what a recovering peer receives, in
// the tensor format of lib/ft/tensor_replica_state.h (the step as an i64
// scalar first). The manager's healing thread reads it while the training
// loop writes it.
class CommittedState final : public sluice::ft::ReplicaState {
 public:
  CommittedState(std::vector<DenseHostTensor> parameters,
                 sluice::HostAllocator* allocator)
      : allocator_(allocator), parameters_(std::move(parameters)) {}

  void Get(int64_t* step, std::vector<DenseHostTensor>* parameters) const {
    std::lock_guard<std::mutex> lock(mutex_);
    *step = step_;
    *parameters = parameters_;
  }

  void Commit(int64_t step, std::vector<DenseHostTensor> parameters) {
    std::lock_guard<std::mutex> lock(mutex_);
    step_ = step;
    parameters_ = std::move(parameters);
  }

  absl::StatusOr<std::string> Save() override {
    std::vector<DenseHostTensor> tensors;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      absl::StatusOr<DenseHostTensor> step =
          DenseHostTensor::FromValues<int64_t>({}, {step_}, allocator_);
      if (!step.ok()) return step.status();
      tensors.push_back(*std::move(step));
      tensors.insert(tensors.end(), parameters_.begin(), parameters_.end());
    }
    return sluice::ft::SerializeTensors(tensors);
  }

  // Refuses a state that is not a step and parameters of model.mlir's
  // dtype and shapes.
  absl::Status Load(std::string_view bytes) override {
    absl::StatusOr<std::vector<DenseHostTensor>> tensors =
        sluice::ft::ParseTensors(bytes, allocator_);
    if (!tensors.ok()) return tensors.status();
    const std::vector<sluice::TensorShape>& shapes = ParameterShapes();
    bool fits = tensors->size() == shapes.size() + 1 &&
                (*tensors)[0].dtype() == sluice::DType::kI64 &&
                (*tensors)[0].num_elements() == 1;
    for (size_t i = 0; fits && i < shapes.size(); ++i) {
      fits = (*tensors)[i + 1].dtype() == sluice::DType::kF32 &&
             (*tensors)[i + 1].shape() == shapes[i];
    }
    if (!fits) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dp_train: the healing state holds ", tensors->size(),
          " tensors, not a step (i64) and w1 [16, 32], b1 [32], w2 [32, 8], "
          "b2 [8] (f32)"));
    }
    const int64_t step = (*tensors)[0].values<int64_t>()[0];
    tensors->erase(tensors->begin());
    Commit(step, *std::move(tensors));
    return absl::OkStatus();
  }

 private:
  sluice::HostAllocator* const allocator_;
  mutable std::mutex mutex_;
  int64_t step_ = 0;                         // guarded by mutex_
  std::vector<DenseHostTensor> parameters_;  // guarded by mutex_
};

// $NAME as a number, or `fallback` when unset.
absl::StatusOr<int64_t> EnvironmentNumber(const char* name, int64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr) return fallback;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*text == '\0' || *end != '\0') {
    return absl::InvalidArgumentError(
        absl::StrCat("$", name, " is '", text, "', not a number"));
  }
  return value;
}

// He-initialized weights (normal, stddev sqrt(2 / fan_in)), zero biases,
// the same on every replica.
absl::StatusOr<std::vector<DenseHostTensor>> InitialParameters(
    sluice::HostAllocator* allocator) {
  const double stddevs[kNumParameters] = {std::sqrt(2.0 / kFeatures), 0,
                                          std::sqrt(2.0 / kHidden), 0};
  std::vector<DenseHostTensor> parameters;
  for (int i = 0; i < kNumParameters; ++i) {
    absl::StatusOr<DenseHostTensor> initial =
        sluice::RandomNormal(sluice::DType::kF32, ParameterShapes()[i], 0.0,
                             stddevs[i], *seed + i, allocator);
    if (!initial.ok()) return initial.status();
    parameters.push_back(*std::move(initial));
  }
  return parameters;
}

// The program and the host that runs its functions.
class Model {
 public:
  static absl::StatusOr<std::unique_ptr<Model>> Load(const std::string& path);

  sluice::HostAllocator* allocator() { return host_.allocator(); }

  // Calls `name` and waits for every result, errors included.
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> Call(
      std::string_view name, const std::vector<RCReference<AsyncValue>>& args,
      absl::Duration timeout) {
    const sluice::Function* function = program_->GetFunction(name);
    if (function == nullptr) {
      return absl::NotFoundError(
          absl::StrCat(*model_path, " has no function ", std::string(name)));
    }
    std::vector<AsyncValue*> arguments;
    for (const auto& arg : args) arguments.push_back(arg.get());
    sluice::ExecutionContext context(
        sluice::RequestContext::Create(&host_, absl::Now() + timeout));
    std::vector<RCReference<AsyncValue>> results =
        sluice::CallFunction(*function, context, arguments);
    host_.Await(results);
    return results;
  }

 private:
  explicit Model(std::unique_ptr<sluice::ConcurrentWorkQueue> work_queue)
      : host_([](const sluice::DecodedDiagnostic&) {},
              sluice::CreateMallocAllocator(), std::move(work_queue)) {}

  sluice::HostContext host_;
  std::unique_ptr<sluice::Program> program_;
};

absl::StatusOr<std::unique_ptr<Model>> Model::Load(const std::string& path) {
  absl::StatusOr<std::string> bytes = sluice::ReadRegularFile(path);
  if (!bytes.ok()) return bytes.status();
  // The replica links no compiler, so MLIR source is refused up front with
  // how to compile it, rather than as a bad SBF section.
  const absl::Span<const uint8_t> program_bytes(
      reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
  if (!sluice::bef::HasSbfMagic(program_bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--model=", path,
                     " is not a compiled Sluice program (SBF): compile it with "
                     "sluice_translate --mlir-to-sbf, or build "
                     "//examples/dp_training:model_sbf"));
  }
  absl::StatusOr<std::unique_ptr<sluice::ConcurrentWorkQueue>> work_queue =
      sluice::CreateWorkQueue("mstd:2,2");
  if (!work_queue.ok()) return work_queue.status();
  std::unique_ptr<Model> model(new Model(*std::move(work_queue)));
  sluice::KernelRegistry& registry = sluice::GetKernelRegistry(&model->host_);
  for (auto* register_kernels :
       {&sluice::RegisterBasicKernels, &sluice::RegisterTensorKernels,
        &sluice::RegisterMathKernels, &sluice::RegisterDataKernels,
        &sluice::RegisterCclKernels}) {
    if (absl::Status registered = register_kernels(&registry);
        !registered.ok()) {
      return registered;
    }
  }
  absl::StatusOr<std::unique_ptr<sluice::Program>> program =
      sluice::Program::Load(program_bytes, registry);
  if (!program.ok()) return program.status();
  model->program_ = *std::move(program);
  return model;
}

RCReference<AsyncValue> TensorValue(const DenseHostTensor& tensor) {
  return sluice::MakeAvailableAsyncValueRef<DenseHostTensor>(tensor)
      .ReleaseRCRef();
}

std::vector<RCReference<AsyncValue>> TensorValues(
    const std::vector<DenseHostTensor>& tensors) {
  std::vector<RCReference<AsyncValue>> values;
  for (const DenseHostTensor& tensor : tensors) {
    values.push_back(TensorValue(tensor));
  }
  return values;
}

// train_step's two scalars: this replica's contribution (1, or 0 while it
// heals) and the learning rate over the contributors.
absl::StatusOr<std::vector<DenseHostTensor>> StepWeights(
    float contribution, float rate, sluice::HostAllocator* allocator) {
  std::vector<DenseHostTensor> weights;
  for (float value : {contribution, rate}) {
    absl::StatusOr<DenseHostTensor> scalar =
        DenseHostTensor::FromValues<float>({}, {value}, allocator);
    if (!scalar.ok()) return scalar.status();
    weights.push_back(*std::move(scalar));
  }
  return weights;
}

// The first error among `results`, OK when there is none.
absl::Status FirstError(const std::vector<RCReference<AsyncValue>>& results) {
  for (const auto& result : results) {
    if (result->IsError()) return result->GetError();
  }
  return absl::OkStatus();
}

// The values of `tensors` (f32) end to end, then `last`.
absl::StatusOr<DenseHostTensor> Pack(
    absl::Span<const RCReference<AsyncValue>> tensors, float last,
    sluice::HostAllocator* allocator) {
  std::vector<float> values;
  for (const RCReference<AsyncValue>& tensor : tensors) {
    auto elements = tensor->get<DenseHostTensor>().values<float>();
    values.insert(values.end(), elements.begin(), elements.end());
  }
  values.push_back(last);
  return DenseHostTensor::FromValues<float>(
      {static_cast<int64_t>(values.size())}, values, allocator);
}

// One step with --partial_allreduce: @gradients, one @sum_partial of the
// packed gradients and contribution, then @apply_update of the sums times
// the learning rate over the summed contributions. Returns what train_step
// returns (the new parameters, the loss, the accuracy, the update) and
// sets the ranks that contributed.
absl::StatusOr<std::vector<RCReference<AsyncValue>>> PartialStep(
    Model& model, const RCReference<AsyncValue>& iterator,
    const RCReference<AsyncValue>& group,
    const std::vector<DenseHostTensor>& parameters, float contribution,
    absl::Duration timeout, std::vector<int>* contributors) {
  sluice::HostAllocator* allocator = model.allocator();
  std::vector<RCReference<AsyncValue>> arguments;
  arguments.push_back(iterator.CopyRef());
  for (RCReference<AsyncValue>& value : TensorValues(parameters)) {
    arguments.push_back(std::move(value));
  }
  absl::StatusOr<DenseHostTensor> weight =
      DenseHostTensor::FromValues<float>({}, {contribution}, allocator);
  if (!weight.ok()) return weight.status();
  arguments.push_back(TensorValue(*weight));
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> gradients =
      model.Call("gradients", arguments, timeout);
  if (!gradients.ok()) return gradients.status();
  if (absl::Status error = FirstError(*gradients); !error.ok()) return error;

  absl::StatusOr<DenseHostTensor> packed =
      Pack(absl::MakeConstSpan(*gradients).first(kNumParameters), contribution,
           allocator);
  if (!packed.ok()) return packed.status();
  std::vector<RCReference<AsyncValue>> sum_arguments;
  sum_arguments.push_back(group.CopyRef());
  sum_arguments.push_back(TensorValue(*packed));
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> summed =
      model.Call("sum_partial", sum_arguments, timeout);
  if (!summed.ok()) return summed.status();
  if (absl::Status error = FirstError(*summed); !error.ok()) return error;
  auto sums = (*summed)[0]->get<DenseHostTensor>().values<float>();
  auto ranks = (*summed)[1]->get<DenseHostTensor>().values<int64_t>();
  contributors->assign(ranks.begin(), ranks.end());
  const float current = sums[sums.size() - 1];
  if (current <= 0) {
    return absl::UnavailableError(
        "every contributor of the step was healing: no gradients to apply");
  }

  // The update of each parameter: its slice of the sums times the rate.
  const float rate = kLearningRate / current;
  std::vector<RCReference<AsyncValue>> apply = TensorValues(parameters);
  std::vector<RCReference<AsyncValue>> updates;
  size_t offset = 0;
  for (int i = 0; i < kNumParameters; ++i) {
    const sluice::TensorShape& shape = ParameterShapes()[i];
    std::vector<float> update(sums.begin() + offset,
                              sums.begin() + offset + shape.num_elements());
    offset += update.size();
    for (float& value : update) value *= rate;
    absl::StatusOr<DenseHostTensor> tensor =
        DenseHostTensor::FromValues<float>(shape, update, allocator);
    if (!tensor.ok()) return tensor.status();
    updates.push_back(TensorValue(*tensor));
  }
  for (const RCReference<AsyncValue>& update : updates) {
    apply.push_back(update.CopyRef());
  }
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> applied =
      model.Call("apply_update", apply, timeout);
  if (!applied.ok()) return applied.status();
  if (absl::Status error = FirstError(*applied); !error.ok()) return error;
  std::vector<RCReference<AsyncValue>> results = *std::move(applied);
  results.push_back((*gradients)[4].CopyRef());
  results.push_back((*gradients)[5].CopyRef());
  for (RCReference<AsyncValue>& update : updates) {
    results.push_back(std::move(update));
  }
  return results;
}

// After a heal in the background: applies to the loaded parameters (of
// `loaded_step`) the kept updates of that step and later, and commits them
// as of `step`.
absl::Status ReapplyKeptUpdates(
    Model& model, int64_t loaded_step,
    const std::vector<std::pair<int64_t, std::vector<RCReference<AsyncValue>>>>&
        kept,
    CommittedState* state, int64_t step) {
  int64_t at = 0;
  std::vector<DenseHostTensor> parameters;
  state->Get(&at, &parameters);
  std::vector<RCReference<AsyncValue>> values = TensorValues(parameters);
  for (const auto& [kept_step, update] : kept) {
    if (kept_step < loaded_step) continue;
    std::vector<RCReference<AsyncValue>> arguments = std::move(values);
    for (const RCReference<AsyncValue>& value : update) {
      arguments.push_back(value.CopyRef());
    }
    absl::StatusOr<std::vector<RCReference<AsyncValue>>> applied =
        model.Call("apply_update", arguments, absl::Seconds(60));
    if (!applied.ok()) return applied.status();
    if (absl::Status error = FirstError(*applied); !error.ok()) return error;
    values = *std::move(applied);
  }
  std::vector<DenseHostTensor> updated;
  for (const RCReference<AsyncValue>& value : values) {
    updated.push_back(value->get<DenseHostTensor>());
  }
  state->Commit(step, std::move(updated));
  return absl::OkStatus();
}

absl::Status Train() {
  if (model_path->empty()) {
    return absl::InvalidArgumentError("--model is required");
  }
  absl::StatusOr<int64_t> rank = EnvironmentNumber("SLUICE_RANK", 0);
  if (!rank.ok()) return rank.status();
  absl::StatusOr<int64_t> world_size =
      EnvironmentNumber("SLUICE_WORLD_SIZE", 1);
  if (!world_size.ok()) return world_size.status();
  sluice::ft::ManagerOptions options;
  std::string addresses = *lighthouse;
  if (addresses.empty() && std::getenv("SLUICE_LIGHTHOUSE") != nullptr) {
    addresses = std::getenv("SLUICE_LIGHTHOUSE");
  }
  if (addresses.empty()) {
    return absl::InvalidArgumentError(
        "no lighthouse: give --lighthouse=HOST:PORT or set "
        "$SLUICE_LIGHTHOUSE");
  }
  options.lighthouses = absl::StrSplit(addresses, ',', absl::SkipEmpty());
  options.replica_id =
      replica_id->empty() ? absl::StrCat("replica_", *rank) : *replica_id;
  options.heal_in_background = *heal_in_background;

  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(*model_path);
  if (!model.ok()) return model.status();
  absl::StatusOr<std::vector<DenseHostTensor>> initial =
      InitialParameters((*model)->allocator());
  if (!initial.ok()) return initial.status();
  CommittedState state(*std::move(initial), (*model)->allocator());

  // Past model.mlir's 30 s collective timeouts.
  const absl::Duration call_timeout = absl::Seconds(60);
  std::vector<RCReference<AsyncValue>> shard;
  shard.push_back(
      sluice::MakeAvailableAsyncValueRef<int64_t>(*rank).ReleaseRCRef());
  shard.push_back(
      sluice::MakeAvailableAsyncValueRef<int64_t>(*world_size).ReleaseRCRef());
  absl::StatusOr<std::vector<RCReference<AsyncValue>>> dataset =
      (*model)->Call("train_dataset", shard, call_timeout);
  if (!dataset.ok()) return dataset.status();
  if (absl::Status error = FirstError(*dataset); !error.ok()) return error;
  RCReference<AsyncValue> iterator = std::move((*dataset)[0]);

  absl::StatusOr<std::unique_ptr<sluice::ft::Manager>> manager =
      sluice::ft::Manager::Create(options, &state);
  if (!manager.ok()) return manager.status();
  std::printf("%s: rank %lld of %lld, pid %d, healing service at %s\n",
              options.replica_id.c_str(), static_cast<long long>(*rank),
              static_cast<long long>(*world_size), static_cast<int>(getpid()),
              (*manager)->address().c_str());
  std::fflush(stdout);

  int64_t step = 0;
  // Steps committed over fewer than the quorum's replicas.
  int64_t partial_steps = 0;
  std::vector<DenseHostTensor> parameters;
  // Healing in the background: `step` is the group's, and the updates of
  // the steps healed through wait here, by the step each applies to.
  bool healing = false;
  std::vector<std::pair<int64_t, std::vector<RCReference<AsyncValue>>>> kept;
  for (;;) {
    if (!healing) state.Get(&step, &parameters);
    if (step >= *steps) break;
    absl::StatusOr<sluice::ft::QuorumView> view = (*manager)->StartQuorum(step);
    if (!view.ok() && sluice::ft::IsDrainedByOperator(view.status())) {
      // Exit status 0: the launcher restarts no rank that ends well, and a
      // drained replica is to stay out.
      std::printf("replica %s drained by the operator at step %lld (%s)\n",
                  options.replica_id.c_str(), static_cast<long long>(step),
                  std::string(view.status().message()).c_str());
      std::fflush(stdout);
      return absl::OkStatus();
    }
    // Asking again will not help (the lighthouse refused this replica's
    // certificate, or its request): the launcher restarts on failure.
    if (!view.ok() &&
        sluice::Classify(view.status()) == sluice::FailureClass::kFatal) {
      return view.status();
    }
    if (!view.ok()) {
      std::printf("no quorum for step %lld: %s\n", static_cast<long long>(step),
                  sluice::DescribeError(view.status()).c_str());
      std::fflush(stdout);
      continue;
    }
    if (view->loaded_step >= 0) {
      absl::Status replayed =
          ReapplyKeptUpdates(**model, view->loaded_step, kept, &state, step);
      if (!replayed.ok()) return replayed;
      std::printf(
          "healed from %s to step %lld in the background: its parameters of "
          "step %lld and %zu kept updates (generation %lld)\n",
          view->healed_from.c_str(), static_cast<long long>(step),
          static_cast<long long>(view->loaded_step), kept.size(),
          static_cast<long long>(view->generation));
      kept.clear();
      healing = false;
      state.Get(&step, &parameters);
    } else if (!view->healed_from.empty()) {
      state.Get(&step, &parameters);
      std::printf("healed from %s to step %lld (generation %lld)\n",
                  view->healed_from.c_str(), static_cast<long long>(step),
                  static_cast<long long>(view->generation));
      std::fflush(stdout);
      if (step >= *steps) break;
    }
    if (view->healing && !healing) {
      healing = true;
      step = view->max_step;
      std::printf("healing in the background from step %lld (generation "
                  "%lld): contributing nothing until the parameters arrive\n",
                  static_cast<long long>(step),
                  static_cast<long long>(view->generation));
    }
    RCReference<AsyncValue> group =
        sluice::MakeAvailableAsyncValueRef<sluice::GroupValue>(
            view->group.CopyRef())
            .ReleaseRCRef();
    absl::StatusOr<std::vector<RCReference<AsyncValue>>> results;
    std::vector<int> contributors;
    if (*partial_allreduce) {
      results = PartialStep(**model, iterator, group, parameters,
                            healing ? 0.0f : 1.0f, call_timeout, &contributors);
    } else {
      std::vector<RCReference<AsyncValue>> arguments;
      arguments.push_back(iterator.CopyRef());
      arguments.push_back(group.CopyRef());
      for (RCReference<AsyncValue>& value : TensorValues(parameters)) {
        arguments.push_back(std::move(value));
      }
      absl::StatusOr<std::vector<DenseHostTensor>> weights =
          StepWeights(healing ? 0.0f : 1.0f,
                      kLearningRate / std::max(view->contributors, 1),
                      (*model)->allocator());
      if (!weights.ok()) return weights.status();
      for (RCReference<AsyncValue>& value : TensorValues(*weights)) {
        arguments.push_back(std::move(value));
      }
      results = (*model)->Call("train_step", arguments, call_timeout);
    }
    absl::Status error = results.ok() ? FirstError(*results) : results.status();
    if (!error.ok()) (*manager)->ReportError(error);
    absl::StatusOr<bool> commit =
        *partial_allreduce && error.ok()
            ? (*manager)->ShouldCommit(step, contributors)
            : (*manager)->ShouldCommit(step);
    if (!commit.ok() || !*commit || !error.ok()) {
      const absl::Status why =
          !error.ok()    ? error
          : !commit.ok() ? commit.status()
                         : absl::AbortedError("a participant voted against it");
      std::printf("step %lld of generation %lld not committed: %s\n",
                  static_cast<long long>(step + 1),
                  static_cast<long long>(view->generation),
                  sluice::DescribeError(why).c_str());
      std::fflush(stdout);
      continue;
    }
    if (static_cast<int>(contributors.size()) < view->size && error.ok() &&
        *partial_allreduce) {
      ++partial_steps;
      std::printf(
          "step %lld kept by partial allreduce: contributors %s of "
          "quorum %d (generation %lld)\n",
          static_cast<long long>(step + 1),
          absl::StrJoin(contributors, ",").c_str(), view->size,
          static_cast<long long>(view->generation));
    }
    if (healing) {
      std::vector<RCReference<AsyncValue>> update;
      for (size_t i = 6; i < results->size(); ++i) {
        update.push_back((*results)[i].CopyRef());
      }
      kept.emplace_back(step, std::move(update));
      ++step;
      continue;
    }
    std::vector<DenseHostTensor> updated;
    for (int i = 0; i < kNumParameters; ++i) {
      updated.push_back((*results)[i]->get<DenseHostTensor>());
    }
    const uint64_t checksum = Checksum(updated);
    state.Commit(step + 1, std::move(updated));
    std::printf("step %lld generation %lld quorum %d checksum %016" PRIx64
                " loss %.4f accuracy %.4f at %.3f\n",
                static_cast<long long>(step + 1),
                static_cast<long long>(view->generation), view->size, checksum,
                (*results)[4]->get<DenseHostTensor>().values<float>()[0],
                (*results)[5]->get<DenseHostTensor>().values<float>()[0],
                absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch()));
    std::fflush(stdout);
  }

  absl::StatusOr<std::vector<RCReference<AsyncValue>>> evaluated =
      (*model)->Call("evaluate", TensorValues(parameters), call_timeout);
  if (!evaluated.ok()) return evaluated.status();
  if (absl::Status error = FirstError(*evaluated); !error.ok()) return error;
  std::printf("held-out accuracy %.4f after %lld steps\n",
              (*evaluated)[0]->get<DenseHostTensor>().values<float>()[0],
              static_cast<long long>(step));
  if (*partial_allreduce) {
    std::printf("steps kept by partial allreduce: %lld\n",
                static_cast<long long>(partial_steps));
  }
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  // Progress lines go out as they happen, also into a pipe (run.py, the
  // launcher), where stdout would otherwise be fully buffered.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  sluice::tools::ParseToolCommandLine(
      argc, argv, "dp_train",
      "dp_train: one replica of data-parallel training of "
      "examples/dp_training/model.mlir, compiled to model.sbf, under a "
      "lighthouse\n",
      flags);
  absl::Status status = Train();
  std::fflush(stdout);
  if (!status.ok()) {
    std::fprintf(stderr, "dp_train: %s\n",
                 sluice::DescribeError(status).c_str());
    return 1;
  }
  return 0;
}
