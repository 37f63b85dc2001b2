#include "tools/common/tool_flags.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "sluice/support/liveness.h"
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

namespace {

// Every tool connects to something, or serves: each takes the one liveness
// setting. The flag lives as long as the process, as the FlagSet refers to
// it.
Flag<int64_t>& AddLivenessFlag(FlagSet& flags) {
  absl::StatusOr<absl::Duration> from_environment =
      LivenessTimeoutFromEnvironment();
  if (!from_environment.ok()) ExitWithFlagError(from_environment.status());
  static std::optional<Flag<int64_t>> liveness;
  liveness.emplace(
      flags, "liveness_timeout_ms",
      "how long a connection between Sluice processes may stay silent (a "
      "vanished host, a partition, a stopped process) before its calls "
      "fail, whatever their deadlines; the default is "
      "SLUICE_LIVENESS_TIMEOUT_MS, otherwise 3000",
      absl::ToInt64Milliseconds(*from_environment),
      InRange<int64_t>(absl::ToInt64Milliseconds(kMinLivenessTimeout),
                       absl::ToInt64Milliseconds(kMaxLivenessTimeout)));
  return *liveness;
}

}  // namespace

void ParseToolCommandLine(int argc, char** argv, const std::string& tool,
                          std::string_view overview, FlagSet& flags,
                          const std::string& version) {
  SetFlagErrorTool(tool);
  EnterCallersDirectory();
  Flag<int64_t>& liveness = AddLivenessFlag(flags);
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  absl::StatusOr<FlagSet::Parsed> parsed = flags.Parse(tool, args);
  if (!parsed.ok()) ExitWithFlagError(parsed.status());
  for (const std::string& warning : parsed->warnings) {
    std::fprintf(stderr, "%s: %s\n", tool.c_str(), warning.c_str());
  }
  switch (parsed->action) {
    case FlagSet::Action::kRun:
      SetLivenessTimeout(absl::Milliseconds(*liveness));
      // The processes a tool starts (the launcher's ranks) take the same.
      if (liveness.given()) {
        setenv("SLUICE_LIVENESS_TIMEOUT_MS", std::to_string(*liveness).c_str(),
               /*overwrite=*/1);
      }
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
