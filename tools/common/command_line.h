// The command line of the tools built on MLIR (sluice_opt,
// sluice_translate), which keep LLVM's parser because MLIR registers its
// options there: --help shows the tool's and MLIR's options only, and
// --version prints the project's version with LLVM's. The other tools
// parse their flags with tool_flags.h.
#ifndef SLUICE_TOOLS_COMMON_COMMAND_LINE_H_
#define SLUICE_TOOLS_COMMON_COMMAND_LINE_H_

#include <string>

#include "llvm/Support/CommandLine.h"
#include "tools/common/tool_flags.h"

namespace sluice::tools {

// VersionText(tool) and the LLVM/MLIR version the tool was built with, two
// lines: what the tools that link MLIR print for --version.
std::string VersionTextWithLlvm(const std::string& tool);

// Makes LLVM's --version print VersionTextWithLlvm(tool).
void SetVersionPrinter(const std::string& tool);

// Hides from --help every option registered so far that is neither in
// `category` nor one of LLVM's generic options (--help, --version): these
// are the options libLLVM registers for its code generators and passes,
// which a Sluice tool never uses. Options registered later (MLIR's, by the
// MLIR drivers) stay visible. Hidden options still parse.
void HideLibraryOptions(llvm::cl::OptionCategory& category);

}  // namespace sluice::tools

#endif  // SLUICE_TOOLS_COMMON_COMMAND_LINE_H_
