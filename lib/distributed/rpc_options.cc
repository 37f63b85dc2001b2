#include "sluice/distributed/rpc_options.h"

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"

namespace sluice::dist {

absl::StatusOr<FailFastPolicy> ParseFailFastPolicy(std::string_view text) {
  if (text == "use_caller") return FailFastPolicy::kUseCaller;
  if (text == "true" || text == "1") return FailFastPolicy::kTrue;
  if (text == "false" || text == "0") return FailFastPolicy::kFalse;
  return absl::InvalidArgumentError(
      absl::StrCat("bad fail-fast policy '", std::string(text),
                   "': expected true, false or use_caller"));
}

absl::StatusOr<FailFastPolicy> FailFastPolicyFromEnvironment() {
  for (const char* name : {"SLUICE_RPC_FAIL_FAST", "GRPC_FAIL_FAST"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    absl::StatusOr<FailFastPolicy> policy = ParseFailFastPolicy(value);
    if (!policy.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": ", policy.status().message()));
    }
    return policy;
  }
  return FailFastPolicy::kUseCaller;
}

std::string_view FailFastPolicyName(FailFastPolicy policy) {
  switch (policy) {
    case FailFastPolicy::kUseCaller:
      return "use_caller";
    case FailFastPolicy::kTrue:
      return "true";
    case FailFastPolicy::kFalse:
      return "false";
  }
  return "";
}

bool WaitsForReady(FailFastPolicy policy, RpcKind kind) {
  switch (policy) {
    case FailFastPolicy::kUseCaller:
      return kind == RpcKind::kSessionStart;
    case FailFastPolicy::kTrue:
      return false;
    case FailFastPolicy::kFalse:
      return true;
  }
  return false;
}

}  // namespace sluice::dist
