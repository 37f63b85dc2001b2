// sluice_worker: a task of a Sluice cluster. It runs the programs remote
// callers register and the functions they call (see docs/distributed.md),
// until SIGTERM or SIGINT stops it.
#include <csignal>
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/ccl/ccl_kernels.h"
#include "kernels/ccl/nccl_kernels.h"
#include "kernels/dist/distributed_context.h"
#include "kernels/gpu/gpu_kernels.h"
#include "llvm/Support/CommandLine.h"
#include "sluice/coordinator/variable_service.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/worker_server.h"
#include "sluice/executor/tool_observers.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/kernels/data_kernels.h"
#include "sluice/kernels/dist_kernels.h"
#include "sluice/kernels/ft_kernels.h"
#include "sluice/kernels/math_kernels.h"
#include "sluice/kernels/tensor_kernels.h"
#include "sluice/kernels/test_kernels.h"
#include "sluice/support/fault_point.h"

namespace {

namespace cl = llvm::cl;

cl::opt<std::string> task_name(
    "task_name",
    cl::desc("this task's name, /job:<job>/task:<index> (required)"));
cl::opt<std::string> job(
    "job", cl::desc("this task's job; must match --task_name when both are "
                    "given (default: the job of --task_name)"));
cl::opt<std::string> address(
    "address",
    cl::desc("host:port to listen on; port 0 picks a free port (default: "
             "this task's address in --cluster)"));
cl::opt<std::string> cluster(
    "cluster",
    cl::desc("cluster spec, JSON or @file (default: $SLUICE_CLUSTER); only "
             "needed without --address, or for programs that call other "
             "tasks"));
cl::opt<std::string> work_queue_type(
    "work_queue", cl::desc("mstd:N,M (the default mstd) | s"),
    cl::init("mstd"));
cl::opt<int> max_message_bytes(
    "max_message_bytes",
    cl::desc("largest request or answer, in bytes (default 256 MiB)"),
    cl::init(sluice::dist::WorkerOptions().max_message_bytes));
cl::opt<int> max_programs(
    "max_programs",
    cl::desc("registered programs kept loaded; past it the least recently "
             "used ones are evicted (default 128)"),
    cl::init(sluice::dist::WorkerOptions().max_programs));
cl::opt<int64_t> max_program_bytes(
    "max_program_bytes",
    cl::desc("SBF bytes of all registered programs kept loaded; past it the "
             "least recently used ones are evicted (default 128 MiB)"),
    cl::init(sluice::dist::WorkerOptions().max_program_bytes));
cl::opt<double> shutdown_grace_seconds(
    "shutdown_grace",
    cl::desc("seconds a running call may take to finish after SIGTERM "
             "before it is cancelled (default 5)"),
    cl::init(5));
cl::opt<std::string> trace_file(
    "trace",
    cl::desc("write a timeline of the calls this task runs to this file at "
             "shutdown (Chrome trace-event JSON: open it in "
             "ui.perfetto.dev, with the callers' traces)"),
    cl::init(""));
cl::opt<bool> explain_hangs(
    "explain_hangs",
    cl::desc("on SIGUSR1, print what the calls running here still wait for"),
    cl::init(false));

int Fail(const std::string& message) {
  std::fprintf(stderr, "sluice_worker: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  cl::SetVersionPrinter(
      [](llvm::raw_ostream& os) { os << "sluice_worker (Sluice)\n"; });
  cl::ParseCommandLineOptions(
      argc, argv,
      "sluice_worker: serves one task of a Sluice cluster: remote callers "
      "register programs on it and call their functions. Prints '<task> "
      "listening on <host:port>' once it accepts calls; SIGTERM or SIGINT "
      "shuts it down cleanly (exit status 0).\n");

  // Every thread started from here on inherits the blocked signals, so the
  // main thread alone receives them, in sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // A fault spec that does not parse stops the worker before it serves: a
  // test that asked for faults must not run without them.
  if (absl::Status faults = sluice::FaultInjector::InitFromEnvironment();
      !faults.ok()) {
    return Fail(std::string(faults.message()));
  }
  if (task_name.empty()) return Fail("--task_name is required");
  auto parsed = sluice::dist::ParseTaskName(task_name);
  if (!parsed.ok()) return Fail(std::string(parsed.status().message()));
  if (!job.empty() && job != parsed->first) {
    return Fail(
        absl::StrCat("--job=", job.getValue(),
                     " does not match --task_name=", task_name.getValue()));
  }
  std::string listen_address = address;
  if (!listen_address.empty()) {
    absl::Status valid = sluice::dist::ValidateAddress(listen_address);
    if (!valid.ok()) {
      return Fail(absl::StrCat("invalid --address '", listen_address,
                               "': ", valid.message()));
    }
  } else {
    auto spec = sluice::dist::ClusterSpec::FromFlagOrEnvironment(cluster);
    if (!spec.ok()) {
      return Fail(absl::StrCat("no --address, and ",
                               std::string(spec.status().message())));
    }
    auto found = spec->AddressOf(task_name);
    if (!found.ok()) return Fail(std::string(found.status().message()));
    listen_address = *found;
  }

  auto work_queue = sluice::CreateWorkQueue(work_queue_type.getValue());
  if (!work_queue.ok()) return Fail(std::string(work_queue.status().message()));
  const std::string name =
      sluice::dist::TaskName(parsed->first, parsed->second);
  auto observers = sluice::ToolObservers::Create(
      {absl::StrCat("sluice_worker ", name), trace_file, false, explain_hangs});
  if (!observers.ok()) return Fail(std::string(observers.status().message()));
  sluice::HostContext host(
      [&name](const sluice::DecodedDiagnostic& diagnostic) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(),
                     diagnostic.ToString().c_str());
      },
      sluice::CreateMallocAllocator(), *std::move(work_queue));
  sluice::KernelRegistry& registry = sluice::GetKernelRegistry(&host);
  for (auto* group :
       {&sluice::RegisterBasicKernels, &sluice::RegisterTestKernels,
        &sluice::RegisterDistKernels, &sluice::RegisterTensorKernels,
        &sluice::RegisterMathKernels, &sluice::RegisterFtKernels,
        &sluice::RegisterDataKernels, &sluice::RegisterCclKernels,
        &sluice::RegisterGpuKernels, &sluice::RegisterCclDeviceKernels}) {
    absl::Status registered = group(&registry);
    if (!registered.ok()) {
      std::fprintf(stderr, "sluice_worker: %s\n",
                   std::string(registered.message()).c_str());
      return 1;
    }
  }

  // A cluster named on the command line is also the one the programs' own
  // tfrt_dist ops (remote calls, variables) use; without it they read
  // SLUICE_CLUSTER when they first need a cluster.
  if (!cluster.empty()) {
    auto spec = sluice::dist::ClusterSpec::FromFlagOrEnvironment(cluster);
    if (!spec.ok()) return Fail(std::string(spec.status().message()));
    auto policy = sluice::dist::FailFastPolicyFromEnvironment();
    if (!policy.ok()) return Fail(std::string(policy.status().message()));
    sluice::dist::RpcOptions rpc_options;
    rpc_options.fail_fast = *policy;
    absl::Status configured =
        host.GetOrCreateSharedContext<sluice::DistributedContext>().Configure(
            *std::move(spec), rpc_options);
    if (!configured.ok()) return Fail(std::string(configured.message()));
  }

  sluice::dist::WorkerOptions options;
  options.task_name = name;
  options.address = listen_address;
  options.max_message_bytes = max_message_bytes;
  if (max_programs < 1) {
    return Fail(absl::StrCat("--max_programs must be at least 1, not ",
                             max_programs.getValue()));
  }
  if (max_program_bytes < 1) {
    return Fail(absl::StrCat("--max_program_bytes must be at least 1, not ",
                             max_program_bytes.getValue()));
  }
  options.max_programs = max_programs;
  options.max_program_bytes = max_program_bytes;
  // Every task can hold variables; the tasks of the `ps` job are where
  // clients place them by default.
  sluice::dist::VariableService variables(name, host.allocator());
  options.services.push_back(variables.service());
  options.observers = (*observers)->observers();
  auto server = sluice::dist::WorkerServer::Start(&host, options);
  if (!server.ok()) return Fail(std::string(server.status().message()));

  const std::string host_part =
      listen_address.substr(0, listen_address.rfind(':'));
  std::printf("sluice_worker %s listening on %s:%d\n", name.c_str(),
              host_part.c_str(), (*server)->port());
  std::fflush(stdout);

  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::fprintf(stderr, "sluice_worker %s: %s, shutting down\n", name.c_str(),
               signal == SIGTERM ? "SIGTERM" : "SIGINT");
  (*server)->Shutdown(absl::Seconds(shutdown_grace_seconds.getValue()));
  server->reset();
  host.Quiesce();
  if (absl::Status written = (*observers)->WriteTrace(); !written.ok()) {
    return Fail(std::string(written.message()));
  }
  return 0;
}
