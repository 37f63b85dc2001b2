// The catalogue of fault points. A new fault point gets a line here and a
// row in docs/faults.md (//docs/examples:faults_doc_test keeps the two
// equal). Names follow <component>.<operation>.<moment>: the process role
// or layer (worker, client, ps, checkpoint, collective), the operation
// (call, register, read, save), and the moment in it (begin, end, send).
#include "sluice/support/fault_point.h"

namespace sluice {

absl::Span<const FaultPointInfo> KnownFaultPoints() {
  static constexpr FaultPointInfo kPoints[] = {
      {"client.call.send", "TaskClient::Call, before the Execute RPC is sent",
       "the transport failing before the call reaches the worker"},
      {"worker.call.begin",
       "WorkerServer, an accepted Execute call before its function runs",
       "the worker failing as a call starts: nothing of it has run"},
      {"worker.call.end",
       "WorkerServer, a call's results all available, before the answer",
       "the worker failing after the work was done: the answer is lost"},
      {"worker.register.begin",
       "WorkerServer, RegisterProgram before the program is loaded",
       "the worker failing while a program is registered"},
  };
  return kPoints;
}

}  // namespace sluice
