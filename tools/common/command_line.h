// Command-line handling every Sluice tool shares: --help shows the tool's own
// options only, --version prints the same project version on every tool, and
// relative paths work under `bazel run`.
#ifndef SLUICE_TOOLS_COMMON_COMMAND_LINE_H_
#define SLUICE_TOOLS_COMMON_COMMAND_LINE_H_

#include <string>

#include "llvm/Support/CommandLine.h"

namespace sluice::tools {

// The project's version, the same for every tool.
extern const char kSluiceVersion[];

// "TOOL (Sluice) VERSION" and the LLVM/MLIR version the tool was built
// with, two lines, as --version prints them.
std::string VersionText(const std::string& tool);

// Makes --version print VersionText(tool).
void SetVersionPrinter(const std::string& tool);

// Hides from --help every option registered so far that is neither in
// `category` nor one of LLVM's generic options (--help, --version): these
// are the options libLLVM registers for its code generators and passes,
// which a Sluice tool never uses. Options registered later (MLIR's, by the
// MLIR drivers) stay visible. Hidden options still parse.
void HideLibraryOptions(llvm::cl::OptionCategory& category);

// `bazel run` starts a tool in its runfiles folder and names the caller's
// folder in BUILD_WORKING_DIRECTORY: the tool moves there, so that paths on
// its command line mean what the caller meant.
void EnterCallersDirectory();

// All of the above, and names `tool` in the errors of flags out of range
// (flag_checks.h); then parses the command line (exiting on errors, on
// --help and on --version, as LLVM's parser does).
void ParseToolCommandLine(int argc, char** argv, const std::string& tool,
                          const char* overview,
                          llvm::cl::OptionCategory& category);

}  // namespace sluice::tools

#endif  // SLUICE_TOOLS_COMMON_COMMAND_LINE_H_
