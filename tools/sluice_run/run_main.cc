// sluice_run as a library (sluice/tools/run_main.h): runs the functions of
// a compiled program and prints their results (in the format TFRT tests
// expect).
#include "sluice/tools/run_main.h"

#include <cstdio>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "dialects/register.h"
#include "kernels/dist/distributed_context.h"
#include "lib/executor/tool_observers.h"
#include "mlir/IR/DialectRegistry.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/compiler/compile_source.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/support/error_util.h"
#include "sluice/support/fault_point.h"
#include "sluice/support/file_reading.h"
#include "sluice/support/print.h"
#include "tools/common/command_line.h"
#include "tools/common/exit_watchdog.h"
#include "tools/common/flag_checks.h"
#include "tools/common/kernel_flags.h"
#include "tools/common/tool_flags.h"
#include "tools/sluice_run/diagnostic_verifier.h"
#include "tools/sluice_run/function_arguments.h"
#include "tools/sluice_run/load_diagnostics.h"
#include "tools/sluice_run/root_cause_report.h"
#include "tools/sluice_run/value_printer.h"

namespace sluice {
namespace {

// The flags, made when SluiceRunMain runs (a program may link the runner
// library without running it).
struct RunOptions {
  tools::FlagSet set;
  tools::PositionalArg input_file{
      set, "<program.mlir | program.sbf | - for stdin>", "-"};
  tools::Flag<std::string> work_queue_type{
      set, "work_queue_type",
      "s (single-threaded, the default) | mstd | mstd:N | mstd:N,M", "s"};
  tools::Flag<std::vector<std::string>> functions{
      set,
      "functions",
      "run only these functions, in this order",
      {},
      tools::CommaSeparated()};
  tools::Flag<std::string> test_init_function{
      set, "test_init_function", "run this function first, then the rest"};
  tools::Flag<std::vector<std::string>> args{
      set,
      "args",
      "run FUNCTION, which takes arguments, with these values (repeatable; "
      "i1: true|false, i32, i64, f32, f64, !tfrt.chain: chain)",
      {},
      tools::ValueName("FUNCTION:VALUE,VALUE,...")};
  tools::Flag<bool> print_error_code{
      set, "print_error_code", "print error values with their status code"};
  tools::Flag<std::string> host_allocator_type{
      set, "host_allocator_type",
      "malloc | leak_check (the default: leaks fail the run) | profiled | "
      "test_fixed_size_1k",
      "leak_check"};
  tools::Flag<bool> verify_diagnostics{
      set, "verify-diagnostics",
      "check runtime errors against expected-error annotations in the source "
      "file"};
  tools::Flag<double> timeout_seconds{
      set, "timeout",
      "cancel each function after this many seconds, printing what it still "
      "waited for (default 0: never)",
      0.0, tools::InRange(0.0, tools::kMaxSeconds)};
  tools::Flag<std::string> trace_file{
      set, "trace",
      "write a timeline of the run to this file (Chrome trace-event JSON: "
      "open it in ui.perfetto.dev)"};
  tools::Flag<bool> explain_hangs{
      set, "explain_hangs",
      "on SIGUSR1, print what the running function still waits for"};
  tools::Flag<std::string> cluster{
      set, "cluster",
      "the tasks tfrt_dist ops talk to: JSON ({\"worker\": [\"host:port\", "
      "...]}) or @file (default: $SLUICE_CLUSTER)"};
  tools::Flag<int> rpc_deadline_ms{
      set, "rpc_deadline_ms",
      "deadline of each RPC of tfrt_dist ops, in milliseconds", 30000,
      tools::InRange(1, tools::kMaxMilliseconds)};
  tools::KernelFlags kernels{set};
};

// The test budget allocator counts only allocations above 32 bytes.
class SmallAllocationsFree final : public HostAllocator {
 public:
  explicit SmallAllocationsFree(std::unique_ptr<HostAllocator> budget)
      : budget_(std::move(budget)), small_(CreateMallocAllocator()) {}
  void* AllocateBytes(size_t size, size_t alignment) override {
    return (size <= 32 ? small_ : budget_)->AllocateBytes(size, alignment);
  }
  void DeallocateBytes(void* ptr, size_t size) override {
    (size <= 32 ? small_ : budget_)->DeallocateBytes(ptr, size);
  }

 private:
  std::unique_ptr<HostAllocator> budget_;
  std::unique_ptr<HostAllocator> small_;
};

// Lends an allocator the runner owns to the HostContext, so that the leak
// check can read its counts after the host (and all it freed) is gone.
class BorrowedAllocator final : public HostAllocator {
 public:
  explicit BorrowedAllocator(HostAllocator* owner) : owner_(owner) {}
  void* AllocateBytes(size_t size, size_t alignment) override {
    return owner_->AllocateBytes(size, alignment);
  }
  void DeallocateBytes(void* ptr, size_t size) override {
    owner_->DeallocateBytes(ptr, size);
  }

 private:
  HostAllocator* owner_;
};

std::unique_ptr<HostAllocator> CreateAllocator(
    const std::string& type, const char* tool_name,
    LeakCheckAllocator** leak_check) {
  *leak_check = nullptr;
  if (type == "malloc") return CreateMallocAllocator();
  if (type == "profiled") {
    return std::make_unique<ProfilingAllocator>(CreateMallocAllocator(),
                                                tool_name);
  }
  if (type == "test_fixed_size_1k") {
    return std::make_unique<SmallAllocationsFree>(
        std::make_unique<FixedBudgetAllocator>(1024));
  }
  if (type == "leak_check") {
    auto allocator =
        std::make_unique<LeakCheckAllocator>(CreateMallocAllocator());
    *leak_check = allocator.get();
    return allocator;
  }
  return nullptr;
}

int Fail(const char* tool_name, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", tool_name, message.c_str());
  return 1;
}

// "file:line:col: error: MESSAGE" for a load error that names a location.
std::string FormatLoadError(const char* tool_name, const absl::Status& status) {
  ErrorContext context = GetErrorContext(status);
  std::string prefix = context.location.empty() ? absl::StrCat(tool_name, ": ")
                                                : context.location + ": ";
  return absl::StrCat(prefix, "error: ", std::string(status.message()));
}

// The exit status under -verify-diagnostics: 0 when every annotation was
// matched and no diagnostic was unexpected.
int VerificationStatus(const DiagnosticVerifier& verifier) {
  const std::string problems = verifier.Finish();
  if (problems.empty()) return 0;
  std::fprintf(stderr, "%s", problems.c_str());
  return 1;
}

// A program that does not load runs nothing; its load errors take part in
// verification like runtime ones.
int VerifyLoadErrors(const absl::Status& status, DiagnosticVerifier& verifier) {
  for (const LoadDiagnostic& load : LoadErrorDiagnostics(status)) {
    if (!verifier.Match(load.diagnostic)) {
      std::fprintf(stderr, "%s\n", load.text.c_str());
    }
  }
  return VerificationStatus(verifier);
}

// The RPC options and the cluster of --cluster (checked before anything
// runs; one from SLUICE_CLUSTER is read by the first tfrt_dist op, so that
// programs without any run whatever the environment holds), after the
// fault spec of the environment (one that does not parse stops the run).
absl::Status SetUpDistribution(const RunOptions& options, const char* tool_name,
                               dist::RpcOptions& rpc_options,
                               std::optional<dist::ClusterSpec>& cluster) {
  if (absl::Status faults = FaultInjector::InitFromEnvironment();
      !faults.ok()) {
    return faults;
  }
  rpc_options.deadline = absl::Milliseconds(*options.rpc_deadline_ms);
  // A dead task is not seconds of silence: the runner says what it waits
  // for while it waits.
  rpc_options.on_waiting = [tool_name](const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", tool_name, message.c_str());
  };
  if (options.cluster->empty()) return absl::OkStatus();
  auto spec = dist::ClusterSpec::FromFlagOrEnvironment(*options.cluster);
  if (!spec.ok()) return spec.status();
  auto policy = dist::FailFastPolicyFromEnvironment();
  if (!policy.ok()) return policy.status();
  cluster = *std::move(spec);
  rpc_options.fail_fast = *policy;
  return absl::OkStatus();
}

// The program to run, as SBF bytes.
struct Input {
  std::string text;  // the file as read
  bool is_mlir = false;
  std::vector<uint8_t> compiled;  // when it was MLIR
  absl::Span<const uint8_t> bytes;
};

// Reads the input and compiles it when it is MLIR: its kind comes from its
// content (compiled programs start with the SBF magic number). Null when
// the compiler failed, having printed its diagnostics.
absl::StatusOr<std::unique_ptr<Input>> ReadInput(const RunOptions& options) {
  absl::StatusOr<std::string> text = ReadToolInput(*options.input_file);
  if (!text.ok()) return text.status();
  auto input = std::make_unique<Input>();
  input->text = *std::move(text);
  input->bytes = absl::Span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(input->text.data()), input->text.size());
  input->is_mlir = !bef::HasSbfMagic(input->bytes);
  if (!input->is_mlir) return input;
  mlir::DialectRegistry dialects;
  RegisterSluiceDialects(dialects);
  absl::StatusOr<std::vector<uint8_t>> sbf = CompileMlirToSbf(
      input->text, *options.input_file == "-" ? "<stdin>" : *options.input_file,
      dialects);
  if (!sbf.ok()) return nullptr;
  input->compiled = *std::move(sbf);
  input->bytes = input->compiled;
  return input;
}

// The functions to run, in order: --test_init_function first, then those
// of --functions, or else every other function of the program.
absl::StatusOr<std::vector<const Function*>> FunctionsToRun(
    const RunOptions& options, const Program& program) {
  std::vector<const Function*> to_run;
  if (!options.test_init_function->empty()) {
    const Function* init = program.GetFunction(*options.test_init_function);
    if (init == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("couldn't find function ", *options.test_init_function));
    }
    to_run.push_back(init);
  }
  if (!options.functions->empty()) {
    for (const std::string& name : *options.functions) {
      const Function* function = program.GetFunction(name);
      if (function == nullptr) {
        return absl::NotFoundError(
            absl::StrCat("couldn't find function ", name));
      }
      // The init function already runs first, and only then.
      if (name != *options.test_init_function) to_run.push_back(function);
    }
    return to_run;
  }
  for (const Function* function : program.ListFunctions()) {
    if (function->name() != *options.test_init_function) {
      to_run.push_back(function);
    }
  }
  return to_run;
}

using ArgumentsOf =
    std::map<std::string, std::vector<RCReference<AsyncValue>>, std::less<>>;

// Every --args, checked before anything runs.
absl::StatusOr<ArgumentsOf> ParseArguments(const RunOptions& options,
                                           const Program& program) {
  ArgumentsOf arguments_of;
  for (const std::string& flag : *options.args) {
    absl::StatusOr<FunctionArguments> parsed = ParseFunctionArguments(flag);
    if (!parsed.ok()) return parsed.status();
    const Function* function = program.GetFunction(parsed->function);
    if (function == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("--args: couldn't find function ", parsed->function));
    }
    absl::StatusOr<std::vector<RCReference<AsyncValue>>> values =
        MakeFunctionArguments(*parsed, program.ArgumentTypes(*function));
    if (!values.ok()) return values.status();
    arguments_of[parsed->function] = *std::move(values);
  }
  return arguments_of;
}

// How long past --timeout the function may take to unwind before the
// watchdog ends the runner. A cancelled remote call unwinds through several
// threads, which a sanitizer's build on a loaded 2-core machine did not
// always do within the tools' usual margin.
#if defined(SLUICE_SANITIZER)
constexpr absl::Duration kTimeoutUnwindMargin = absl::Seconds(4);
#else
constexpr absl::Duration kTimeoutUnwindMargin = tools::kStuckWorkMargin;
#endif

// Runs `function` to the end (its remote calls included) and prints what
// it returned, after the runtime errors that waited for its end (their root
// causes were printed first); false when a result is an error.
bool RunFunction(const Function& function,
                 const std::vector<RCReference<AsyncValue>>* given,
                 const Program& program, HostContext& host,
                 DistributedContext& distributed, ToolObservers& observers,
                 RootCauseReport& root_causes, const RunOptions& options,
                 const char* tool_name) {
  std::vector<AsyncValue*> arguments;
  if (given != nullptr) {
    for (const RCReference<AsyncValue>& value : *given) {
      arguments.push_back(value.get());
    }
  }
  PrintLine(absl::StrCat("--- Running '", function.name(), "':"));
  std::optional<absl::Time> deadline;
  if (*options.timeout_seconds > 0) {
    deadline = absl::Now() + absl::Seconds(*options.timeout_seconds);
  }
  RCReference<RequestContext> request = RequestContext::Create(&host, deadline);
  request->set_observers(observers.observers());
  observers.ExplainOnDeadline(
      *request,
      absl::StrCat(tool_name, ": '", function.name(),
                   "' passed its --timeout of ", *options.timeout_seconds,
                   " s; what is still unresolved:"));
  ExecutionContext context(std::move(request));
  std::optional<tools::ExitWatchdog> watchdog;
  if (deadline) {
    watchdog.emplace(
        *deadline + kTimeoutUnwindMargin,
        absl::StrCat(tool_name, ": '", function.name(), "' is still running ",
                     absl::FormatDuration(kTimeoutUnwindMargin),
                     " after its --timeout of ", *options.timeout_seconds,
                     " s: a kernel blocked outside the executor does not "
                     "stop when cancelled; exiting without it"));
  }
  std::vector<RCReference<AsyncValue>> results =
      CallFunction(function, context, arguments);
  host.Await(results);
  host.Quiesce();
  // Remote calls whose results nobody waits for are still this function's
  // work; this also leaves no RPC in flight when the host, and its work
  // queue, go away.
  distributed.AwaitIdle();
  watchdog.reset();
  root_causes.Flush();
  if (results.empty()) return true;
  std::vector<std::string_view> types = program.ResultTypes(function);
  std::string line = absl::StrCat("'", function.name(), "' returned ");
  bool ok = true;
  for (size_t i = 0; i < results.size(); ++i) {
    if (i > 0) line += ",";
    if (results[i]->IsError()) ok = false;
    line += FormatResult(*results[i], types[i], *options.print_error_code);
  }
  PrintLine(line);
  return ok;
}

// 1 (and what leaked) when a value or an allocation outlived the run.
int CheckLeaks(const LeakCheckAllocator* leak_check, const char* tool_name) {
  // Everything the run made is gone with the host and the program: a value
  // still alive is a leak (a reference cycle, a lost reference).
  if (AsyncValue::kCountsInstances && AsyncValue::NumLiveInstances() > 0) {
    std::fprintf(stderr, "%s: %lld AsyncValue(s) leaked at exit\n", tool_name,
                 static_cast<long long>(AsyncValue::NumLiveInstances()));
    return 1;
  }
  if (leak_check != nullptr && leak_check->num_alive_allocations() > 0) {
    PrintLine(absl::StrCat(
        "Memory leak detected: ", leak_check->num_alive_allocations(),
        " alive allocations, ", leak_check->num_alive_bytes(), " alive bytes"));
    return 1;
  }
  return 0;
}

}  // namespace

int SluiceRunMain(int argc, char** argv,
                  const RegisterKernelsFn& register_kernels,
                  const char* tool_name) {
  static auto* const options_storage = new RunOptions;
  RunOptions& options = *options_storage;
  const std::string overview = absl::StrCat(
      tool_name,
      ": runs every function of a Sluice program (.mlir, compiled in memory, "
      "or .sbf) that takes no arguments (or gets them from --args), in file "
      "order, and prints what each returns\n");
  // The runner links MLIR to compile .mlir input: its version says which.
  tools::ParseToolCommandLine(argc, argv, tool_name, overview, options.set,
                              tools::VersionTextWithLlvm(tool_name));
  auto fail = [tool_name](const absl::Status& status) {
    return Fail(tool_name, std::string(status.message()));
  };

  if (options.kernels.list_kernels()) {
    KernelRegistry registry;
    if (absl::Status registered =
            options.kernels.RegisterKernels(register_kernels, &registry);
        !registered.ok()) {
      return fail(registered);
    }
    tools::PrintKernels(registry);
    return 0;
  }

  dist::RpcOptions rpc_options;
  std::optional<dist::ClusterSpec> cluster_spec;
  if (absl::Status set_up =
          SetUpDistribution(options, tool_name, rpc_options, cluster_spec);
      !set_up.ok()) {
    return fail(set_up);
  }
  absl::StatusOr<std::unique_ptr<Input>> input = ReadInput(options);
  if (!input.ok()) return fail(input.status());
  // The compiler printed its diagnostics already.
  if (*input == nullptr) return 1;

  DiagnosticVerifier verifier;
  if (*options.verify_diagnostics && (*input)->is_mlir &&
      *options.input_file != "-") {
    verifier.AddSource(*options.input_file, (*input)->text);
  }
  std::mutex diagnostics_mu;
  bool runtime_error = false;
  RootCauseReport root_causes([](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
  });
  auto on_diagnostic = [&](const DecodedDiagnostic& diagnostic) {
    std::lock_guard<std::mutex> lock(diagnostics_mu);
    runtime_error = true;
    if (*options.verify_diagnostics && verifier.Match(diagnostic)) return;
    root_causes.Add(diagnostic);
  };

  LeakCheckAllocator* leak_check = nullptr;
  std::unique_ptr<HostAllocator> allocator =
      CreateAllocator(*options.host_allocator_type, tool_name, &leak_check);
  if (!allocator) {
    return Fail(tool_name, absl::StrCat("unknown host allocator type '",
                                        *options.host_allocator_type, "'"));
  }
  auto work_queue = CreateWorkQueue(*options.work_queue_type);
  if (!work_queue.ok()) return fail(work_queue.status());
  auto observers = ToolObservers::Create({tool_name, *options.trace_file,
                                          *options.timeout_seconds > 0,
                                          *options.explain_hangs});
  if (!observers.ok()) return fail(observers.status());
  bool failed = false;
  {
    HostContext host(on_diagnostic,
                     std::make_unique<BorrowedAllocator>(allocator.get()),
                     *std::move(work_queue));
    KernelRegistry& registry = GetKernelRegistry(&host);
    if (absl::Status registered =
            options.kernels.RegisterKernels(register_kernels, &registry);
        !registered.ok()) {
      return fail(registered);
    }
    auto& distributed = host.GetOrCreateSharedContext<DistributedContext>();
    distributed.SetDefaultDeadline(rpc_options.deadline);
    distributed.SetOnWaiting(rpc_options.on_waiting);
    if (cluster_spec) {
      absl::Status configured =
          distributed.Configure(*std::move(cluster_spec), rpc_options);
      if (!configured.ok()) return fail(configured);
    }

    auto program = Program::Load((*input)->bytes, registry);
    if (!program.ok() && *options.verify_diagnostics) {
      return VerifyLoadErrors(program.status(), verifier);
    }
    if (!program.ok()) {
      std::fprintf(stderr, "%s\n",
                   FormatLoadError(tool_name, program.status()).c_str());
      return 1;
    }
    absl::StatusOr<std::vector<const Function*>> to_run =
        FunctionsToRun(options, **program);
    if (!to_run.ok()) return fail(to_run.status());
    absl::StatusOr<ArgumentsOf> arguments_of =
        ParseArguments(options, **program);
    if (!arguments_of.ok()) return fail(arguments_of.status());

    for (const Function* function : *to_run) {
      auto given = arguments_of->find(function->name());
      if (function->num_arguments() > 0 && given == arguments_of->end()) {
        PrintLine(absl::StrCat("--- Not running '", function->name(),
                               "' because it has arguments."));
        continue;
      }
      if (!RunFunction(*function,
                       given == arguments_of->end() ? nullptr : &given->second,
                       **program, host, distributed, **observers, root_causes,
                       options, tool_name)) {
        failed = true;
      }
    }
  }

  if (absl::Status written = (*observers)->WriteTrace(); !written.ok()) {
    return fail(written);
  }
  if (int leaked = CheckLeaks(leak_check, tool_name); leaked != 0) {
    return leaked;
  }
  // As in mlir-opt, the status under -verify-diagnostics is the
  // verification's alone, so a test pipes the output to FileCheck.
  if (*options.verify_diagnostics) return VerificationStatus(verifier);
  return (failed || runtime_error) ? 1 : 0;
}

}  // namespace sluice
