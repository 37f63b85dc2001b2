// WorkerServer: a task that runs programs for remote callers (the heart of
// tools/sluice_worker). Programs arrive as SBF bytes, are loaded against the
// HostContext's kernel registry, and their functions run on that host; each
// execution has its own RequestContext, cancelled when the caller cancels
// the RPC or its deadline passes. Calls run on threads of the server's own,
// never on the gRPC threads that answer RPCs, so a long call neither delays
// the status RPC nor misses its cancellation.
#ifndef SLUICE_DISTRIBUTED_WORKER_SERVER_H_
#define SLUICE_DISTRIBUTED_WORKER_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sluice/distributed/client_work_ledger.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/trace_activity.h"
#include "sluice/support/liveness.h"

namespace grpc {
class Service;
}  // namespace grpc

namespace sluice::dist {

struct WorkerOptions {
  std::string task_name;  // "/job:worker/task:0": reported and put on errors
  std::string address;    // "127.0.0.1:7001"; port 0 picks a free port
  // Largest request or answer; an answer over it (or over the caller's
  // own limit) is refused with ResourceExhausted naming its size.
  int max_message_bytes = 256 << 20;
  // How long a caller's connection may stay silent before its calls are
  // cancelled (sluice/support/liveness.h).
  absl::Duration liveness_timeout = LivenessTimeout();
  // Registered programs kept loaded. Past either limit the least recently
  // used programs that no call is running are evicted; a client re-registers
  // an evicted program on its next call to it, without an error. A single
  // program larger than max_program_bytes is refused.
  int max_programs = 128;
  int64_t max_program_bytes = int64_t{128} << 20;  // SBF bytes, all programs
  // The most calls that run at once; more wait for a thread to be free.
  int max_execution_threads = 64;
  // How long an idle execution thread waits for the next call, spinning,
  // before it parks: waking a parked thread costs tens of microseconds.
  absl::Duration execution_spin = absl::Microseconds(100);
  // Bounds per client, so that one caller cannot take the task from the
  // others. A client is the caller's address without its port
  // ("ipv4:10.0.0.7"): every process of one host counts as one client, as a
  // caller can open connections from as many ports as it likes. A call past
  // a bound is refused with ResourceExhausted naming the client and the
  // bound. Calls of one client running at once:
  int max_executions_per_client = 1024;
  // Where the host's blocking work is counted per client: the ledger that
  // wrapped the work queue the host was made with (client_work_ledger.h).
  // While a client's blocking tasks fill its share of the blocking pool,
  // its new calls are refused. Null: blocking work is not bounded per
  // client. Must outlive the server.
  ClientWorkLedger* client_work_ledger = nullptr;
  // Kernels of the host's registry that the programs callers register may
  // not use, by name prefix ("tfrt_test."): such a program is refused,
  // naming the op, its location and `reason`.
  struct RefusedKernels {
    std::string prefix;
    std::string reason;
  };
  std::vector<RefusedKernels> refused_kernels;
  // Further gRPC services served on the same port, such as the variables
  // of a parameter server (sluice/coordinator/variable_service.h). Each
  // must outlive the server.
  std::vector<grpc::Service*> services;
  // Who watches each call's request (docs/tracing.md): a Tracer records
  // each execution, ended by its caller's flow arrow when the caller traces
  // too; an ActivityRegistry lets the hang explainer see the calls. Must
  // outlive the server.
  const RequestObservers* observers = nullptr;
};

class WorkerServer {
 public:
  // Starts serving. `host` (with the kernels programs may use registered)
  // must outlive the server. Fails when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<WorkerServer>> Start(
      HostContext* host, WorkerOptions options);
  // Shuts down (see Shutdown) if still serving.
  ~WorkerServer();
  WorkerServer(const WorkerServer&) = delete;
  WorkerServer& operator=(const WorkerServer&) = delete;

  // The port the server listens on.
  int port() const;
  const std::string& task_name() const;

  // Stops taking calls, cancels the executions still running and answers
  // them, waiting up to `grace` for in-flight RPCs to finish.
  void Shutdown(absl::Duration grace = absl::Seconds(5));

 private:
  class Impl;
  explicit WorkerServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::dist

#endif  // SLUICE_DISTRIBUTED_WORKER_SERVER_H_
