#include "tools/common/tool_flags.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tools/common/flag_checks.h"

namespace sluice::tools {

const char kSluiceVersion[] = "0.1.0";

std::string VersionText(const std::string& tool) {
  return tool + " (Sluice) " + kSluiceVersion + "\n";
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
                          std::string_view overview, FlagSet& flags,
                          const std::string& version) {
  SetFlagErrorTool(tool);
  EnterCallersDirectory();
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  absl::StatusOr<FlagSet::Parsed> parsed = flags.Parse(tool, args);
  if (!parsed.ok()) ExitWithFlagError(parsed.status());
  for (const std::string& warning : parsed->warnings) {
    std::fprintf(stderr, "%s: %s\n", tool.c_str(), warning.c_str());
  }
  switch (parsed->action) {
    case FlagSet::Action::kRun:
      return;
    case FlagSet::Action::kHelp:
      std::fputs(flags.Help(tool, overview).c_str(), stdout);
      break;
    case FlagSet::Action::kVersion:
      std::fputs((version.empty() ? VersionText(tool) : version).c_str(),
                 stdout);
      break;
  }
  std::fflush(stdout);
  std::exit(0);
}

}  // namespace sluice::tools
