// sluice_opt: mlir-opt with Sluice's dialects, for testing parsing, printing,
// verification and the passes Sluice programs go through.
//
// MlirOptMain parses the input before any code of ours could look at it, so
// the input is read and checked against the nesting limit first
// (sluice/compiler/source_nesting.h) and handed over only if it passes.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "dialects/register.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "sluice/compiler/source_nesting.h"
#include "sluice/support/file_reading.h"
#include "tools/common/command_line.h"

namespace {

// Prints the error as MLIR's diagnostics look (`file:line:col: error: ...`
// and the source line) and returns false if `buffer` nests too deeply. The
// whole input is checked, -split-input-file or not: a chunk that leaves
// brackets open only makes the next one stricter.
bool CheckNesting(std::unique_ptr<llvm::MemoryBuffer> buffer,
                  llvm::SourceMgr& source_mgr) {
  const llvm::StringRef text = buffer->getBuffer();
  std::optional<sluice::SourceNestingError> error =
      sluice::FindExcessiveNesting(std::string_view(text.data(), text.size()));
  if (!error) return true;
  const llvm::SMLoc location =
      llvm::SMLoc::getFromPointer(text.data() + error->offset);
  source_mgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  source_mgr.PrintMessage(llvm::errs(), location, llvm::SourceMgr::DK_Error,
                          error->message);
  return false;
}

int Run(int argc, char** argv, mlir::DialectRegistry& registry) {
  const char* const tool_name = "Sluice MLIR driver\n";
  auto [input_filename, output_filename] =
      mlir::registerAndParseCLIOptions(argc, argv, tool_name, registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    // Reads no input, so nothing to check.
    return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input_filename,
                                                    output_filename, registry));
  }
  // Read here rather than by MLIR, which would read /dev/zero until memory
  // runs out.
  absl::StatusOr<std::string> text = sluice::ReadToolInput(input_filename);
  if (!text.ok()) {
    llvm::errs() << "sluice_opt: " << std::string(text.status().message())
                 << "\n";
    return 1;
  }
  std::unique_ptr<llvm::MemoryBuffer> input =
      llvm::MemoryBuffer::getMemBufferCopy(
          *text, input_filename == "-" ? std::string("<stdin>")
                                       : std::string(input_filename));
  text->clear();
  llvm::SourceMgr error_source_mgr;
  if (!CheckNesting(llvm::MemoryBuffer::getMemBuffer(
                        input->getBuffer(), input->getBufferIdentifier()),
                    error_source_mgr)) {
    return 1;
  }
  std::string error_message;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(output_filename, &error_message);
  if (!output) {
    llvm::errs() << error_message << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                                     config))) {
    return 1;
  }
  output->keep();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  // The tool has no options of its own: --help shows MLIR's, registered
  // below and by MlirOptMain, and none of libLLVM's.
  static llvm::cl::OptionCategory no_options("Options");
  sluice::tools::HideLibraryOptions(no_options);
  sluice::tools::SetVersionPrinter("sluice_opt");
  sluice::tools::EnterCallersDirectory();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerSymbolDCEPass();

  mlir::DialectRegistry registry;
  sluice::RegisterSluiceDialects(registry);
  return Run(argc, argv, registry);
}
