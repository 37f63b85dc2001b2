// The command line every Sluice tool handles the same way, without LLVM:
// --help shows the tool's own flags, --version prints the same project
// version on every tool, flag errors are one line naming the tool, and
// relative paths work under `bazel run`.
#ifndef SLUICE_TOOLS_COMMON_TOOL_FLAGS_H_
#define SLUICE_TOOLS_COMMON_TOOL_FLAGS_H_

#include <string>
#include <string_view>

#include "tools/common/flags.h"

namespace sluice::tools {

// The project's version, the same for every tool.
extern const char kSluiceVersion[];

// "TOOL (Sluice) VERSION" and a newline, as --version prints it.
std::string VersionText(const std::string& tool);

// `bazel run` starts a tool in its runfiles folder and names the caller's
// folder in BUILD_WORKING_DIRECTORY: the tool moves there, so that paths on
// its command line mean what the caller meant.
void EnterCallersDirectory();

// Names `tool` in flag errors (flag_checks.h), enters the caller's
// directory, then parses the command line into `flags`. Exits on an error
// (ExitWithFlagError), and with 0 after printing --help's text (with
// `overview`) or --version's (`version`, VersionText(tool) when empty).
void ParseToolCommandLine(int argc, char** argv, const std::string& tool,
                          std::string_view overview, FlagSet& flags,
                          const std::string& version = "");

}  // namespace sluice::tools

#endif  // SLUICE_TOOLS_COMMON_TOOL_FLAGS_H_
