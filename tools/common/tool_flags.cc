#include "tools/common/tool_flags.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sluice/support/liveness.h"
#include "sluice/support/tls.h"
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
// setting and the one TLS setting. The flags live as long as the process,
// as the FlagSet refers to them.
struct ConnectionFlags {
  ConnectionFlags(FlagSet& flags, int64_t liveness_ms,
                  const TlsConfig& tls)
      : liveness(flags, "liveness_timeout_ms",
                 "how long a connection between Sluice processes may stay "
                 "silent (a vanished host, a partition, a stopped process) "
                 "before its calls fail, whatever their deadlines; the "
                 "default is SLUICE_LIVENESS_TIMEOUT_MS, otherwise 3000",
                 liveness_ms,
                 InRange<int64_t>(
                     absl::ToInt64Milliseconds(kMinLivenessTimeout),
                     absl::ToInt64Milliseconds(kMaxLivenessTimeout))),
        tls_cert(flags, "tls_cert",
                 "this process's certificate (PEM) for mutual TLS on every "
                 "connection it makes or serves, with --tls_key and --tls_ca; "
                 "default SLUICE_TLS_CERT (docs/security.md)",
                 tls.cert_file),
        tls_key(flags, "tls_key",
                "the private key of --tls_cert (PEM); default SLUICE_TLS_KEY",
                tls.key_file),
        tls_ca(flags, "tls_ca",
               "the CA (PEM) that signs every peer's certificate; default "
               "SLUICE_TLS_CA",
               tls.ca_file),
        insecure(flags, "insecure",
                 "let a server listen on an address other than loopback "
                 "without TLS, where anyone who reaches it is served (said "
                 "as a warning at start); default SLUICE_INSECURE=1",
                 InsecureListeningAllowed()) {}

  // Applies the flags to the process and exports them, so that the
  // processes a tool starts (the launcher's ranks) take the same.
  void Apply() const {
    SetLivenessTimeout(absl::Milliseconds(*liveness));
    if (liveness.given()) {
      setenv("SLUICE_LIVENESS_TIMEOUT_MS", std::to_string(*liveness).c_str(),
             /*overwrite=*/1);
    }
    TlsConfig tls{*tls_cert, *tls_key, *tls_ca};
    if (absl::Status set = SetTlsConfig(tls); !set.ok()) {
      ExitWithFlagError(set);
    }
    for (const auto& [name, flag] :
         {std::pair{"SLUICE_TLS_CERT", &tls_cert},
          std::pair{"SLUICE_TLS_KEY", &tls_key},
          std::pair{"SLUICE_TLS_CA", &tls_ca}}) {
      setenv(name, flag->value().c_str(), /*overwrite=*/1);
    }
    AllowInsecureListening(*insecure);
    if (*insecure) setenv("SLUICE_INSECURE", "1", /*overwrite=*/1);
  }

  Flag<int64_t> liveness;
  Flag<std::string> tls_cert;
  Flag<std::string> tls_key;
  Flag<std::string> tls_ca;
  Flag<bool> insecure;
};

ConnectionFlags& AddConnectionFlags(FlagSet& flags) {
  absl::StatusOr<absl::Duration> from_environment =
      LivenessTimeoutFromEnvironment();
  if (!from_environment.ok()) ExitWithFlagError(from_environment.status());
  static std::optional<ConnectionFlags> connection;
  connection.emplace(flags, absl::ToInt64Milliseconds(*from_environment),
                     TlsConfigInEnvironment());
  return *connection;
}

}  // namespace

void ParseToolCommandLine(int argc, char** argv, const std::string& tool,
                          std::string_view overview, FlagSet& flags,
                          const std::string& version) {
  SetFlagErrorTool(tool);
  EnterCallersDirectory();
  ConnectionFlags& connection = AddConnectionFlags(flags);
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  absl::StatusOr<FlagSet::Parsed> parsed = flags.Parse(tool, args);
  if (!parsed.ok()) ExitWithFlagError(parsed.status());
  for (const std::string& warning : parsed->warnings) {
    std::fprintf(stderr, "%s: %s\n", tool.c_str(), warning.c_str());
  }
  switch (parsed->action) {
    case FlagSet::Action::kRun:
      connection.Apply();
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
