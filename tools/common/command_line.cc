#include "tools/common/command_line.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

namespace sluice::tools {

std::string VersionTextWithLlvm(const std::string& tool) {
  return VersionText(tool) + "  built with LLVM and MLIR " LLVM_VERSION_STRING
                             "\n";
}

void SetVersionPrinter(const std::string& tool) {
  llvm::cl::SetVersionPrinter(
      [tool](llvm::raw_ostream& os) { os << VersionTextWithLlvm(tool); });
}

void HideLibraryOptions(llvm::cl::OptionCategory& category) {
  // HideUnrelatedOptions keeps `category` and LLVM's generic options.
  llvm::cl::HideUnrelatedOptions(category);
}

}  // namespace sluice::tools
