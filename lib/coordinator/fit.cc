#include "sluice/coordinator/fit.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sluice/coordinator/variable_checkpoint.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "sluice/tensor/dtype.h"

namespace sluice::dist {
namespace {

constexpr char kVariableType[] = "!tfrt_dist.variable";

absl::Status CheckModel(const FitModel& model, const FitOptions& options) {
  if (options.steps_per_epoch <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("fit: steps_per_epoch must be positive, got ",
                     options.steps_per_epoch));
  }
  if (options.epochs < 0 || options.callback_every_steps < 0 ||
      options.checkpoint_every_steps < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fit: epochs (", options.epochs, "), callback_every_steps (",
        options.callback_every_steps, ") and checkpoint_every_steps (",
        options.checkpoint_every_steps, ") must not be negative"));
  }
  const std::vector<std::string>& arguments =
      model.step_function.argument_types();
  if (arguments.size() != 1 + model.variables.size() ||
      arguments[0] != kIteratorTypeName) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fit: step function '", model.step_function.name(), "' takes ",
        arguments.size(), " arguments; it must take a ", kIteratorTypeName,
        " and then one ", kVariableType, " per variable (",
        model.variables.size(), ")"));
  }
  for (size_t i = 1; i < arguments.size(); ++i) {
    if (arguments[i] != kVariableType) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fit: argument ", i, " of step function '",
          model.step_function.name(), "' is ", arguments[i], ", not a ",
          kVariableType, " for variable '", model.variables[i - 1].name, "'"));
    }
  }
  if (model.metric_names.size() != model.step_function.result_types().size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fit: step function '", model.step_function.name(), "' returns ",
        model.step_function.result_types().size(), " results, but ",
        model.metric_names.size(), " metric names were given"));
  }
  return absl::OkStatus();
}

// A metric's value: a scalar, or a tensor of one element.
absl::StatusOr<double> MetricValue(const AsyncValue& value,
                                   const std::string& name) {
  if (value.IsType<float>()) return value.get<float>();
  if (value.IsType<double>()) return value.get<double>();
  if (value.IsType<int32_t>()) return value.get<int32_t>();
  if (value.IsType<int64_t>()) return static_cast<double>(value.get<int64_t>());
  if (value.IsType<DenseHostTensor>()) {
    const DenseHostTensor& tensor = value.get<DenseHostTensor>();
    if (tensor.num_elements() == 1 && tensor.dtype() != DType::kI1) {
      return DispatchDType(tensor.dtype(), [&](auto zero) {
        return static_cast<double>(tensor.values<decltype(zero)>()[0]);
      });
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "fit: metric '", name, "' is a ", DTypeName(tensor.dtype()),
        " tensor of shape ", tensor.shape().ToString(),
        "; a metric must hold one i32, i64, f32 or f64 element"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("fit: metric '", name,
                   "' is not a tensor or a scalar of i32, i64, f32 or f64"));
}

// The metrics of one step that succeeded.
absl::StatusOr<std::vector<double>> MetricValues(
    const std::vector<RCReference<AsyncValue>>& results,
    const std::vector<std::string>& names) {
  std::vector<double> values;
  for (size_t i = 0; i < results.size(); ++i) {
    absl::StatusOr<double> value = MetricValue(*results[i], names[i]);
    if (!value.ok()) return value.status();
    values.push_back(*value);
  }
  return values;
}

// Sums of the metrics of the steps that succeeded.
class MetricSums {
 public:
  explicit MetricSums(const std::vector<std::string>& names)
      : names_(names), sums_(names.size(), 0.0) {}

  void Add(const std::vector<double>& values) {
    for (size_t i = 0; i < values.size(); ++i) sums_[i] += values[i];
    ++steps_;
  }

  // The means so far, and a fresh start.
  FitMetrics Take(int64_t epoch, int64_t step) {
    FitMetrics metrics{epoch, step, steps_, {}};
    for (size_t i = 0; i < names_.size(); ++i) {
      metrics.values.emplace_back(
          names_[i], steps_ > 0 ? sums_[i] / static_cast<double>(steps_) : 0.0);
      sums_[i] = 0;
    }
    steps_ = 0;
    return metrics;
  }

 private:
  const std::vector<std::string>& names_;
  std::vector<double> sums_;
  int64_t steps_ = 0;
};

// Where training stands: the epoch, and the steps of it already done.
struct Position {
  int64_t epoch = 0;
  int64_t step = 0;
};

// The position of the newest checkpoint in the directory, with the
// variables restored from it; the start when there is none.
absl::StatusOr<Position> Resume(Coordinator& coordinator,
                                const FitOptions& options) {
  if (options.checkpoint_directory.empty()) return Position{};
  absl::StatusOr<std::vector<int64_t>> steps =
      checkpoint::ListCheckpointSteps(options.checkpoint_directory);
  if (!steps.ok()) return steps.status();
  if (steps->empty()) return Position{};
  absl::StatusOr<RestoredVariables> restored =
      RestoreVariables(coordinator.variables(), coordinator.host(),
                       options.checkpoint_directory);
  if (!restored.ok()) return restored.status();
  Position position{restored->epoch,
                    restored->step - restored->epoch * options.steps_per_epoch};
  if (position.epoch < 0 || position.step < 0 ||
      position.step >= options.steps_per_epoch) {
    return absl::FailedPreconditionError(absl::StrCat(
        "fit: the checkpoint in ", options.checkpoint_directory, " of step ",
        restored->step, " and epoch ", restored->epoch,
        " does not fit steps_per_epoch ", options.steps_per_epoch));
  }
  return position;
}

// One run of Fit: the coordinator, what it trains, and the iterators.
class FitRun {
 public:
  FitRun(Coordinator& coordinator, const FitModel& model,
         const FitOptions& options)
      : coordinator_(coordinator),
        model_(model),
        options_(options),
        epoch_sums_(model.metric_names),
        window_sums_(model.metric_names) {}

  absl::Status Run(Position start) {
    for (int64_t epoch = start.epoch; epoch < options_.epochs; ++epoch) {
      if (!dataset_.has_value()) {
        absl::StatusOr<PerWorkerResource> dataset =
            coordinator_.CreatePerWorkerDataset(model_.dataset_function,
                                                model_.dataset_arguments);
        if (!dataset.ok()) return dataset.status();
        dataset_ = *dataset;
      }
      bool ended_early = false;
      absl::Status ran =
          RunEpoch(epoch, epoch == start.epoch ? start.step : 0, ended_early);
      if (!ran.ok()) return ran;
      // As Keras does at an epoch's end, start over from new iterators.
      if (ended_early) dataset_.reset();
      const int64_t position = (epoch + 1) * options_.steps_per_epoch;
      if (absl::Status saved = Save(epoch + 1, position); !saved.ok()) {
        return saved;
      }
      if (options_.on_epoch_end) {
        options_.on_epoch_end(epoch_sums_.Take(epoch, position));
      }
    }
    return absl::OkStatus();
  }

 private:
  absl::Status RunEpoch(int64_t epoch, int64_t first_step, bool& ended_early) {
    epoch_sums_.Take(epoch, 0);
    window_sums_.Take(epoch, 0);
    for (int64_t step = first_step; step < options_.steps_per_epoch; ++step) {
      std::vector<ClosureArgument> arguments = {ClosureArgument(*dataset_)};
      for (const VariableHandle& variable : model_.variables) {
        arguments.push_back(ClosureArgument::Of(variable));
      }
      auto results =
          coordinator_.Schedule(model_.step_function, std::move(arguments));
      if (!results.ok()) {
        if (!absl::IsOutOfRange(results.status())) return results.status();
        ended_early = true;
        break;
      }
      pending_.push_back(*std::move(results));
      const int64_t done = step + 1;
      const bool callback_due = Due(options_.callback_every_steps, done);
      const bool checkpoint_due = Due(options_.checkpoint_every_steps, done);
      if (!callback_due && !checkpoint_due) continue;
      if (absl::Status synced = Sync(ended_early); !synced.ok()) return synced;
      const int64_t position = epoch * options_.steps_per_epoch + done;
      if (callback_due && options_.on_steps) {
        options_.on_steps(window_sums_.Take(epoch, position));
      }
      if (ended_early) return absl::OkStatus();
      if (checkpoint_due && done < options_.steps_per_epoch) {
        if (absl::Status saved = Save(epoch, position); !saved.ok()) {
          return saved;
        }
      }
    }
    return Sync(ended_early);
  }

  static bool Due(int64_t every, int64_t done) {
    return every > 0 && done % every == 0;
  }

  // Waits for the steps scheduled, adds the metrics of those that
  // succeeded, and says whether an iterator ran out.
  absl::Status Sync(bool& ended_early) {
    absl::Status joined = coordinator_.Join();
    if (!joined.ok() && !absl::IsOutOfRange(joined)) return joined;
    ended_early |= !joined.ok();
    std::vector<std::vector<RCReference<AsyncValue>>> steps =
        std::move(pending_);
    pending_.clear();
    for (const auto& results : steps) {
      absl::Status failed = coordinator_.Fetch(results);
      if (absl::IsOutOfRange(failed)) ended_early = true;
      // Cancelled: queued behind a step that failed.
      if (absl::IsOutOfRange(failed) || absl::IsCancelled(failed)) continue;
      if (!failed.ok()) return failed;
      absl::StatusOr<std::vector<double>> values =
          MetricValues(results, model_.metric_names);
      if (!values.ok()) return values.status();
      epoch_sums_.Add(*values);
      window_sums_.Add(*values);
    }
    return absl::OkStatus();
  }

  absl::Status Save(int64_t epoch, int64_t position) {
    if (options_.checkpoint_directory.empty()) return absl::OkStatus();
    if (options_.on_checkpoint_begin) options_.on_checkpoint_begin();
    absl::Status saved = SaveVariables(
        coordinator_.variables(), coordinator_.host(),
        options_.checkpoint_directory, position, epoch, options_.checkpoint);
    if (options_.on_checkpoint_end) options_.on_checkpoint_end();
    return saved;
  }

  Coordinator& coordinator_;
  const FitModel& model_;
  const FitOptions& options_;
  std::optional<PerWorkerResource> dataset_;
  std::vector<std::vector<RCReference<AsyncValue>>> pending_;
  MetricSums epoch_sums_;
  MetricSums window_sums_;
};

}  // namespace

absl::Status Fit(Coordinator& coordinator, const FitModel& model,
                 const FitOptions& options) {
  if (absl::Status checked = CheckModel(model, options); !checked.ok()) {
    return checked;
  }
  absl::StatusOr<Position> start = Resume(coordinator, options);
  if (!start.ok()) return start.status();
  return FitRun(coordinator, model, options).Run(*start);
}

}  // namespace sluice::dist
