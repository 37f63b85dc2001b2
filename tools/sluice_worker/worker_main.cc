// sluice_worker as a library (sluice/tools/worker_main.h): a task of a
// Sluice cluster. It runs the programs remote callers register and the
// functions they call (see docs/distributed.md), until SIGTERM or SIGINT
// stops it.
#include "sluice/tools/worker_main.h"

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "kernels/dist/distributed_context.h"
#include "lib/checkpoint/data_root.h"
#include "lib/executor/tool_observers.h"
#include "sluice/coordinator/variable_service.h"
#include "sluice/distributed/client_work_ledger.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/worker_server.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/fault_point.h"
#include "tools/common/exit_watchdog.h"
#include "tools/common/flag_checks.h"
#include "tools/common/kernel_flags.h"
#include "tools/common/tool_flags.h"

namespace sluice {
namespace {

// Bounds of the worker's flags (the shared ones are in flag_checks.h).
// A message must hold at least a small request.
constexpr int kMinMessageBytes = 1024;
// Programs kept loaded, each with its own executable.
constexpr int kMaxPrograms = 65536;
// Bytes of the programs kept loaded: a terabyte is past any host's memory.
constexpr int64_t kMaxProgramBytes = int64_t{1} << 40;
// Per-client bounds: a client may have at most as many calls running, or
// blocking tasks, as a worker could ever run.
constexpr int kMaxClientExecutions = 65536;
constexpr int kMaxClientBlockingTasks = 65536;
// A quarter of the default blocking pool (256 threads): a client's
// checkpoints and waits fit, and it takes four clients at their bound to
// fill the pool.
constexpr int kDefaultClientBlockingTasks = 64;
// The kernels only tests need, which no caller of a worker in service
// should reach: tfrt_test.memory_leak_one_int32 leaks memory on purpose and
// tfrt_test.blocking.usleep holds a blocking-pool thread for as long as the
// caller says.
constexpr char kTestKernelPrefix[] = "tfrt_test.";

// The flags, made when SluiceWorkerMain runs.
struct WorkerFlags {
  tools::FlagSet set;
  tools::Flag<std::string> task_name{
      set, "task_name", "this task's name, /job:<job>/task:<index> (required)"};
  tools::Flag<std::string> job{
      set, "job",
      "this task's job; must match --task_name when both are given "
      "(default: the job of --task_name)"};
  tools::Flag<std::string> address{
      set, "address",
      "host:port to listen on; port 0 picks a free port (default: this "
      "task's address in --cluster)"};
  tools::Flag<std::string> cluster{
      set, "cluster",
      "cluster spec, JSON or @file (default: $SLUICE_CLUSTER); only needed "
      "without --address, or for programs that call other tasks"};
  // sluice_run's spelling, which TFRT's tools use too.
  tools::Flag<std::string> work_queue_type{
      set, "work_queue_type", "mstd (the default) | mstd:N | mstd:N,M | s",
      "mstd", tools::Alias("work_queue")};
  tools::Flag<int> max_message_bytes{
      set, "max_message_bytes",
      "largest request or answer, in bytes (default 256 MiB)",
      dist::WorkerOptions().max_message_bytes,
      tools::InRange(kMinMessageBytes, std::numeric_limits<int>::max())};
  tools::Flag<int> max_programs{
      set, "max_programs",
      "registered programs kept loaded; past it the least recently used "
      "ones are evicted (default 128)",
      dist::WorkerOptions().max_programs, tools::InRange(1, kMaxPrograms)};
  tools::Flag<int64_t> max_program_bytes{
      set, "max_program_bytes",
      "SBF bytes of all registered programs kept loaded; past it the least "
      "recently used ones are evicted (default 128 MiB)",
      dist::WorkerOptions().max_program_bytes,
      tools::InRange(int64_t{1}, kMaxProgramBytes)};
  tools::Flag<int64_t> max_variable_bytes{
      set, "max_variable_bytes",
      "bytes the variables held here may take, values and Adam moments "
      "together; a create or first Adam step past it is refused with "
      "RESOURCE_EXHAUSTED (default: half of this host's memory; 0: no bound)",
      dist::DefaultMaxVariableBytes(),
      tools::InRange(int64_t{0}, std::numeric_limits<int64_t>::max())};
  // Durations carry their unit, as on sluice_launch and sluice_monitor.
  tools::Flag<double> shutdown_grace_seconds{
      set,
      "shutdown_grace_s",
      "seconds a running call may take to finish after SIGTERM before it is "
      "cancelled (default 5)",
      5.0,
      tools::InRange(0.0, tools::kMaxSeconds),
      tools::Alias("shutdown_grace")};
  tools::Flag<std::string> trace_file{
      set, "trace",
      "write a timeline of the calls this task runs to this file at "
      "shutdown (Chrome trace-event JSON: open it in ui.perfetto.dev, with "
      "the callers' traces)"};
  tools::Flag<bool> explain_hangs{
      set, "explain_hangs",
      "on SIGUSR1, print what the calls running here still wait for"};
  tools::Flag<std::string> data_root{
      set, "data_root",
      "the directory under which the programs' kernels may open files "
      "(checkpoints); paths are taken from it, and '..', absolute paths "
      "elsewhere and symbolic links out of it are refused (default: the "
      "working directory)"};
  tools::Flag<bool> enable_test_kernels{
      set, "enable_test_kernels",
      "serve the tfrt_test kernels too (for tests only: some leak memory or "
      "block on purpose); without it a program that uses one is refused"};
  tools::Flag<int> max_client_executions{
      set, "max_client_executions",
      "calls one client (one caller address, any port) may have running "
      "at once; more are refused with RESOURCE_EXHAUSTED, which the caller "
      "may retry later",
      dist::WorkerOptions().max_executions_per_client,
      tools::InRange(1, kMaxClientExecutions)};
  tools::Flag<int> max_client_blocking_tasks{
      set, "max_client_blocking_tasks",
      "blocking-pool threads the calls of one client may hold at once; its "
      "further blocking tasks wait for one of them, leaving the pool to the "
      "other clients",
      kDefaultClientBlockingTasks,
      tools::InRange(1, kMaxClientBlockingTasks)};
  tools::KernelFlags kernels{set};
};

// --list_kernels: the kernels a caller's program may use.
void PrintServedKernels(const KernelRegistry& registry,
                        bool enable_test_kernels) {
  for (const std::string& name : registry.KernelNames()) {
    if (!enable_test_kernels && absl::StartsWith(name, kTestKernelPrefix)) {
      continue;
    }
    std::printf("%s\n",
                DescribeKernel(name, *registry.GetKernel(name)).c_str());
  }
}

}  // namespace

int SluiceWorkerMain(int argc, char** argv,
                     const RegisterKernelsFn& register_kernels,
                     const char* tool_name) {
  static auto* const flags_storage = new WorkerFlags;
  WorkerFlags& flags = *flags_storage;
  const std::string overview = absl::StrCat(
      tool_name,
      ": serves one task of a Sluice cluster: remote callers register "
      "programs on it and call their functions. Prints '<task> listening on "
      "<host:port>' once it accepts calls; SIGTERM or SIGINT shuts it down "
      "cleanly (exit status 0), within --shutdown_grace_s and a second. "
      "Callers' programs open files only under --data_root, use the "
      "tfrt_test kernels only under --enable_test_kernels, and are bounded "
      "per client (see docs/security.md).\n");
  tools::ParseToolCommandLine(argc, argv, tool_name, overview, flags.set);
  auto fail = [tool_name](const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", tool_name, message.c_str());
    return 1;
  };

  if (flags.kernels.list_kernels()) {
    KernelRegistry registry;
    if (absl::Status registered =
            flags.kernels.RegisterKernels(register_kernels, &registry);
        !registered.ok()) {
      return fail(std::string(registered.message()));
    }
    PrintServedKernels(registry, *flags.enable_test_kernels);
    return 0;
  }

  // Every thread started from here on inherits the blocked signals, so the
  // main thread alone receives them, in sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  // A fault spec that does not parse stops the worker before it serves: a
  // test that asked for faults must not run without them.
  if (absl::Status faults = FaultInjector::InitFromEnvironment();
      !faults.ok()) {
    return fail(std::string(faults.message()));
  }
  if (flags.task_name->empty()) return fail("--task_name is required");
  auto parsed = dist::ParseTaskName(*flags.task_name);
  if (!parsed.ok()) return fail(std::string(parsed.status().message()));
  if (!flags.job->empty() && *flags.job != parsed->first) {
    return fail(absl::StrCat("--job=", *flags.job,
                             " does not match --task_name=", *flags.task_name));
  }
  std::string listen_address = *flags.address;
  if (!listen_address.empty()) {
    absl::Status valid = dist::ValidateAddress(listen_address);
    if (!valid.ok()) {
      return fail(absl::StrCat("invalid --address '", listen_address,
                               "': ", valid.message()));
    }
  } else {
    auto spec = dist::ClusterSpec::FromFlagOrEnvironment(*flags.cluster);
    if (!spec.ok()) {
      return fail(absl::StrCat("no --address, and ",
                               std::string(spec.status().message())));
    }
    auto found = spec->AddressOf(*flags.task_name);
    if (!found.ok()) return fail(std::string(found.status().message()));
    listen_address = *found;
  }

  auto work_queue = CreateWorkQueue(*flags.work_queue_type);
  if (!work_queue.ok()) return fail(std::string(work_queue.status().message()));
  // Counts each client's blocking work on the host's queue.
  dist::ClientWorkLedger client_work(*flags.max_client_blocking_tasks);
  const std::string name = dist::TaskName(parsed->first, parsed->second);
  auto observers =
      ToolObservers::Create({absl::StrCat(tool_name, " ", name),
                             *flags.trace_file, false, *flags.explain_hangs});
  if (!observers.ok()) return fail(std::string(observers.status().message()));
  HostContext host(
      [&name](const DecodedDiagnostic& diagnostic) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(),
                     diagnostic.ToString().c_str());
      },
      CreateMallocAllocator(), client_work.Wrap(*std::move(work_queue)));
  // Callers' programs open files only under the data root.
  if (absl::Status confined =
          host.GetOrCreateSharedContext<checkpoint::DataRoot>().Confine(
              flags.data_root->empty() ? "." : *flags.data_root);
      !confined.ok()) {
    return fail(absl::StrCat("invalid --data_root: ", confined.message()));
  }
  KernelRegistry& registry = GetKernelRegistry(&host);
  if (absl::Status registered =
          flags.kernels.RegisterKernels(register_kernels, &registry);
      !registered.ok()) {
    return fail(std::string(registered.message()));
  }

  // A cluster named on the command line is also the one the programs' own
  // tfrt_dist ops (remote calls, variables) use; without it they read
  // SLUICE_CLUSTER when they first need a cluster.
  if (!flags.cluster->empty()) {
    auto spec = dist::ClusterSpec::FromFlagOrEnvironment(*flags.cluster);
    if (!spec.ok()) return fail(std::string(spec.status().message()));
    auto policy = dist::FailFastPolicyFromEnvironment();
    if (!policy.ok()) return fail(std::string(policy.status().message()));
    dist::RpcOptions rpc_options;
    rpc_options.fail_fast = *policy;
    absl::Status configured =
        host.GetOrCreateSharedContext<DistributedContext>().Configure(
            *std::move(spec), rpc_options);
    if (!configured.ok()) return fail(std::string(configured.message()));
  }

  dist::WorkerOptions worker_options;
  worker_options.task_name = name;
  worker_options.address = listen_address;
  worker_options.max_message_bytes = *flags.max_message_bytes;
  worker_options.max_programs = *flags.max_programs;
  worker_options.max_program_bytes = *flags.max_program_bytes;
  worker_options.max_executions_per_client = *flags.max_client_executions;
  worker_options.client_work_ledger = &client_work;
  if (!*flags.enable_test_kernels) {
    worker_options.refused_kernels.push_back(
        {kTestKernelPrefix,
         "the tfrt_test kernels are for tests only (start the worker with "
         "--enable_test_kernels to serve them)"});
  }
  // Every task can hold variables; the tasks of the `ps` job are where
  // clients place them by default.
  dist::VariableServiceOptions variable_options;
  variable_options.max_variable_bytes = *flags.max_variable_bytes;
  dist::VariableService variables(name, host.allocator(), variable_options);
  worker_options.services.push_back(variables.service());
  worker_options.observers = (*observers)->observers();
  auto server = dist::WorkerServer::Start(&host, worker_options);
  if (!server.ok()) return fail(std::string(server.status().message()));

  const std::string host_part =
      listen_address.substr(0, listen_address.rfind(':'));
  std::printf("%s %s listening on %s:%d\n", tool_name, name.c_str(),
              host_part.c_str(), (*server)->port());
  std::fflush(stdout);

  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::fprintf(stderr, "%s %s: %s, shutting down\n", tool_name, name.c_str(),
               signal == SIGTERM ? "SIGTERM" : "SIGINT");
  const absl::Duration grace = absl::Seconds(*flags.shutdown_grace_seconds);
  // Calls still running at the grace's end are cancelled, but a kernel
  // blocked outside the executor never notices: the watchdog ends the
  // process rather than let it outlive its SIGTERM.
  tools::ExitWatchdog watchdog(
      absl::Now() + grace + tools::kStuckWorkMargin,
      absl::StrCat(tool_name, " ", name, ": calls still running ",
                   absl::FormatDuration(tools::kStuckWorkMargin),
                   " after the shutdown grace of ", absl::FormatDuration(grace),
                   ": a kernel blocked outside the executor does not stop when "
                   "cancelled; exiting without it"));
  (*server)->Shutdown(grace);
  server->reset();
  host.Quiesce();
  if (absl::Status written = (*observers)->WriteTrace(); !written.ok()) {
    return fail(std::string(written.message()));
  }
  return 0;
}

}  // namespace sluice
