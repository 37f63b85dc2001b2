// Liveness (sluice/support/liveness.h) for the TCP connections of a Gloo
// group. Gloo sends nothing on a connection it is not using and gives up on
// a peer only at the collective's timeout: a peer whose host vanished, or
// whose link was cut, sends no reset, so a collective waiting on it would
// wait that long, and TCP alone retransmits unanswered data for many
// minutes. Kernel keepalive probes and TCP_USER_TIMEOUT give the
// connections the bound the gRPC channels have: a connection silent for
// the liveness timeout and a second fails, and the collective with it.
//
// Gloo's API gives no access to its sockets: it reports each pair's local
// address, and a pair's socket is the one connected TCP socket of this
// process bound to that address.
#ifndef SLUICE_LIB_COLLECTIVE_GLOO_LIVENESS_H_
#define SLUICE_LIB_COLLECTIVE_GLOO_LIVENESS_H_

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gloo/context.h"

namespace sluice::ccl {

// Sets keepalive probes (the first after `timeout` of silence, one second
// apart) and TCP_USER_TIMEOUT (`timeout` + kLivenessPingTimeout) on the
// socket of every pair of `context`, which connectFullMesh connected. An
// error says which pairs were left without them; the group still works,
// with only the collective's timeout for a silent peer.
absl::Status SetPairLiveness(gloo::Context& context, absl::Duration timeout);

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_GLOO_LIVENESS_H_
