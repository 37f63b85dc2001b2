// How remote calls treat an unreachable peer, and how long they wait.
//
// Fail-fast policy, from SLUICE_RPC_FAIL_FAST (or GRPC_FAIL_FAST when that is
// unset): `true`, `false` or `use_caller` (the default).
//   use_caller  the status RPC that starts a session with a task waits for
//               the task to come up (bounded by its deadline); every other
//               RPC fails at once with Unavailable when the task is down.
//   true        every RPC fails at once when the task is down.
//   false       every RPC waits for the task, until its deadline.
#ifndef SLUICE_DISTRIBUTED_RPC_OPTIONS_H_
#define SLUICE_DISTRIBUTED_RPC_OPTIONS_H_

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sluice/support/liveness.h"

namespace sluice::dist {

enum class FailFastPolicy { kUseCaller, kTrue, kFalse };

// Parses "true" | "false" | "use_caller" (also "1"/"0"); errors name the
// variable and the accepted values.
absl::StatusOr<FailFastPolicy> ParseFailFastPolicy(std::string_view text);

// The policy the environment asks for (SLUICE_RPC_FAIL_FAST, then
// GRPC_FAIL_FAST; use_caller when neither is set).
absl::StatusOr<FailFastPolicy> FailFastPolicyFromEnvironment();

std::string_view FailFastPolicyName(FailFastPolicy policy);

// The two kinds of RPC the policy tells apart.
enum class RpcKind { kSessionStart, kExecution };

// Whether an RPC of `kind` waits for an unreachable peer under `policy`.
bool WaitsForReady(FailFastPolicy policy, RpcKind kind);

struct RpcOptions {
  FailFastPolicy fail_fast = FailFastPolicy::kUseCaller;
  // Deadline of every RPC unless the call names its own.
  absl::Duration deadline = absl::Seconds(30);
  // Largest message either side sends or accepts: room for tensors of a
  // few hundred MiB. A call whose request is larger fails before it is sent
  // (ResourceExhausted naming the size, the limit and the largest
  // argument); the worker is asked for no larger an answer.
  int max_message_bytes = 256 << 20;
  // How long the connection to a task may stay silent before its calls
  // fail, whatever their deadlines (sluice/support/liveness.h).
  absl::Duration liveness_timeout = LivenessTimeout();
  // Told, about once a second after the first, while an RPC that waits
  // for its task (see the policy above) has no answer: "waiting for task
  // /job:worker/task:1 at 127.0.0.1:7001 for remote call of 'scale':
  // connection refused (2s of 30s)"; then once more when it gets through
  // ("task ... answered remote call of 'scale' after 3.4s") or gives up
  // ("gave up waiting for task ... after 30s: no answer within 30s
  // (deadline exceeded)"). An RPC answered within the first second, or
  // one that fails fast, says nothing. Called from a thread of the
  // client's; null says nothing.
  std::function<void(const std::string& message)> on_waiting;
};

}  // namespace sluice::dist

#endif  // SLUICE_DISTRIBUTED_RPC_OPTIONS_H_
