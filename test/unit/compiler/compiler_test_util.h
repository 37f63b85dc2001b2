// Helpers shared by the compiler tests: parse MLIR text without Sluice's
// dialects (unregistered ops stand in for them), compile it and read the
// result back with the SBF reader.
#ifndef SLUICE_TEST_UNIT_COMPILER_COMPILER_TEST_UTIL_H_
#define SLUICE_TEST_UNIT_COMPILER_COMPILER_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/compiler/sbf_emitter.h"

namespace sluice {
namespace testing {

// A context like the tools' but without Sluice's dialects: the compiler
// must not depend on them.
inline std::unique_ptr<mlir::MLIRContext> MakeContext() {
  auto context = std::make_unique<mlir::MLIRContext>(
      mlir::MLIRContext::Threading::DISABLED);
  context->allowUnregisteredDialects(true);
  context->getOrLoadDialect<mlir::func::FuncDialect>();
  return context;
}

inline mlir::OwningOpRef<mlir::ModuleOp> Parse(mlir::MLIRContext* context,
                                               std::string_view text) {
  return mlir::parseSourceString<mlir::ModuleOp>(
      llvm::StringRef(text.data(), text.size()), mlir::ParserConfig(context),
      "test.mlir");
}

// Bytes and the program that views them, kept together.
struct Compiled {
  std::vector<uint8_t> bytes;
  bef::SbfProgram program;

  const bef::SbfFunction& Function(std::string_view name) const {
    for (const bef::SbfFunction& function : program.functions) {
      if (function.name == name) return function;
    }
    ADD_FAILURE() << "no function " << name;
    static const bef::SbfFunction* const kEmpty = new bef::SbfFunction();
    return *kEmpty;
  }
  std::string_view KernelName(const bef::SbfKernel& kernel) const {
    return program.kernel_names[kernel.name_index];
  }
  std::string_view Type(uint32_t index) const { return program.types[index]; }
  bef::SbfAttribute Attribute(const bef::SbfKernel& kernel,
                              std::string_view name) const {
    for (size_t i = 0; i < kernel.attribute_names.size(); ++i) {
      if (kernel.attribute_names[i] == name) {
        return program.GetAttribute(kernel.attributes[i]);
      }
    }
    ADD_FAILURE() << "no attribute " << name;
    return bef::SbfAttribute{bef::AttributeType::kUnit, 0, nullptr};
  }
};

// Compiles `text`, which must succeed, and reads the file back.
inline std::unique_ptr<Compiled> Compile(
    std::string_view text, bool include_optional_sections = true) {
  std::unique_ptr<mlir::MLIRContext> context = MakeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module = Parse(context.get(), text);
  if (!module) {
    ADD_FAILURE() << "cannot parse:\n" << text;
    return nullptr;
  }
  mlir::FailureOr<std::vector<uint8_t>> bytes =
      CompileModuleToSbf(*module, include_optional_sections);
  if (mlir::failed(bytes)) {
    ADD_FAILURE() << "cannot compile:\n" << text;
    return nullptr;
  }
  auto compiled = std::make_unique<Compiled>();
  compiled->bytes = *std::move(bytes);
  absl::StatusOr<bef::SbfProgram> program = bef::ReadSbf(compiled->bytes);
  if (!program.ok()) {
    ADD_FAILURE() << "the reader rejects the file: " << program.status();
    return nullptr;
  }
  compiled->program = *std::move(program);
  return compiled;
}

// The errors compiling `text` reports, each as "line:col: message". Parse
// errors are returned the same way.
inline std::vector<std::string> CompileErrors(std::string_view text) {
  std::unique_ptr<mlir::MLIRContext> context = MakeContext();
  std::vector<std::string> errors;
  mlir::ScopedDiagnosticHandler handler(
      context.get(), [&](mlir::Diagnostic& diagnostic) {
        if (diagnostic.getSeverity() != mlir::DiagnosticSeverity::Error) {
          return mlir::success();
        }
        std::string error;
        llvm::raw_string_ostream os(error);
        if (auto position = diagnostic.getLocation()
                                ->findInstanceOf<mlir::FileLineColLoc>()) {
          os << position.getLine() << ":" << position.getColumn() << ": ";
        }
        os << diagnostic.str();
        errors.push_back(os.str());
        return mlir::success();
      });
  mlir::OwningOpRef<mlir::ModuleOp> module = Parse(context.get(), text);
  if (module) {
    const bool failed = mlir::failed(CompileModuleToSbf(*module));
    EXPECT_EQ(failed, !errors.empty()) << "failure without a diagnostic, or "
                                          "a diagnostic without failure";
  }
  return errors;
}

template <typename T>
T Scalar(const bef::SbfAttribute& attribute, size_t index = 0) {
  T value;
  std::memcpy(&value, static_cast<const T*>(attribute.data) + index, sizeof(T));
  return value;
}

inline std::string_view StringData(const bef::SbfAttribute& attribute) {
  return std::string_view(static_cast<const char*>(attribute.data),
                          attribute.count);
}

}  // namespace testing
}  // namespace sluice

#endif  // SLUICE_TEST_UNIT_COMPILER_COMPILER_TEST_UTIL_H_
