#include "sluice/compiler/sbf_decompiler.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/compiler/attribute_codec.h"
#include "llvm/ADT/StringRef.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/compiler/source_nesting.h"

namespace sluice {
namespace {

using compiler_internal::AttributeDecoder;

constexpr llvm::StringLiteral kReturnName("tfrt.return");
constexpr llvm::StringLiteral kNativeAttribute("tfrt.native");

llvm::StringRef ToStringRef(std::string_view value) {
  return llvm::StringRef(value.data(), value.size());
}

class Decompiler {
 public:
  Decompiler(const bef::SbfProgram* program, mlir::MLIRContext* context,
             mlir::Location error_loc)
      : program_(program),
        context_(context),
        error_loc_(error_loc),
        attributes_(program, context, error_loc),
        in_progress_(program->functions.size(), false) {}

  // Without RegisterTypes, the types of kernel results that are not a
  // function's results are unknown (`none`), the module is not verified,
  // and `*types_complete` says so.
  mlir::OwningOpRef<mlir::ModuleOp> Run(bool* types_complete);

 private:
  mlir::LogicalResult DecodeTypes(const std::vector<uint32_t>& indices,
                                  std::vector<mlir::Type>* types);
  // The type of each register: from RegisterTypes, or else what the
  // function's signature says of its arguments and results.
  std::vector<uint32_t> RegisterTypes(const bef::SbfFunction& function) const;
  mlir::FailureOr<mlir::Type> RegisterType(uint32_t type_index);
  mlir::LogicalResult CheckNesting(std::string_view text) const;
  mlir::FailureOr<mlir::DictionaryAttr> ParseDictionary(std::string_view text);
  mlir::LogicalResult SetAttributes(mlir::Operation* op,
                                    std::string_view dictionary);
  mlir::LogicalResult InsertCompiledModule(
      const bef::SbfCompiledModule& compiled, mlir::OpBuilder& builder);
  mlir::LogicalResult BuildBody(uint32_t function_index, mlir::Block* block);
  mlir::Location DecodeLocation(uint32_t index) const;
  mlir::OperationName OpName(std::string_view name) const;

  const bef::SbfProgram* program_;
  mlir::MLIRContext* context_;
  mlir::Location error_loc_;
  AttributeDecoder attributes_;
  // Region functions being rebuilt: a region that (through a hostile file)
  // contains itself would otherwise recurse forever.
  std::vector<bool> in_progress_;
  // Annotations of kernels, by function and kernel index.
  std::map<std::pair<uint32_t, uint32_t>, std::string_view> kernel_notes_;
};

mlir::OwningOpRef<mlir::ModuleOp> Decompiler::Run(bool* types_complete) {
  *types_complete = program_->has_register_types;
  if (!program_->has_register_types) {
    // TFRT's words: its format keeps attribute types and names in optional
    // sections too.
    mlir::emitWarning(error_loc_)
        << "Missing AttributeTypes, AttributeNames or RegisterTypes "
           "sections.";
  }
  for (const bef::SbfKernelAnnotation& note : program_->annotations.kernels) {
    kernel_notes_[{note.function, note.kernel}] = note.attributes;
  }
  context_->getOrLoadDialect<mlir::func::FuncDialect>();
  const mlir::Location unknown = mlir::UnknownLoc::get(context_);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(unknown);
  if (mlir::failed(
          SetAttributes(*module, program_->annotations.module_attributes))) {
    return nullptr;
  }
  mlir::OpBuilder builder = mlir::OpBuilder::atBlockEnd(module->getBody());
  auto insert_modules_at = [&](uint32_t position) {
    for (const bef::SbfCompiledModule& compiled : program_->compiled_modules) {
      if (compiled.position != position) continue;
      if (mlir::failed(InsertCompiledModule(compiled, builder))) {
        return mlir::failure();
      }
    }
    return mlir::success();
  };
  uint32_t position = 0;
  for (uint32_t i = 0; i < program_->functions.size(); ++i) {
    const bef::SbfFunction& function = program_->functions[i];
    if (function.kind == bef::FunctionKind::kRegion) continue;
    if (mlir::failed(insert_modules_at(position++))) return nullptr;
    std::vector<mlir::Type> arguments;
    std::vector<mlir::Type> results;
    if (mlir::failed(DecodeTypes(function.argument_types, &arguments)) ||
        mlir::failed(DecodeTypes(function.result_types, &results))) {
      return nullptr;
    }
    auto op = builder.create<mlir::func::FuncOp>(
        unknown, ToStringRef(function.name),
        builder.getFunctionType(arguments, results));
    if (function.kind == bef::FunctionKind::kNative) {
      // A declaration must be private to verify; natives are declarations.
      op.setPrivate();
      op->setAttr(kNativeAttribute, builder.getUnitAttr());
    }
    if (program_->has_annotations &&
        mlir::failed(
            SetAttributes(op, program_->annotations.function_attributes[i]))) {
      return nullptr;
    }
    if (function.kind == bef::FunctionKind::kNative) continue;
    if (mlir::failed(BuildBody(i, op.addEntryBlock()))) return nullptr;
  }
  // Modules after the last function.
  for (const bef::SbfCompiledModule& compiled : program_->compiled_modules) {
    if (compiled.position < position) continue;
    if (mlir::failed(InsertCompiledModule(compiled, builder))) return nullptr;
  }
  if (*types_complete && mlir::failed(mlir::verify(*module))) return nullptr;
  return module;
}

std::vector<uint32_t> Decompiler::RegisterTypes(
    const bef::SbfFunction& function) const {
  if (!function.register_types.empty()) return function.register_types;
  std::vector<uint32_t> types(function.num_registers, bef::kNone);
  for (size_t i = 0; i < function.argument_registers.size(); ++i) {
    types[function.argument_registers[i]] = function.argument_types[i];
  }
  for (size_t i = 0; i < function.result_registers.size(); ++i) {
    types[function.result_registers[i]] = function.result_types[i];
  }
  return types;
}

mlir::FailureOr<mlir::Type> Decompiler::RegisterType(uint32_t type_index) {
  if (type_index == bef::kNone) return mlir::NoneType::get(context_);
  return attributes_.DecodeType(type_index);
}

// Text from the file goes through MLIR's recursive parser: a hostile file
// must not nest it deeper than the compiler would have written it.
mlir::LogicalResult Decompiler::CheckNesting(std::string_view text) const {
  std::optional<SourceNestingError> error = FindExcessiveNesting(text);
  if (!error) return mlir::success();
  return mlir::emitError(error_loc_)
         << "annotation or module text at line " << error->line << ", column "
         << error->column << ": " << error->message;
}

mlir::FailureOr<mlir::DictionaryAttr> Decompiler::ParseDictionary(
    std::string_view text) {
  if (mlir::failed(CheckNesting(text))) return mlir::failure();
  auto dictionary = llvm::dyn_cast_or_null<mlir::DictionaryAttr>(
      mlir::parseAttribute(ToStringRef(text), context_));
  if (!dictionary) {
    return mlir::emitError(error_loc_) << "annotations '" << ToStringRef(text)
                                       << "' are not an attribute dictionary";
  }
  return dictionary;
}

mlir::LogicalResult Decompiler::SetAttributes(mlir::Operation* op,
                                              std::string_view dictionary) {
  if (dictionary.empty()) return mlir::success();
  mlir::FailureOr<mlir::DictionaryAttr> attributes =
      ParseDictionary(dictionary);
  if (mlir::failed(attributes)) return mlir::failure();
  for (mlir::NamedAttribute attribute : *attributes) {
    // A function's name and type come from the Functions section; a file
    // that annotates them too (none the compiler writes) must not replace
    // them with something of another kind.
    if (llvm::isa<mlir::func::FuncOp>(op) &&
        (attribute.getName() == "sym_name" ||
         attribute.getName() == "function_type")) {
      continue;
    }
    op->setAttr(attribute.getName(), attribute.getValue());
  }
  return mlir::success();
}

mlir::LogicalResult Decompiler::InsertCompiledModule(
    const bef::SbfCompiledModule& compiled, mlir::OpBuilder& builder) {
  if (mlir::failed(CheckNesting(compiled.text))) return mlir::failure();
  mlir::OwningOpRef<mlir::ModuleOp> nested =
      mlir::parseSourceString<mlir::ModuleOp>(ToStringRef(compiled.text),
                                              mlir::ParserConfig(context_),
                                              ToStringRef(compiled.name));
  if (!nested) {
    return mlir::emitError(error_loc_)
           << "compiled module '" << ToStringRef(compiled.name)
           << "' does not parse";
  }
  builder.insert(nested.release());
  return mlir::success();
}

mlir::LogicalResult Decompiler::DecodeTypes(
    const std::vector<uint32_t>& indices, std::vector<mlir::Type>* types) {
  for (uint32_t index : indices) {
    mlir::FailureOr<mlir::Type> type = attributes_.DecodeType(index);
    if (mlir::failed(type)) return mlir::failure();
    types->push_back(*type);
  }
  return mlir::success();
}

mlir::LogicalResult Decompiler::BuildBody(uint32_t function_index,
                                          mlir::Block* block) {
  const bef::SbfFunction& function = program_->functions[function_index];
  if (in_progress_[function_index]) {
    return mlir::emitError(error_loc_)
           << "region function " << function_index << " contains itself";
  }
  in_progress_[function_index] = true;

  // The reader checked that every register is defined once, before its
  // uses, so each use below finds its value.
  const std::vector<uint32_t> register_types = RegisterTypes(function);
  std::vector<mlir::Value> values(function.num_registers);
  for (size_t i = 0; i < function.argument_registers.size(); ++i) {
    values[function.argument_registers[i]] = block->getArgument(i);
  }
  // A region's block is not attached to an op yet, so the builder cannot
  // find the context through it.
  mlir::OpBuilder builder(context_);
  builder.setInsertionPointToEnd(block);
  for (size_t k = 0; k < function.kernels.size(); ++k) {
    const bef::SbfKernel& kernel = function.kernels[k];
    const mlir::Location location = DecodeLocation(kernel.location_index);
    mlir::OperationState state(
        location, OpName(program_->kernel_names[kernel.name_index]));
    for (uint32_t reg : kernel.operands) state.operands.push_back(values[reg]);
    for (uint32_t reg : kernel.results) {
      mlir::FailureOr<mlir::Type> type = RegisterType(register_types[reg]);
      if (mlir::failed(type)) return mlir::failure();
      state.types.push_back(*type);
    }
    for (size_t i = 0; i < kernel.attributes.size(); ++i) {
      mlir::FailureOr<mlir::Attribute> attribute =
          attributes_.Decode(kernel.attributes[i]);
      if (mlir::failed(attribute)) return mlir::failure();
      state.addAttribute(ToStringRef(kernel.attribute_names[i]), *attribute);
    }
    // Hints and references into compiled modules, which the kernel got in
    // another form or not at all, as they were written.
    if (auto note = kernel_notes_.find({function_index, k});
        note != kernel_notes_.end()) {
      mlir::FailureOr<mlir::DictionaryAttr> extra =
          ParseDictionary(note->second);
      if (mlir::failed(extra)) return mlir::failure();
      for (mlir::NamedAttribute attribute : *extra) {
        state.attributes.set(attribute.getName(), attribute.getValue());
      }
    }
    // Only region functions are regions; the other functions a kernel names
    // come from its symbol attributes, which were restored above.
    for (uint32_t callee : kernel.functions) {
      const bef::SbfFunction& region = program_->functions[callee];
      if (region.kind != bef::FunctionKind::kRegion) continue;
      std::vector<mlir::Type> arguments;
      if (mlir::failed(DecodeTypes(region.argument_types, &arguments))) {
        return mlir::failure();
      }
      auto body = std::make_unique<mlir::Block>();
      for (mlir::Type type : arguments) body->addArgument(type, location);
      mlir::Block* body_block = body.get();
      state.addRegion()->push_back(body.release());
      if (mlir::failed(BuildBody(callee, body_block))) return mlir::failure();
    }
    mlir::Operation* op = builder.create(state);
    for (size_t i = 0; i < kernel.results.size(); ++i) {
      values[kernel.results[i]] = op->getResult(i);
    }
  }
  mlir::OperationState state(mlir::UnknownLoc::get(context_),
                             OpName(ToStringRef(kReturnName)));
  for (uint32_t reg : function.result_registers) {
    state.operands.push_back(values[reg]);
  }
  builder.create(state);

  in_progress_[function_index] = false;
  return mlir::success();
}

mlir::Location Decompiler::DecodeLocation(uint32_t index) const {
  const bef::SbfLocation& location = program_->locations[index];
  mlir::Location base = mlir::UnknownLoc::get(context_);
  if (!location.file.empty()) {
    base = mlir::FileLineColLoc::get(context_, ToStringRef(location.file),
                                     location.line, location.column);
  }
  if (!location.has_debug_name) return base;
  return mlir::NameLoc::get(
      mlir::StringAttr::get(context_, ToStringRef(location.debug_name)), base);
}

mlir::OperationName Decompiler::OpName(std::string_view name) const {
  // A dialect that is registered but not yet loaded would leave the op
  // unregistered and print it generically even where it has custom syntax.
  const llvm::StringRef full = ToStringRef(name);
  context_->getOrLoadDialect(full.split('.').first);
  return mlir::OperationName(full, context_);
}

}  // namespace

mlir::OwningOpRef<mlir::ModuleOp> DecompileSbf(absl::Span<const uint8_t> bytes,
                                               mlir::MLIRContext* context,
                                               std::string_view source_name,
                                               bool* types_complete) {
  const mlir::Location error_loc =
      source_name.empty() ? mlir::Location(mlir::UnknownLoc::get(context))
                          : mlir::Location(mlir::FileLineColLoc::get(
                                context, ToStringRef(source_name), 0, 0));
  // The reader wants 8-aligned bytes; decompiling is rare enough that a
  // copy costs nothing worth avoiding when they are not.
  std::vector<uint64_t> aligned;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % 8 != 0) {
    aligned.resize((bytes.size() + 7) / 8);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    bytes = absl::Span<const uint8_t>(
        reinterpret_cast<const uint8_t*>(aligned.data()), bytes.size());
  }
  absl::StatusOr<bef::SbfProgram> program = bef::ReadSbf(bytes);
  if (!program.ok()) {
    mlir::emitError(error_loc) << std::string(program.status().message());
    return nullptr;
  }
  // Every op comes back, known to the context's dialects or not.
  context->allowUnregisteredDialects();
  bool complete = true;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      Decompiler(&*program, context, error_loc).Run(&complete);
  if (types_complete != nullptr) *types_complete = complete;
  return module;
}

}  // namespace sluice
