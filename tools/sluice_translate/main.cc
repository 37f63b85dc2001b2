// sluice_translate: MLIR host programs to SBF files (--mlir-to-sbf) and back
// (--sbf-to-mlir). MLIR's translate driver supplies the input and output
// handling, -split-input-file, -verify-diagnostics and the printing flags.
#include <cstdint>
#include <memory>
#include <vector>

#include "dialects/register.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "sluice/compiler/sbf_decompiler.h"
#include "sluice/compiler/sbf_emitter.h"
#include "sluice/compiler/source_nesting.h"
#include "tools/common/command_line.h"

namespace {

// The tool's own options; --help shows them, MLIR's (registered by
// mlirTranslateMain) and none of libLLVM's.
llvm::cl::OptionCategory category("Options");

llvm::cl::opt<bool> disable_optional_sections(
    "disable-optional-sections",
    llvm::cl::desc("Leave out the sections only needed to decompile "
                   "(RegisterTypes)"),
    llvm::cl::init(false), llvm::cl::cat(category));

void RegisterDialects(mlir::DialectRegistry& registry) {
  sluice::RegisterSluiceDialects(registry);
}

// Registered as a raw translation rather than through
// TranslateFromMLIRRegistration, which parses before any code of ours runs:
// the text must pass CheckSourceNesting before MLIR's recursive parser sees
// it. Each -split-input-file chunk arrives here as its own buffer.
mlir::LogicalResult MlirToSbf(
    const std::shared_ptr<llvm::SourceMgr>& source_mgr,
    llvm::raw_ostream& output, mlir::MLIRContext* context) {
  mlir::DialectRegistry registry;
  RegisterDialects(registry);
  context->appendDialectRegistry(registry);
  // As TFRT's translator: a custom kernel needs a C++ registration, not an
  // MLIR dialect, so ops of unknown dialects compile in generic form.
  context->allowUnregisteredDialects();
  if (mlir::failed(sluice::CheckSourceNesting(
          *source_mgr, source_mgr->getMainFileID(), context))) {
    return mlir::failure();
  }
  // Parsing verifies; top-level ops outside a module get one around them.
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(source_mgr,
                                            mlir::ParserConfig(context));
  if (!module) return mlir::failure();
  mlir::FailureOr<std::vector<uint8_t>> bytes =
      sluice::CompileModuleToSbf(*module, !disable_optional_sections);
  if (mlir::failed(bytes)) return mlir::failure();
  output.write(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  return mlir::success();
}

// A program whose kernels' types could not all be recovered (compiled with
// --disable-optional-sections) is printed in generic form, which does not
// need them to verify.
mlir::OpPrintingFlags DecompiledPrintingFlags(bool types_complete) {
  mlir::OpPrintingFlags flags;
  if (!types_complete) flags.printGenericOpForm().assumeVerified();
  return flags;
}

// Prints the module itself rather than through TranslateToMLIRRegistration,
// so the output ends in a newline like sluice_opt's and the two can be
// compared with diff. The printing flags (-mlir-print-op-generic,
// -mlir-print-debuginfo) still come from the command line.
mlir::LogicalResult SbfToMlir(
    const std::shared_ptr<llvm::SourceMgr>& source_mgr,
    llvm::raw_ostream& output, mlir::MLIRContext* context) {
  mlir::DialectRegistry registry;
  RegisterDialects(registry);
  context->appendDialectRegistry(registry);
  const llvm::MemoryBuffer* buffer =
      source_mgr->getMemoryBuffer(source_mgr->getMainFileID());
  bool types_complete = true;
  mlir::OwningOpRef<mlir::ModuleOp> module = sluice::DecompileSbf(
      absl::Span<const uint8_t>(
          reinterpret_cast<const uint8_t*>(buffer->getBufferStart()),
          buffer->getBufferSize()),
      context, buffer->getBufferIdentifier().str(), &types_complete);
  if (!module) return mlir::failure();
  module->print(output, DecompiledPrintingFlags(types_complete));
  output << "\n";
  return mlir::success();
}

}  // namespace

int main(int argc, char** argv) {
  sluice::tools::HideLibraryOptions(category);
  sluice::tools::SetVersionPrinter("sluice_translate");
  sluice::tools::EnterCallersDirectory();
  static mlir::TranslateRegistration to_sbf(
      "mlir-to-sbf", "Compile an MLIR host program to an SBF file", MlirToSbf);
  static mlir::TranslateRegistration from_sbf(
      "sbf-to-mlir", "Print an SBF file back as MLIR", SbfToMlir);
  return mlir::failed(
             mlir::mlirTranslateMain(argc, argv, "Sluice translation tool"))
             ? 1
             : 0;
}
