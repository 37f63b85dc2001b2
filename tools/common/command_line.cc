#include "tools/common/command_line.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"
#include "tools/common/flag_checks.h"

namespace sluice::tools {

const char kSluiceVersion[] = "0.1.0";

std::string VersionText(const std::string& tool) {
  return tool + " (Sluice) " + kSluiceVersion +
         "\n  built with LLVM and MLIR " LLVM_VERSION_STRING "\n";
}

void SetVersionPrinter(const std::string& tool) {
  llvm::cl::SetVersionPrinter(
      [tool](llvm::raw_ostream& os) { os << VersionText(tool); });
}

void HideLibraryOptions(llvm::cl::OptionCategory& category) {
  // HideUnrelatedOptions keeps `category` and LLVM's generic options.
  llvm::cl::HideUnrelatedOptions(category);
}

void EnterCallersDirectory() {
  const char* callers = std::getenv("BUILD_WORKING_DIRECTORY");
  if (callers == nullptr || *callers == '\0') return;
  if (chdir(callers) != 0) {
    // The paths then resolve against the runfiles folder, and say so when
    // they are not found there.
    std::fprintf(stderr, "warning: couldn't enter '%s': %s\n", callers,
                 std::strerror(errno));
  }
}

void ParseToolCommandLine(int argc, char** argv, const std::string& tool,
                          const char* overview,
                          llvm::cl::OptionCategory& category) {
  SetVersionPrinter(tool);
  SetFlagErrorTool(tool);
  HideLibraryOptions(category);
  EnterCallersDirectory();
  llvm::cl::ParseCommandLineOptions(argc, argv, overview);
}

}  // namespace sluice::tools
