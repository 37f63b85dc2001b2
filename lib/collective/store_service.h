// The rendezvous store's server (store_service.proto). Any gRPC server can
// register it; the lighthouse does.
#ifndef SLUICE_LIB_COLLECTIVE_STORE_SERVICE_H_
#define SLUICE_LIB_COLLECTIVE_STORE_SERVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/service_type.h"

namespace sluice::ccl {

struct StoreServiceOptions {
  // The bound on the bytes of every key and value held; a Set past it is
  // refused with RESOURCE_EXHAUSTED.
  int64_t max_bytes = int64_t{64} << 20;
  // How many of the newest generations keep their keys: a Set under a newer
  // generation drops the keys of every generation older than these, and
  // later calls naming one of them are refused with ABORTED.
  int keep_generations = 3;
  // The longest a waiting Get waits when its call has no deadline.
  absl::Duration max_wait = absl::Minutes(5);
  // Why the store refuses keys of `generation` (ABORTED, with this reason),
  // "" to accept them; unset accepts every generation. The lighthouse
  // refuses the quorums it did not issue since it started: their keys were
  // set in a store that is gone.
  std::function<std::string(int64_t generation)> refuse_generation;
};

std::unique_ptr<grpc::Service> NewStoreService(
    const StoreServiceOptions& options = {});

}  // namespace sluice::ccl

#endif  // SLUICE_LIB_COLLECTIVE_STORE_SERVICE_H_
