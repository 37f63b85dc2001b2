// VariableService: the parameter-server side of variables (see
// sluice/coordinator/variables.h for the client and docs/variables.md). A
// task serves it beside the Worker service on the same port, by passing
// service() to WorkerOptions::services; sluice_worker does.
//
// Requests run on threads of the service's own, never on gRPC's, so a large
// update, or many clients waiting for one variable's lock, never keeps the
// task from answering its status RPC or other variables' requests.
#ifndef SLUICE_COORDINATOR_VARIABLE_SERVICE_H_
#define SLUICE_COORDINATOR_VARIABLE_SERVICE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "sluice/host_context/host_allocator.h"

namespace grpc {
class Service;
}  // namespace grpc

namespace sluice::dist {

struct VariableServiceOptions {
  // At most this many requests are carried out at once; more wait their
  // turn.
  int max_threads = 16;
  // The bytes this task's variables may hold, their values and Adam
  // moments together; a create or an Adam step past it is refused with
  // RESOURCE_EXHAUSTED. 0: no bound. sluice_worker's --max_variable_bytes,
  // by default DefaultMaxVariableBytes().
  int64_t max_variable_bytes = 0;
};

// Half of this host's physical memory (8 GiB where it cannot be read): a
// parameter server's variables may fill much of its memory, but a client
// alone cannot make it run out.
int64_t DefaultMaxVariableBytes();

class VariableService {
 public:
  // `task_name` names this task in errors. Variables' elements come from
  // `allocator`, which must outlive the service.
  VariableService(std::string task_name, HostAllocator* allocator,
                  const VariableServiceOptions& options);
  // No bound on the variables' bytes, and up to `max_threads` requests
  // carried out at once.
  VariableService(std::string task_name, HostAllocator* allocator,
                  int max_threads = 16);
  // Finishes the requests already running. Destroy the server first.
  ~VariableService();
  VariableService(const VariableService&) = delete;
  VariableService& operator=(const VariableService&) = delete;

  // The gRPC service to register with a server; owned by this object.
  grpc::Service* service();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::dist

#endif  // SLUICE_COORDINATOR_VARIABLE_SERVICE_H_
