#include "dialects/tfrt_dist/tfrt_dist_dialect.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "dialects/tfrt/inline_anywhere.h"
#include "dialects/tfrt/tfrt_dialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

// Generated definitions of the dialect class and its types.
#include "dialects/tfrt_dist/tfrt_dist_dialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/tfrt_dist/tfrt_dist_types.cpp.inc"

namespace sluice {
namespace tfrt_dist {
namespace {

constexpr llvm::StringLiteral kTransferableTypes =
    "i1, i32, i64, f32, f64, !tfrt.string, !tfrt.chain, !t.tensor and "
    "!tfrt_dist.variable";

bool IsIndex(llvm::StringRef text) {
  return !text.empty() && llvm::all_of(text, llvm::isDigit);
}

// "/job:<job>/task:<index>" or "/job:<job>/replica:0/task:<index>", the
// names a ClusterSpec gives its tasks. Checked here so that a typo fails at
// compile time rather than as a NotFound error at run time.
bool IsTaskName(llvm::StringRef name) {
  if (!name.consume_front("/job:")) return false;
  const size_t slash = name.find('/');
  if (slash == 0 || slash == llvm::StringRef::npos) return false;
  name = name.drop_front(slash);
  // Replica 0 is the only one a ClusterSpec names.
  name.consume_front("/replica:0");
  return name.consume_front("/task:") && IsIndex(name);
}

// Kernels receive attributes by position, in name order, so an attribute
// the kernel does not expect would shift the ones it does. Attributes whose
// names start with '_' are compiler hints the emitter leaves out.
mlir::LogicalResult VerifyOnlyAttributes(
    mlir::Operation* op, llvm::ArrayRef<llvm::StringRef> allowed) {
  for (mlir::NamedAttribute attribute : op->getAttrs()) {
    llvm::StringRef name = attribute.getName().getValue();
    if (name.starts_with("_") || llvm::is_contained(allowed, name)) continue;
    mlir::InFlightDiagnostic error = op->emitOpError()
                                     << "has unknown attribute '" << name
                                     << "'; it takes ";
    if (allowed.empty()) {
      error << "none";
    } else {
      llvm::interleave(allowed, error, ", ");
    }
    return error;
  }
  return mlir::success();
}

// Checks that every one of `types` can cross the wire; `what` says whose
// types they are ("argument", "result", ...).
mlir::LogicalResult VerifyTransferable(mlir::Operation* op,
                                       mlir::TypeRange types,
                                       llvm::StringRef what) {
  for (auto [index, type] : llvm::enumerate(types)) {
    if (IsTransferable(type)) continue;
    return op->emitOpError()
           << what << " #" << index << " has type " << type
           << ", which a remote call cannot carry (it carries "
           << kTransferableTypes << ")";
  }
  return mlir::success();
}

}  // namespace

bool IsTransferable(mlir::Type type) {
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(type)) {
    if (!integer.isSignless()) return false;
    const unsigned width = integer.getWidth();
    return width == 1 || width == 32 || width == 64;
  }
  return type.isF32() || type.isF64() ||
         llvm::isa<tfrt::StringType, tfrt::ChainType, t::TensorType,
                   VariableType>(type);
}

void TfrtDistDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/tfrt_dist/tfrt_dist_types.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/tfrt_dist/tfrt_dist_ops.cpp.inc"
      >();
  registerAttributes();
  // A function that sets up remote calls may be inlined into its callers
  // like any other.
  addInterfaces<InlineAnywhereInterface>();
}

//===----------------------------------------------------------------------===//
// tfrt_dist.get_task_handle
//===----------------------------------------------------------------------===//

mlir::LogicalResult GetTaskHandleOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(*this, {getTaskNameAttrName()}))) {
    return mlir::failure();
  }
  if (IsTaskName(getTaskName())) return mlir::success();
  return emitOpError() << "task name '" << getTaskName()
                       << "' is not of the form /job:<job>/task:<index>";
}

//===----------------------------------------------------------------------===//
// tfrt_dist.register_function
//===----------------------------------------------------------------------===//

mlir::LogicalResult RegisterFunctionOp::verify() {
  return VerifyOnlyAttributes(*this, {getCalleeAttrName()});
}

mlir::LogicalResult RegisterFunctionOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  auto callee = symbol_table.lookupNearestSymbolFrom<mlir::FunctionOpInterface>(
      *this, getCalleeAttr());
  if (!callee) {
    return emitOpError() << "callee '" << getCallee()
                         << "' is not a function of this module: only the "
                            "module's own functions can be sent to a task";
  }
  if (mlir::failed(VerifyTransferable(*this, callee.getArgumentTypes(),
                                      "callee argument")) ||
      mlir::failed(VerifyTransferable(*this, callee.getResultTypes(),
                                      "callee result"))) {
    return mlir::failure();
  }
  return mlir::success();
}

//===----------------------------------------------------------------------===//
// tfrt_dist.call
//===----------------------------------------------------------------------===//

mlir::LogicalResult CallOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getDeadlineMsAttrName(), getOnFailureAttrName()})) ||
      mlir::failed(VerifyFailurePolicy(*this, getOnFailureAttr()))) {
    return mlir::failure();
  }
  if (std::optional<uint64_t> deadline = getDeadlineMs();
      deadline && static_cast<int64_t>(*deadline) <= 0) {
    return emitOpError() << "deadline_ms must be positive, got "
                         << static_cast<int64_t>(*deadline);
  }
  if (mlir::failed(
          VerifyTransferable(*this, getArgs().getTypes(), "argument")) ||
      mlir::failed(VerifyTransferable(*this, getResultTypes(), "result"))) {
    return mlir::failure();
  }
  return mlir::success();
}

mlir::LogicalResult CallOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  if (mlir::failed(VerifyFailurePolicyFallback(
          *this, getOnFailureAttr(), getArgs().getTypes(), getResultTypes(),
          symbol_table))) {
    return mlir::failure();
  }
  // Only a function registered in the same body can be checked; one passed
  // in as an argument is checked by the task when it is called.
  auto registration = getFunction().getDefiningOp<RegisterFunctionOp>();
  if (!registration) return mlir::success();
  auto callee = symbol_table.lookupNearestSymbolFrom<mlir::FunctionOpInterface>(
      registration, registration.getCalleeAttr());
  // register_function reports a missing callee itself.
  if (!callee) return mlir::success();
  return tfrt::VerifyCallee(*this, symbol_table, registration.getCalleeAttr(),
                            getArgs().getTypes(), getResultTypes());
}

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

namespace {

// The values a hyperparameter may take on a parameter server.
enum class Range {
  kFinite,    // a learning rate
  kUnit,      // a beta: [0, 1)
  kPositive,  // epsilon: finite and > 0
};

// A hyperparameter the parameter server would refuse, caught at compile
// time. An absent (optional) attribute passes.
mlir::LogicalResult VerifyHyperparameter(mlir::Operation* op,
                                         llvm::StringRef name,
                                         mlir::FloatAttr attr, Range range) {
  if (!attr) return mlir::success();
  const double x = attr.getValueAsDouble();
  bool ok = std::isfinite(x);
  llvm::StringRef expected = "finite";
  if (range == Range::kUnit) {
    ok = ok && x >= 0 && x < 1;
    expected = "in [0, 1)";
  } else if (range == Range::kPositive) {
    ok = ok && x > 0;
    expected = "positive";
  }
  if (ok) return mlir::success();
  return op->emitOpError() << name << " must be " << expected << ", got " << x;
}

}  // namespace

mlir::LogicalResult CreateVariableOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(*this, {getNameAttrName()}))) {
    return mlir::failure();
  }
  if (getName().empty()) return emitOpError() << "name must not be empty";
  return mlir::success();
}

mlir::LogicalResult ReadVariableOp::verify() {
  return VerifyOnlyAttributes(*this, {});
}

mlir::LogicalResult AssignVariableOp::verify() {
  return VerifyOnlyAttributes(*this, {});
}

mlir::LogicalResult AssignAddVariableOp::verify() {
  return VerifyOnlyAttributes(*this, {});
}

mlir::LogicalResult ApplySgdOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(*this, {getLearningRateAttrName()}))) {
    return mlir::failure();
  }
  return VerifyHyperparameter(*this, "learning_rate", getLearningRateAttr(),
                              Range::kFinite);
}

mlir::LogicalResult ApplyAdamOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getLearningRateAttrName(), getBeta1AttrName(),
                  getBeta2AttrName(), getEpsilonAttrName()}))) {
    return mlir::failure();
  }
  if (mlir::failed(VerifyHyperparameter(
          *this, "learning_rate", getLearningRateAttr(), Range::kFinite)) ||
      mlir::failed(
          VerifyHyperparameter(*this, "beta1", getBeta1Attr(), Range::kUnit)) ||
      mlir::failed(
          VerifyHyperparameter(*this, "beta2", getBeta2Attr(), Range::kUnit)) ||
      mlir::failed(VerifyHyperparameter(*this, "epsilon", getEpsilonAttr(),
                                        Range::kPositive))) {
    return mlir::failure();
  }
  return mlir::success();
}

//===----------------------------------------------------------------------===//
// The coordinator
//===----------------------------------------------------------------------===//

namespace {

// The type a per-worker dataset's function returns. The tfrt_data dialect
// defines it; it is matched by spelling so that this dialect does not
// depend on that one.
constexpr llvm::StringLiteral kIteratorType = "!tfrt_data.iterator";

std::string Spelling(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  type.print(stream);
  return text;
}

// The function a coordinator op names, or null after reporting that the
// module has none of that name.
mlir::FunctionOpInterface LookUpCallee(mlir::Operation* op,
                                       mlir::SymbolTableCollection& table,
                                       mlir::FlatSymbolRefAttr callee) {
  auto function =
      table.lookupNearestSymbolFrom<mlir::FunctionOpInterface>(op, callee);
  if (!function) {
    op->emitOpError() << "callee '" << callee.getValue()
                      << "' is not a function of this module: only the "
                         "module's own functions can run on workers";
  }
  return function;
}

// What a per-worker value stands for on each worker, when the op that made
// it is in sight; null otherwise (a function's argument), and then the
// coordinator checks it when the closure is scheduled.
mlir::Type PerWorkerValueType(mlir::Value value,
                              mlir::SymbolTableCollection& table) {
  mlir::Operation* producer = value.getDefiningOp();
  if (producer == nullptr) return {};
  if (llvm::isa<WorkerIndexOp>(producer)) {
    return mlir::IntegerType::get(value.getContext(), 32);
  }
  mlir::FlatSymbolRefAttr callee;
  if (auto resource = llvm::dyn_cast<CreatePerWorkerResourceOp>(producer)) {
    callee = resource.getCalleeAttr();
  } else if (auto dataset =
                 llvm::dyn_cast<CreatePerWorkerDatasetOp>(producer)) {
    callee = dataset.getCalleeAttr();
  } else {
    return {};
  }
  auto function = table.lookupNearestSymbolFrom<mlir::FunctionOpInterface>(
      producer, callee);
  const unsigned index = llvm::cast<mlir::OpResult>(value).getResultNumber();
  // The producer's own verifier reports a callee that does not fit it.
  if (!function || index >= function.getNumResults()) return {};
  return function.getResultTypes()[index];
}

// Checks the operands of a coordinator op against its callee's arguments.
// A plain operand has the argument's type, which must cross the wire; a
// per-worker operand stands for a value of the argument's type that each
// worker holds. A resource's function (`for_resource`) takes the worker
// index but no other per-worker value.
mlir::LogicalResult VerifyClosureOperands(mlir::Operation* op,
                                          mlir::FunctionOpInterface callee,
                                          mlir::ValueRange operands,
                                          mlir::SymbolTableCollection& table,
                                          bool for_resource) {
  llvm::ArrayRef<mlir::Type> expected = callee.getArgumentTypes();
  if (operands.size() != expected.size()) {
    return op->emitOpError()
           << "passes " << operands.size() << " operand(s) to '"
           << callee.getName() << "', which takes " << expected.size();
  }
  for (auto [index, operand] : llvm::enumerate(operands)) {
    const mlir::Type want = expected[index];
    if (!llvm::isa<PerWorkerType>(operand.getType())) {
      if (operand.getType() != want) {
        return op->emitOpError()
               << "operand #" << index << " has type " << operand.getType()
               << ", but '" << callee.getName() << "' takes " << want;
      }
      if (!IsTransferable(want)) {
        return op->emitOpError()
               << "operand #" << index << " has type " << want
               << ", which cannot be sent to a worker (it carries "
               << kTransferableTypes
               << "); a value of another type can be a per-worker resource";
      }
      continue;
    }
    if (for_resource && !operand.getDefiningOp<WorkerIndexOp>() &&
        operand.getDefiningOp() != nullptr) {
      return op->emitOpError()
             << "operand #" << index
             << " is a per-worker resource; a resource's function takes "
                "values and the worker index only";
    }
    const mlir::Type held = PerWorkerValueType(operand, table);
    if (held && held != want) {
      return op->emitOpError()
             << "operand #" << index << " is a per-worker value of type "
             << held << ", but '" << callee.getName() << "' takes " << want;
    }
  }
  return mlir::success();
}

// The checks create_per_worker_resource and create_per_worker_dataset
// share: the callee, its operands, and one result per callee result.
mlir::FunctionOpInterface VerifyCreatePerWorker(
    mlir::Operation* op, mlir::SymbolTableCollection& table,
    mlir::FlatSymbolRefAttr callee_name, mlir::ValueRange operands) {
  mlir::FunctionOpInterface callee = LookUpCallee(op, table, callee_name);
  if (!callee || mlir::failed(VerifyClosureOperands(op, callee, operands, table,
                                                    /*for_resource=*/true))) {
    return {};
  }
  if (op->getNumResults() != callee.getNumResults()) {
    op->emitOpError() << "has " << op->getNumResults() << " result(s), but '"
                      << callee.getName() << "' returns "
                      << callee.getNumResults()
                      << ": one !tfrt_dist.per_worker per result";
    return {};
  }
  return callee;
}

}  // namespace

mlir::LogicalResult ScheduleOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this, {getCalleeAttrName(), getOnFailureAttrName()}))) {
    return mlir::failure();
  }
  return VerifyFailurePolicy(*this, getOnFailureAttr());
}

mlir::LogicalResult ScheduleOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  if (mlir::failed(VerifyFailurePolicyFallback(
          *this, getOnFailureAttr(), getArgs().getTypes(), getResultTypes(),
          symbol_table))) {
    return mlir::failure();
  }
  mlir::FunctionOpInterface callee =
      LookUpCallee(*this, symbol_table, getCalleeAttr());
  if (!callee ||
      mlir::failed(VerifyClosureOperands(*this, callee, getArgs(), symbol_table,
                                         /*for_resource=*/false))) {
    return mlir::failure();
  }
  llvm::ArrayRef<mlir::Type> returned = callee.getResultTypes();
  if (!llvm::equal(returned, getResultTypes())) {
    mlir::InFlightDiagnostic error = emitOpError() << "expects (";
    llvm::interleaveComma(getResultTypes(), error);
    error << ") from '" << callee.getName() << "', which returns (";
    llvm::interleaveComma(returned, error);
    return error << ")";
  }
  return VerifyTransferable(*this, returned, "callee result");
}

mlir::LogicalResult CreatePerWorkerResourceOp::verify() {
  return VerifyOnlyAttributes(*this, {getCalleeAttrName()});
}

mlir::LogicalResult CreatePerWorkerResourceOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  return mlir::success(static_cast<bool>(
      VerifyCreatePerWorker(*this, symbol_table, getCalleeAttr(), getArgs())));
}

mlir::LogicalResult CreatePerWorkerDatasetOp::verify() {
  return VerifyOnlyAttributes(*this, {getCalleeAttrName()});
}

mlir::LogicalResult CreatePerWorkerDatasetOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  mlir::FunctionOpInterface callee =
      VerifyCreatePerWorker(*this, symbol_table, getCalleeAttr(), getArgs());
  if (!callee) return mlir::failure();
  if (callee.getNumResults() != 1 ||
      Spelling(callee.getResultTypes()[0]) != kIteratorType) {
    mlir::InFlightDiagnostic error = emitOpError()
                                     << "dataset function '" << callee.getName()
                                     << "' must return one " << kIteratorType
                                     << ", but returns (";
    llvm::interleaveComma(callee.getResultTypes(), error);
    return error << ")";
  }
  return mlir::success();
}

mlir::LogicalResult WorkerIndexOp::verify() {
  return VerifyOnlyAttributes(*this, {});
}

mlir::LogicalResult JoinOp::verify() { return VerifyOnlyAttributes(*this, {}); }

//===----------------------------------------------------------------------===//
// tfrt_dist.fit
//===----------------------------------------------------------------------===//

namespace {

// What a step may return as a metric: a one-element tensor (checked when
// it arrives) or a number.
bool IsMetricType(mlir::Type type) {
  return llvm::isa<t::TensorType>(type) || type.isInteger(32) ||
         type.isInteger(64) || type.isF32() || type.isF64();
}

}  // namespace

mlir::LogicalResult FitOp::verify() {
  if (mlir::failed(VerifyOnlyAttributes(
          *this,
          {getOperandSegmentSizeAttr(), getDatasetAttrName(), getStepAttrName(),
           getEpochsAttrName(), getStepsPerEpochAttrName(),
           getMetricNamesAttrName(), getCallbackEveryStepsAttrName(),
           getCheckpointDirectoryAttrName(),
           getCheckpointEveryStepsAttrName()}))) {
    return mlir::failure();
  }
  if (getEpochs() < 1) {
    return emitOpError() << "epochs must be at least 1, got "
                         << static_cast<int64_t>(getEpochs());
  }
  if (getStepsPerEpoch() < 1) {
    return emitOpError() << "steps_per_epoch must be at least 1, got "
                         << static_cast<int64_t>(getStepsPerEpoch());
  }
  for (auto [name, every] :
       {std::pair{"callback_every_steps", getCallbackEveryStepsAttr()},
        {"checkpoint_every_steps", getCheckpointEveryStepsAttr()}}) {
    if (every && every.getInt() < 0) {
      return emitOpError() << name << " must not be negative, got "
                           << every.getInt();
    }
  }
  std::optional<llvm::StringRef> directory = getCheckpointDirectory();
  if (directory && directory->empty()) {
    return emitOpError() << "checkpoint_directory must not be empty; leave "
                            "it out for no checkpoints";
  }
  if (!directory && getCheckpointEveryStepsAttr()) {
    return emitOpError()
           << "checkpoint_every_steps needs a checkpoint_directory";
  }
  return mlir::success();
}

mlir::LogicalResult FitOp::verifySymbolUses(
    mlir::SymbolTableCollection& symbol_table) {
  mlir::FunctionOpInterface dataset =
      LookUpCallee(*this, symbol_table, getDatasetAttr());
  if (!dataset || mlir::failed(VerifyClosureOperands(
                      *this, dataset, getDatasetArgs(), symbol_table,
                      /*for_resource=*/true))) {
    return mlir::failure();
  }
  if (dataset.getNumResults() != 1 ||
      Spelling(dataset.getResultTypes()[0]) != kIteratorType) {
    mlir::InFlightDiagnostic error =
        emitOpError() << "dataset function '" << dataset.getName()
                      << "' must return one " << kIteratorType
                      << ", but returns (";
    llvm::interleaveComma(dataset.getResultTypes(), error);
    return error << ")";
  }
  mlir::FunctionOpInterface step =
      LookUpCallee(*this, symbol_table, getStepAttr());
  if (!step) return mlir::failure();
  llvm::ArrayRef<mlir::Type> takes = step.getArgumentTypes();
  const bool fits =
      takes.size() == 1 + getVariables().size() &&
      Spelling(takes[0]) == kIteratorType &&
      llvm::all_of(takes.drop_front(), llvm::IsaPred<VariableType>);
  if (!fits) {
    mlir::InFlightDiagnostic error =
        emitOpError() << "step function '" << step.getName()
                      << "' must take one " << kIteratorType << " and then "
                      << getVariables().size()
                      << " !tfrt_dist.variable (one per variable), but takes (";
    llvm::interleaveComma(takes, error);
    return error << ")";
  }
  if (step.getNumResults() != getMetricNames().size()) {
    return emitOpError() << "step function '" << step.getName() << "' returns "
                         << step.getNumResults() << " result(s), but "
                         << getMetricNames().size()
                         << " metric name(s) are given: one per result";
  }
  for (auto [index, type] : llvm::enumerate(step.getResultTypes())) {
    if (IsMetricType(type)) continue;
    return emitOpError()
           << "step function '" << step.getName() << "' returns " << type
           << " as metric '"
           << llvm::cast<mlir::StringAttr>(getMetricNames()[index]).getValue()
           << "'; a metric is a !t.tensor of one element or an "
              "i32, i64, f32 or f64";
  }
  return mlir::success();
}

}  // namespace tfrt_dist
}  // namespace sluice

#define GET_OP_CLASSES
#include "dialects/tfrt_dist/tfrt_dist_ops.cpp.inc"
