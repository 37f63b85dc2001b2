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

#include <memory>
#include <string>

#include "sluice/host_context/host_allocator.h"

namespace grpc {
class Service;
}  // namespace grpc

namespace sluice::dist {

class VariableService {
 public:
  // `task_name` names this task in errors. Variables' elements come from
  // `allocator`, which must outlive the service. At most `max_threads`
  // requests are carried out at once; more wait their turn.
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
