// Liveness: how long a connection may stay silent before it counts as lost,
// whatever the deadlines of the calls on it. A peer that dies on this
// machine's kernel resets its connections and is known at once; a host that
// loses power, or a link that is cut, sends nothing. Without a bound of its
// own, a call to such a peer would wait out its deadline, and training
// steps, checkpoints and heals need long ones. Every gRPC channel and server
// of Sluice pings its peer when the connection is quiet and gives the peer
// up when a ping goes unanswered: a call in flight then fails within the
// liveness timeout and a second, as UNAVAILABLE saying the connection went
// silent. A process that is stopped (SIGSTOP) answers no ping either: to
// its peers it is as lost as a vanished host.
#ifndef SLUICE_SUPPORT_LIVENESS_H_
#define SLUICE_SUPPORT_LIVENESS_H_

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sluice {

inline constexpr absl::Duration kDefaultLivenessTimeout = absl::Seconds(3);
// How long a ping may go unanswered once sent: the bound is the timeout
// plus this.
inline constexpr absl::Duration kLivenessPingTimeout = absl::Seconds(1);
// How much longer than its clients a server waits before it pings: a
// living client's ping always comes first, so that only one end of an idle
// connection pings. A server thus gives up a silent client within the
// timeout, this and kLivenessPingTimeout.
inline constexpr absl::Duration kServerPingDelay = absl::Milliseconds(200);
// Below this, pings would cost more than the calls they guard.
inline constexpr absl::Duration kMinLivenessTimeout = absl::Milliseconds(100);
inline constexpr absl::Duration kMaxLivenessTimeout = absl::Hours(24 * 7);

// SLUICE_LIVENESS_TIMEOUT_MS when set (milliseconds, kMinLivenessTimeout to
// kMaxLivenessTimeout), otherwise kDefaultLivenessTimeout. An error names
// the variable and what it holds.
absl::StatusOr<absl::Duration> LivenessTimeoutFromEnvironment();

// The process's liveness timeout, which every channel and server it makes
// uses unless its options say otherwise: the last SetLivenessTimeout,
// otherwise LivenessTimeoutFromEnvironment (an invalid variable is reported
// once on stderr and the default used).
absl::Duration LivenessTimeout();

// Sets the process's liveness timeout, clamped to [kMinLivenessTimeout,
// kMaxLivenessTimeout]. The tools call it with --liveness_timeout_ms before
// they connect to anything; channels made earlier keep theirs.
void SetLivenessTimeout(absl::Duration timeout);

}  // namespace sluice

#endif  // SLUICE_SUPPORT_LIVENESS_H_
