// The healing service of a replica (heal_service.proto): serves the
// replica's state, as of the step it last joined a quorum with, to a
// recovering peer, in chunks with a CRC-32. Internal to the manager.
#ifndef SLUICE_LIB_FT_HEAL_SERVER_H_
#define SLUICE_LIB_FT_HEAL_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace sluice::ft {

// The bytes of one chunk of state on the wire: small enough for gRPC's
// default message limits, large enough that per-message costs vanish.
inline constexpr size_t kHealChunkBytes = 1 << 20;

// A replica's state and the step it is as of.
struct ServedState {
  int64_t step = 0;
  std::string bytes;
};

// Called on a gRPC thread for each peer that heals from this replica.
// `at_a_step_boundary`: the peer heals in the background while this
// replica trains on, so the state must be saved where the step and the
// bytes agree, and may be of any step from the one asked for.
using StateSource =
    std::function<absl::StatusOr<ServedState>(bool at_a_step_boundary)>;

class HealServer {
 public:
  // Listens on `host` at a port the system picks. `replica_id` names this
  // replica in the answers.
  static absl::StatusOr<std::unique_ptr<HealServer>> Start(
      const std::string& host, std::string replica_id, StateSource source);
  // Cancels the transfers in flight and stops listening.
  ~HealServer();

  // "host:port", the address peers dial.
  const std::string& address() const { return address_; }

 private:
  struct Impl;
  HealServer(std::unique_ptr<Impl> impl, std::string address);
  std::unique_ptr<Impl> impl_;
  const std::string address_;
};

}  // namespace sluice::ft

#endif  // SLUICE_LIB_FT_HEAL_SERVER_H_
