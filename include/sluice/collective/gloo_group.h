// The Gloo backend of CollectiveGroup: CPU collectives over TCP among the
// ranks of one generation, which meet through a rendezvous store (the
// KeyValueStore gRPC service of lib/collective/store_service.proto, served
// by the lighthouse or by any process that registers NewStoreService()).
// docs/collectives.md describes the model, the errors and the store.
#ifndef SLUICE_COLLECTIVE_GLOO_GROUP_H_
#define SLUICE_COLLECTIVE_GLOO_GROUP_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sluice/collective/collective_group.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/support/ref_count.h"

namespace sluice::ccl {

struct GlooGroupOptions {
  // host:port of the rendezvous store.
  std::string store_address;
  int rank = 0;
  int size = 1;
  // The quorum id. The group reads and writes only the store's keys under
  // gen/<generation>/, so groups of two generations never meet.
  int64_t generation = 0;
  // Where this group's keys go under gen/<generation>/: groups of one
  // generation with different prefixes never meet. Partial collectives
  // build the contributors' group under partial/<n>/.
  std::string key_prefix;
  // The address this rank listens on for its peers.
  std::string bind_host = "127.0.0.1";
  // How long to wait for every rank to reach the store and connect.
  absl::Duration connect_timeout = absl::Seconds(30);
  // The timeout of a collective called with absl::InfiniteDuration(): every
  // collective has a finite one.
  absl::Duration default_timeout = absl::Seconds(30);
  // Whether the ranks exchange what each is about to run before every
  // collective, so that ranks that disagree (another collective, dtype or
  // shape) get a fatal error instead of bytes that mean different things.
  // It costs one small message from every rank to every other per
  // collective (docs/collectives.md has the figures); without it, ranks
  // that disagree fail or hang until the timeout, or get wrong values.
  bool check_agreement = true;
  // Where result tensors are allocated; it must outlive them, which may
  // outlive the group. Null: the process heap.
  HostAllocator* allocator = nullptr;
};

// Connects `options.size` ranks. Fails (marked retryable) when a rank does
// not reach the store or its peers within the connect timeout, with
// InvalidArgument for bad options, marked stale when the store has already
// dropped the generation's keys for newer ones, and marked fatal, at once,
// when the store refuses the TLS handshake (docs/security.md).
absl::StatusOr<RCReference<CollectiveGroup>> CreateGlooGroup(
    const GlooGroupOptions& options);

}  // namespace sluice::ccl

#endif  // SLUICE_COLLECTIVE_GLOO_GROUP_H_
