#include "sluice/compiler/compile_source.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "sluice/compiler/sbf_emitter.h"
#include "sluice/compiler/source_nesting.h"

namespace sluice {
namespace {

// `file:line:col: error: message`, the form the printed diagnostic starts
// with, so a caller that only shows the status still points at the source.
std::string FormatError(const mlir::Diagnostic& diagnostic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto position =
          diagnostic.getLocation()->findInstanceOf<mlir::FileLineColLoc>()) {
    os << position.getFilename().getValue() << ":" << position.getLine() << ":"
       << position.getColumn() << ": ";
  }
  os << "error: " << diagnostic.str();
  return os.str();
}

}  // namespace

absl::StatusOr<std::vector<uint8_t>> CompileMlirToSbf(
    std::string_view source, std::string_view filename,
    mlir::DialectRegistry& registry, const CompileSourceOptions& options) {
  // One program, parsed once: a thread pool would cost more than it saves.
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(options.allow_unregistered_dialects);
  context.getOrLoadDialect<mlir::func::FuncDialect>();
  // The error and its source line say enough; a dump of the op after each
  // would bury them.
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr source_mgr;
  source_mgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(source.data(), source.size()),
          llvm::StringRef(filename.data(), filename.size())),
      llvm::SMLoc());
  llvm::raw_ostream& diagnostics_os =
      options.diagnostics != nullptr ? *options.diagnostics : llvm::errs();
  mlir::SourceMgrDiagnosticHandler printer(source_mgr, &context,
                                           diagnostics_os);
  // Registered after the printer, so it sees each diagnostic first; it
  // records the first error and lets the printer print it.
  std::string first_error;
  mlir::ScopedDiagnosticHandler recorder(
      &context, [&](mlir::Diagnostic& diagnostic) {
        if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error &&
            first_error.empty()) {
          first_error = FormatError(diagnostic);
        }
        return mlir::failure();
      });

  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (mlir::succeeded(CheckSourceNesting(source_mgr, source_mgr.getMainFileID(),
                                         &context))) {
    module = mlir::parseSourceFile<mlir::ModuleOp>(
        source_mgr, mlir::ParserConfig(&context));
  }
  if (module) {
    mlir::FailureOr<std::vector<uint8_t>> bytes =
        CompileModuleToSbf(*module, options.include_optional_sections);
    if (mlir::succeeded(bytes) && first_error.empty()) {
      return *std::move(bytes);
    }
  }
  if (first_error.empty()) {
    first_error = "error: failed to compile " + std::string(filename);
  }
  return absl::InvalidArgumentError(first_error);
}

}  // namespace sluice
