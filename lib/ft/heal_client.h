// Fetches a peer's state from its healing service (heal_server.h) and checks
// it: the step asked for, every byte announced, the CRC-32. Internal to the
// manager.
#ifndef SLUICE_LIB_FT_HEAL_CLIENT_H_
#define SLUICE_LIB_FT_HEAL_CLIENT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/ft/heal_server.h"

namespace sluice::ft {

// A participant to heal from, as its quorum request described it.
struct HealPeer {
  std::string replica_id;
  std::string address;  // the healing service's advertised "host:port"
};

// The state of `peer` at `step` (with `at_least`, at `step` or a later
// one, saved at a step boundary of the peer's training loop), fetched for
// replica `requester` before `deadline`. Every failure (the peer is down,
// slow, at another step, or sent a short stream or bytes that fail the
// checksum) is a retryable error naming the peer replica and its address:
// another peer may serve it. A refused TLS handshake is fatal instead
// (docs/security.md): this peer would refuse it again.
absl::StatusOr<ServedState> FetchState(const HealPeer& peer,
                                       std::string_view requester, int64_t step,
                                       absl::Time deadline,
                                       bool at_least = false);

}  // namespace sluice::ft

#endif  // SLUICE_LIB_FT_HEAL_CLIENT_H_
