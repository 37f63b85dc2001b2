// The catalogue of fault points. A new fault point gets a line here and a
// row in docs/faults.md (//docs/examples:faults_doc_test keeps the two
// equal). Names follow <component>.<operation>.<moment>: the process role
// or layer (worker, client, ps, checkpoint, collective), the operation
// (call, register, read, save), and the moment in it (begin, end, send).
#include "sluice/support/fault_point.h"

namespace sluice {

absl::Span<const FaultPointInfo> KnownFaultPoints() {
  static constexpr FaultPointInfo kPoints[] = {
      {"checkpoint.save.begin",
       "SaveCheckpoint, with the directory locked, before anything is written",
       "the saving process failing before the save leaves a trace"},
      {"checkpoint.save.tensor",
       "SaveCheckpoint, before each tensor's bytes go to the data file",
       "the saving process failing with a data file half written"},
      {"checkpoint.save.rename",
       "SaveCheckpoint, before the data file and then the manifest are "
       "renamed into place (hits 1 and 2 of a save)",
       "the saving process failing with its data complete but no manifest, "
       "or with both files written but the manifest not yet in place"},
      {"client.call.send", "TaskClient::Call, before the Execute RPC is sent",
       "the transport failing before the call reaches the worker"},
      {"ps.apply.begin",
       "VariableService, an update of a variable before it is applied",
       "the parameter server failing before the update: nothing applied"},
      {"ps.apply.end", "VariableService, an update applied, before the answer",
       "the parameter server failing after the update: the answer is lost"},
      {"ps.create.begin",
       "VariableService, a CreateVariable request before the variable is "
       "made",
       "the parameter server failing as a variable is created"},
      {"ps.read.begin", "VariableService, a read before the value is copied",
       "the parameter server failing as a variable is read"},
      {"worker.call.begin",
       "WorkerServer, an accepted Execute call before its function runs",
       "the worker failing as a call starts: nothing of it has run"},
      {"worker.call.end",
       "WorkerServer, a call's results all available, before the answer",
       "the worker failing after the work was done: the answer is lost"},
      {"worker.register.begin",
       "WorkerServer, RegisterProgram before the program is loaded",
       "the worker failing while a program is registered"},
      {"collective.allreduce.send",
       "a Gloo CollectiveGroup's AllReduce, on the calling thread, before the "
       "rank takes part",
       "a rank of a collective group failing as an allreduce starts: its "
       "peers wait for it"},
      {"manager.heal.send",
       "the manager's healing service, before each chunk of state is sent "
       "to a recovering peer",
       "the state damaged on the way (an error flips a bit of the chunk, "
       "which the receiver's checksum catches), a slow peer, or a peer "
       "dying mid-transfer"},
      {"monitor.step.end",
       "a training rank's StepReporter::StepEnd, before the step's end is "
       "reported",
       "a straggling rank: delay makes each step slower by MS, hang a stuck "
       "step, kill a rank dying at a step's end; an error is ignored, since "
       "a step's end has no error path"},
  };
  return kPoints;
}

}  // namespace sluice
