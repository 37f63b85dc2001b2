#include "sluice/compiler/sbf_emitter.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "lib/compiler/attribute_codec.h"
#include "lib/compiler/failure_policy_codec.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Region.h"
#include "mlir/IR/SymbolTable.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_writer.h"
#include "sluice/support/utf8.h"

namespace sluice {
namespace {

using compiler_internal::AttributeEncoder;
using compiler_internal::LowerFailurePolicy;

constexpr llvm::StringLiteral kReturnName("tfrt.return");
constexpr llvm::StringLiteral kNativeAttribute("tfrt.native");
constexpr llvm::StringLiteral kSyncAttribute("tfrt.sync");
constexpr llvm::StringLiteral kCompiledAttribute("tfrt.compiled");
constexpr llvm::StringLiteral kCostAttribute("_tfrt_cost");

// The source position of a location, looking through names, fusions and
// call sites. A call site's callee comes first: that is where the op itself
// is written, the caller only says how it got inlined there.
std::optional<mlir::FileLineColLoc> FindFilePosition(mlir::Location location) {
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(location)) return file;
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(location)) {
    return FindFilePosition(name.getChildLoc());
  }
  if (auto call = llvm::dyn_cast<mlir::CallSiteLoc>(location)) {
    if (auto position = FindFilePosition(call.getCallee())) return position;
    return FindFilePosition(call.getCaller());
  }
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(location)) {
    for (mlir::Location part : fused.getLocations()) {
      if (auto position = FindFilePosition(part)) return position;
    }
    return std::nullopt;
  }
  if (auto opaque = llvm::dyn_cast<mlir::OpaqueLoc>(location)) {
    return FindFilePosition(opaque.getFallbackLocation());
  }
  return std::nullopt;
}

// The name `tfrt_test.print_debug_info` prints for an op: a named location's
// name; for a call site, the callee's (the inlined op's own name); for a
// fusion, the names of its parts one after the other with nothing between
// them, skipping parts without one (file positions), as TFRT prints them.
std::optional<std::string> DebugName(mlir::Location location) {
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(location)) {
    return name.getName().str();
  }
  if (auto call = llvm::dyn_cast<mlir::CallSiteLoc>(location)) {
    return DebugName(call.getCallee());
  }
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(location)) {
    std::optional<std::string> joined;
    for (mlir::Location part : fused.getLocations()) {
      std::optional<std::string> name = DebugName(part);
      if (!name) continue;
      joined = joined ? *joined + *name : *name;
    }
    return joined;
  }
  if (auto opaque = llvm::dyn_cast<mlir::OpaqueLoc>(location)) {
    return DebugName(opaque.getFallbackLocation());
  }
  return std::nullopt;
}

// MLIR text of `attributes`, as the Annotations section holds it.
std::string DictionaryText(mlir::DictionaryAttr attributes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attributes.print(os);
  return os.str();
}

// Whether `attribute` holds a reference into a `tfrt.compiled` module,
// which kernels receive as text and the decompiler needs back as a symbol.
bool HasNestedSymbol(mlir::Attribute attribute) {
  bool found = false;
  attribute.walk([&](mlir::SymbolRefAttr symbol) {
    if (!symbol.getNestedReferences().empty()) found = true;
  });
  return found;
}

// The encoder, the decompiler, kernels and MLIR's attribute walks and
// printer recurse over arrays; the reader refuses what they could not walk,
// so the emitter refuses it too, before anything walks it.
mlir::LogicalResult CheckArrayNesting(mlir::Operation* op,
                                      mlir::NamedAttribute attribute) {
  if (compiler_internal::ArrayNesting(attribute.getValue()) <=
      bef::kMaxArrayNesting) {
    return mlir::success();
  }
  return op->emitError() << "attribute '" << attribute.getName().getValue()
                         << "' nests arrays more than " << bef::kMaxArrayNesting
                         << " levels deep; sbf files allow at most "
                         << bef::kMaxArrayNesting;
}

// Strings in the file are NUL-terminated: one holding a NUL (possible in
// quoted MLIR names) cannot be written.
mlir::LogicalResult CheckNoNul(mlir::Operation* op, llvm::StringRef what,
                               llvm::StringRef value) {
  if (value.find('\0') == llvm::StringRef::npos) return mlir::success();
  return op->emitError() << what << " contains a NUL byte, which SBF files "
                         << "cannot hold";
}

class ModuleEmitter {
 public:
  explicit ModuleEmitter(mlir::ModuleOp module)
      : module_(module), encoder_(&writer_, &function_indices_, module) {}

  mlir::LogicalResult Emit();

  std::vector<uint8_t> Finish(bool include_optional_sections) const {
    return writer_.Finish(include_optional_sections);
  }

 private:
  mlir::FailureOr<mlir::Operation*> FindReturn(mlir::Operation* owner,
                                               mlir::Region& region);
  mlir::LogicalResult AddCompiledModule(mlir::ModuleOp nested,
                                        uint32_t position);
  mlir::LogicalResult AnnotateFunction(mlir::func::FuncOp function,
                                       uint32_t index);
  mlir::LogicalResult EmitFunction(mlir::func::FuncOp function, uint32_t index);
  mlir::FailureOr<uint32_t> EmitRegion(mlir::Operation* owner,
                                       mlir::Region& region);
  mlir::FailureOr<bef::BodyDescription> BuildBody(uint32_t function_index,
                                                  mlir::Block& block,
                                                  mlir::Operation* return_op);
  mlir::LogicalResult AddAttributes(mlir::Operation& op,
                                    bef::KernelDescription* kernel,
                                    mlir::NamedAttrList* annotations);
  mlir::FailureOr<uint32_t> AddLocation(mlir::Operation& op);

  mlir::ModuleOp module_;
  bef::SbfWriter writer_;
  llvm::StringMap<uint32_t> function_indices_;
  AttributeEncoder encoder_;
};

mlir::LogicalResult ModuleEmitter::Emit() {
  // Every function is declared before any body is emitted, so that symbol
  // references may name functions defined further down the file. Listed
  // functions come first and in file order, which is the order the runner
  // runs them in; region functions follow.
  std::vector<std::pair<mlir::func::FuncOp, uint32_t>> with_bodies;
  bool ok = true;
  uint32_t num_functions = 0;
  for (mlir::Operation& op : module_.getBody()->getOperations()) {
    auto nested = llvm::dyn_cast<mlir::ModuleOp>(op);
    if (nested && nested->hasAttr(kCompiledAttribute)) {
      if (mlir::failed(AddCompiledModule(nested, num_functions))) ok = false;
      continue;
    }
    auto function = llvm::dyn_cast<mlir::func::FuncOp>(op);
    if (!function) {
      op.emitError() << "'" << op.getName()
                     << "' cannot be emitted to SBF files: only func.func "
                        "ops and modules marked tfrt.compiled may appear at "
                        "the top level of a module";
      ok = false;
      continue;
    }
    const bool native = function->hasAttr(kNativeAttribute);
    if (function.isExternal() && !native) {
      function.emitError("external functions are not allowed");
      ok = false;
      continue;
    }
    if (!function.isExternal() && native) {
      function.emitError("native functions must not have a body");
      ok = false;
      continue;
    }
    if (mlir::failed(
            CheckNoNul(function, "function name", function.getSymName()))) {
      ok = false;
      continue;
    }
    // The reader refuses such a name (a worker sends function names in
    // protobuf string fields): say so here, at the function.
    if (absl::Status utf8 = CheckUtf8(
            "function name", std::string_view(function.getSymName().data(),
                                              function.getSymName().size()));
        !utf8.ok()) {
      function.emitError(std::string(utf8.message()));
      ok = false;
      continue;
    }
    std::vector<uint32_t> argument_types;
    for (mlir::Type type : function.getArgumentTypes()) {
      argument_types.push_back(encoder_.TypeIndex(type));
    }
    std::vector<uint32_t> result_types;
    for (mlir::Type type : function.getResultTypes()) {
      result_types.push_back(encoder_.TypeIndex(type));
    }
    const uint32_t index = writer_.DeclareFunction(
        function.getSymName(),
        native ? bef::FunctionKind::kNative : bef::FunctionKind::kFunction,
        argument_types, result_types);
    function_indices_[function.getSymName()] = index;
    ++num_functions;
    if (!native) with_bodies.emplace_back(function, index);
  }
  // Bodies would only add errors about references to the functions that
  // failed above.
  if (!ok) return mlir::failure();
  if (!module_->getAttrDictionary().empty()) {
    writer_.SetModuleAnnotations(DictionaryText(module_->getAttrDictionary()));
  }
  for (mlir::Operation& op : module_.getBody()->getOperations()) {
    auto function = llvm::dyn_cast<mlir::func::FuncOp>(op);
    if (!function) continue;
    const uint32_t index = function_indices_[function.getSymName()];
    if (mlir::failed(AnnotateFunction(function, index))) ok = false;
  }
  for (auto& [function, index] : with_bodies) {
    if (mlir::failed(EmitFunction(function, index))) ok = false;
  }
  return mlir::success(ok);
}

mlir::LogicalResult ModuleEmitter::AddCompiledModule(mlir::ModuleOp nested,
                                                     uint32_t position) {
  std::optional<llvm::StringRef> name = nested.getSymName();
  if (!name) {
    return nested.emitError(
        "a module marked tfrt.compiled needs a name: ops refer to its "
        "functions as @module::@function");
  }
  if (mlir::failed(CheckNoNul(nested, "module name", *name))) {
    return mlir::failure();
  }
  // Generic form with locations: whoever compiles it at run time parses it
  // without Sluice's dialects, and the decompiler gives it back exactly.
  std::string text;
  llvm::raw_string_ostream os(text);
  nested->print(os, mlir::OpPrintingFlags()
                        .printGenericOpForm()
                        .enableDebugInfo()
                        .assumeVerified());
  if (mlir::failed(CheckNoNul(nested, "module text", os.str()))) {
    return mlir::failure();
  }
  writer_.AddCompiledModule(*name, position, os.str());
  return mlir::success();
}

// Function attributes reach no kernel; they are kept for the decompiler,
// and the symbols they name must exist.
mlir::LogicalResult ModuleEmitter::AnnotateFunction(mlir::func::FuncOp function,
                                                    uint32_t index) {
  mlir::NamedAttrList kept;
  bool ok = true;
  for (mlir::NamedAttribute attribute : function->getAttrDictionary()) {
    llvm::StringRef name = attribute.getName().getValue();
    // The name and signature are in the Functions section already.
    if (name == function.getSymNameAttrName() ||
        name == function.getFunctionTypeAttrName()) {
      continue;
    }
    if (mlir::failed(CheckArrayNesting(function, attribute))) {
      return mlir::failure();
    }
    attribute.getValue().walk([&](mlir::SymbolRefAttr symbol) {
      if (mlir::failed(encoder_.CheckSymbolDefined(symbol, function))) {
        ok = false;
      }
    });
    kept.push_back(attribute);
  }
  if (!ok) return mlir::failure();
  if (!kept.empty()) {
    writer_.SetFunctionAnnotations(
        index, DictionaryText(kept.getDictionary(function->getContext())));
  }
  return mlir::success();
}

mlir::FailureOr<mlir::Operation*> ModuleEmitter::FindReturn(
    mlir::Operation* owner, mlir::Region& region) {
  if (region.empty()) {
    return owner->emitError("empty regions cannot be emitted to SBF files");
  }
  if (!region.hasOneBlock()) {
    return owner->emitError(
        "multi-block regions cannot be emitted to SBF files");
  }
  mlir::Block& block = region.front();
  if (block.empty()) {
    return owner->emitError("all functions need to have a tfrt.return");
  }
  // At the op that should have been the return, as TFRT reports it, so
  // tests annotated for TFRT match.
  if (block.back().getName().getStringRef() != kReturnName) {
    return block.back().emitError("all functions need to have a tfrt.return");
  }
  return &block.back();
}

mlir::LogicalResult ModuleEmitter::EmitFunction(mlir::func::FuncOp function,
                                                uint32_t index) {
  mlir::FailureOr<mlir::Operation*> return_op =
      FindReturn(function, function.getBody());
  if (mlir::failed(return_op)) return mlir::failure();
  // tfrt.return checks this itself when its dialect is loaded; without it
  // (unregistered dialects), a mismatch would make a file the reader
  // rejects. Diagnostics quote streamed types themselves.
  llvm::ArrayRef<mlir::Type> results = function.getResultTypes();
  mlir::Operation* ret = *return_op;
  // TFRT's sync executor returns a function's values by moving them out of
  // its registers, so a register may be returned once and never be an
  // argument, which the caller still owns.
  if (function->hasAttr(kSyncAttribute)) {
    llvm::DenseSet<mlir::Value> returned;
    for (auto [i, value] : llvm::enumerate(ret->getOperands())) {
      if (llvm::isa<mlir::BlockArgument>(value)) {
        return ret->emitError()
               << "return value " << i << " is an argument in a sync function";
      }
      if (!returned.insert(value).second) {
        return ret->emitError()
               << "return value " << i << " is duplicated in a sync function";
      }
    }
  }
  if (ret->getNumOperands() != results.size()) {
    return ret->emitError()
           << "'tfrt.return' op has " << ret->getNumOperands()
           << " operands, but enclosing function returns " << results.size();
  }
  for (unsigned i = 0; i < results.size(); ++i) {
    mlir::Type type = ret->getOperand(i).getType();
    if (type != results[i]) {
      return ret->emitError()
             << "type of return operand " << i << " (" << type
             << ") doesn't match function result type (" << results[i] << ")";
    }
  }
  mlir::FailureOr<bef::BodyDescription> body =
      BuildBody(index, function.getBody().front(), ret);
  if (mlir::failed(body)) return mlir::failure();
  writer_.DefineFunction(index, *std::move(body));
  return mlir::success();
}

mlir::FailureOr<uint32_t> ModuleEmitter::EmitRegion(mlir::Operation* owner,
                                                    mlir::Region& region) {
  mlir::FailureOr<mlir::Operation*> return_op = FindReturn(owner, region);
  if (mlir::failed(return_op)) return mlir::failure();
  std::vector<uint32_t> argument_types;
  for (mlir::Type type : region.front().getArgumentTypes()) {
    argument_types.push_back(encoder_.TypeIndex(type));
  }
  std::vector<uint32_t> result_types;
  for (mlir::Type type : (*return_op)->getOperandTypes()) {
    result_types.push_back(encoder_.TypeIndex(type));
  }
  // Declared before its body is built: regions nested in it are declared
  // after it, and DefineFunction wants every function a kernel names to
  // exist already.
  const uint32_t index = writer_.DeclareFunction("", bef::FunctionKind::kRegion,
                                                 argument_types, result_types);
  mlir::FailureOr<bef::BodyDescription> body =
      BuildBody(index, region.front(), *return_op);
  if (mlir::failed(body)) return mlir::failure();
  writer_.DefineFunction(index, *std::move(body));
  return index;
}

mlir::FailureOr<bef::BodyDescription> ModuleEmitter::BuildBody(
    uint32_t function_index, mlir::Block& block, mlir::Operation* return_op) {
  bef::BodyDescription body;
  // Registers are numbered in definition order: the block's arguments, then
  // each kernel's results, so a register's number says where it is defined.
  llvm::DenseMap<mlir::Value, uint32_t> registers;
  auto define = [&](mlir::Value value) {
    const uint32_t reg = body.num_registers++;
    registers[value] = reg;
    body.register_types.push_back(encoder_.TypeIndex(value.getType()));
    return reg;
  };
  // Only values of this block have registers: a region runs as a function
  // of its own and sees nothing of the function around it.
  auto lookup = [&](mlir::Operation* user,
                    mlir::Value value) -> mlir::FailureOr<uint32_t> {
    auto it = registers.find(value);
    if (it == registers.end()) {
      return user->emitError(
          "SBF executor only supports references to kernels within the "
          "current region");
    }
    return it->second;
  };

  for (mlir::BlockArgument argument : block.getArguments()) {
    body.argument_registers.push_back(define(argument));
  }
  for (mlir::Operation& op : block) {
    if (&op == return_op) break;
    if (op.getName().getStringRef() == kReturnName) {
      return op.emitError("'tfrt.return' must be the last op of its block");
    }
    bef::KernelDescription kernel;
    if (mlir::failed(CheckNoNul(&op, "op name", op.getName().getStringRef()))) {
      return mlir::failure();
    }
    kernel.name_index = writer_.AddKernelName(op.getName().getStringRef());
    mlir::FailureOr<uint32_t> location = AddLocation(op);
    if (mlir::failed(location)) return mlir::failure();
    kernel.location_index = *location;
    for (mlir::Value operand : op.getOperands()) {
      mlir::FailureOr<uint32_t> reg = lookup(&op, operand);
      if (mlir::failed(reg)) return mlir::failure();
      kernel.operands.push_back(*reg);
    }
    for (mlir::Region& region : op.getRegions()) {
      mlir::FailureOr<uint32_t> function = EmitRegion(&op, region);
      if (mlir::failed(function)) return mlir::failure();
      kernel.functions.push_back(*function);
    }
    mlir::NamedAttrList annotations;
    if (mlir::failed(AddAttributes(op, &kernel, &annotations))) {
      return mlir::failure();
    }
    if (!annotations.empty()) {
      writer_.AddKernelAnnotations(
          function_index, static_cast<uint32_t>(body.kernels.size()),
          DictionaryText(annotations.getDictionary(op.getContext())));
    }
    for (mlir::Value result : op.getResults()) {
      kernel.results.push_back(define(result));
    }
    body.kernels.push_back(std::move(kernel));
  }
  for (mlir::Value operand : return_op->getOperands()) {
    mlir::FailureOr<uint32_t> reg = lookup(return_op, operand);
    if (mlir::failed(reg)) return mlir::failure();
    body.result_registers.push_back(*reg);
  }
  return body;
}

mlir::LogicalResult ModuleEmitter::AddAttributes(
    mlir::Operation& op, bef::KernelDescription* kernel,
    mlir::NamedAttrList* annotations) {
  // getAttrDictionary includes the inherent attributes that ODS ops keep in
  // properties, and a dictionary is sorted by name: the order kernels take.
  std::vector<uint32_t> callees;
  for (mlir::NamedAttribute attribute : op.getAttrDictionary()) {
    llvm::StringRef name = attribute.getName().getValue();
    if (mlir::failed(CheckArrayNesting(&op, attribute))) {
      return mlir::failure();
    }
    // Hints reach no kernel; the decompiler gets them back.
    if (name.starts_with("_")) {
      if (name == kCostAttribute) {
        auto cost = llvm::dyn_cast<mlir::IntegerAttr>(attribute.getValue());
        if (!cost || !cost.getType().isInteger(64)) {
          return op.emitError("op cost value must be an i64 integer");
        }
        if (cost.getInt() <= 0) {
          return op.emitError("op cost value must be larger than 0");
        }
      }
      annotations->push_back(attribute);
      continue;
    }
    if (mlir::failed(CheckNoNul(&op, "attribute name", name))) {
      return mlir::failure();
    }
    if (HasNestedSymbol(attribute.getValue())) {
      annotations->push_back(attribute);
    }
    mlir::FailureOr<uint32_t> reference =
        encoder_.Encode(attribute.getValue(), &op, name);
    if (mlir::failed(reference)) return mlir::failure();
    kernel->attributes.push_back(*reference);
    kernel->attribute_names.push_back(writer_.AddString(name));

    // A symbol, or an array of them (tfrt.case's branches), names functions
    // the kernel calls; the executor hands them over with the regions.
    auto add_callee = [&](mlir::Attribute symbol) {
      if (!llvm::isa<mlir::FlatSymbolRefAttr>(symbol)) return mlir::success();
      mlir::FailureOr<uint32_t> callee = encoder_.ResolveSymbol(symbol, &op);
      if (mlir::failed(callee)) return mlir::failure();
      callees.push_back(*callee);
      return mlir::success();
    };
    // A failure policy's fallback is a callee too, an element of the form
    // the policy is written in.
    mlir::ArrayAttr array = LowerFailurePolicy(attribute.getValue());
    if (!array) array = llvm::dyn_cast<mlir::ArrayAttr>(attribute.getValue());
    if (array) {
      for (mlir::Attribute element : array) {
        if (mlir::failed(add_callee(element))) return mlir::failure();
      }
    } else if (mlir::failed(add_callee(attribute.getValue()))) {
      return mlir::failure();
    }
  }
  kernel->functions.insert(kernel->functions.end(), callees.begin(),
                           callees.end());
  return mlir::success();
}

mlir::FailureOr<uint32_t> ModuleEmitter::AddLocation(mlir::Operation& op) {
  // One record per kernel, never shared: tfrt_test.unique_loc relies on it
  // to tell kernels apart, even where two ops have the same source location.
  const mlir::Location location = op.getLoc();
  const std::optional<mlir::FileLineColLoc> position =
      FindFilePosition(location);
  const std::optional<std::string> name = DebugName(location);
  llvm::StringRef file;
  uint32_t line = 0;
  uint32_t column = 0;
  if (position) {
    file = position->getFilename().getValue();
    line = position->getLine();
    column = position->getColumn();
  }
  if (mlir::failed(CheckNoNul(&op, "location file name", file)) ||
      (name && mlir::failed(CheckNoNul(&op, "location name", *name)))) {
    return mlir::failure();
  }
  std::optional<std::string_view> debug_name;
  if (name) debug_name = *name;
  return writer_.AddLocation(file, line, column, debug_name);
}

}  // namespace

mlir::FailureOr<std::vector<uint8_t>> CompileModuleToSbf(
    mlir::ModuleOp module, bool include_optional_sections) {
  ModuleEmitter emitter(module);
  if (mlir::failed(emitter.Emit())) return mlir::failure();
  return emitter.Finish(include_optional_sections);
}

}  // namespace sluice
