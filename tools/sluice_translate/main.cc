// sluice_translate: MLIR host programs to SBF files (--mlir-to-sbf) and back
// (--sbf-to-mlir), with mlir-translate's -o, -split-input-file,
// -verify-diagnostics and printing flags. The driver is our own rather than
// mlirTranslateMain, which reads its input before any code of ours runs and
// so would read /dev/zero until memory runs out: here the input is read
// with the size limit every tool shares.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "dialects/register.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "sluice/compiler/sbf_decompiler.h"
#include "sluice/compiler/sbf_emitter.h"
#include "sluice/compiler/source_nesting.h"
#include "sluice/support/file_reading.h"
#include "tools/common/command_line.h"

namespace {

namespace cl = llvm::cl;

// The tool's own options; --help shows them, MLIR's printing and context
// options, and none of libLLVM's.
cl::OptionCategory category("Options");

enum class Translation { kMlirToSbf, kSbfToMlir };

cl::opt<Translation> translation(
    cl::desc("Translation to perform"),
    cl::values(clEnumValN(Translation::kMlirToSbf, "mlir-to-sbf",
                          "Compile an MLIR host program to an SBF file"),
               clEnumValN(Translation::kSbfToMlir, "sbf-to-mlir",
                          "Print an SBF file back as MLIR")),
    cl::Required, cl::cat(category));
cl::opt<std::string> input_filename(cl::Positional, cl::desc("<input file>"),
                                    cl::init("-"), cl::cat(category));
cl::opt<std::string> output_filename("o", cl::desc("Output filename"),
                                     cl::value_desc("filename"), cl::init("-"),
                                     cl::cat(category));
cl::opt<std::string> split_input_file(
    "split-input-file", cl::ValueOptional,
    cl::callback([](const std::string& marker) {
      // Given without a value: MLIR's usual marker.
      if (marker.empty()) split_input_file.setValue(mlir::kDefaultSplitMarker);
    }),
    cl::desc("Split the input into chunks at the given marker (default "
             "'// -----') and translate each on its own"),
    cl::init(""), cl::cat(category));
cl::opt<bool> verify_diagnostics(
    "verify-diagnostics",
    cl::desc("Check that the diagnostics match the expected-* annotations "
             "of their lines"),
    cl::init(false), cl::cat(category));
// Ops of unknown dialects always compile (see MlirToSbf); the flag stays so
// that mlir-translate command lines keep working.
cl::opt<bool> allow_unregistered_dialect(
    "allow-unregistered-dialect",
    cl::desc("Allow operations of unregistered dialects (always on)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> disable_optional_sections(
    "disable-optional-sections",
    cl::desc("Leave out the sections only needed to decompile "
             "(RegisterTypes)"),
    cl::init(false), cl::cat(category));

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

// Translates one chunk of the input, reporting diagnostics as
// mlir-translate does (or checking them, under -verify-diagnostics).
mlir::LogicalResult TranslateChunk(std::unique_ptr<llvm::MemoryBuffer> chunk,
                                   llvm::raw_ostream& output) {
  mlir::MLIRContext context;
  context.printOpOnDiagnostic(!verify_diagnostics);
  auto source_mgr = std::make_shared<llvm::SourceMgr>();
  source_mgr->AddNewSourceBuffer(std::move(chunk), llvm::SMLoc());
  auto translate = [&] {
    return translation == Translation::kMlirToSbf
               ? MlirToSbf(source_mgr, output, &context)
               : SbfToMlir(source_mgr, output, &context);
  };
  if (verify_diagnostics) {
    // A translation expected to fail may fail: only the diagnostics count.
    mlir::SourceMgrDiagnosticVerifierHandler handler(*source_mgr, &context);
    (void)translate();
    return handler.verify();
  }
  mlir::SourceMgrDiagnosticHandler handler(*source_mgr, &context);
  return translate();
}

int Run() {
  absl::StatusOr<std::string> text = sluice::ReadToolInput(input_filename);
  if (!text.ok()) {
    llvm::errs() << "sluice_translate: " << std::string(text.status().message())
                 << "\n";
    return 1;
  }
  std::unique_ptr<llvm::MemoryBuffer> input =
      llvm::MemoryBuffer::getMemBufferCopy(
          *text, input_filename == "-" ? std::string("<stdin>")
                                       : input_filename.getValue());
  text->clear();
  std::string error_message;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(output_filename, &error_message);
  if (!output) {
    llvm::errs() << "sluice_translate: " << error_message << "\n";
    return 1;
  }
  if (mlir::failed(mlir::splitAndProcessBuffer(std::move(input), TranslateChunk,
                                               output->os(), split_input_file,
                                               /*outputSplitMarker=*/""))) {
    return 1;
  }
  output->keep();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  sluice::tools::SetVersionPrinter("sluice_translate");
  // Hides libLLVM's options; MLIR's, registered next, stay in --help.
  sluice::tools::HideLibraryOptions(category);
  sluice::tools::EnterCallersDirectory();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "Sluice translation tool\n");
  return Run();
}
