// sluice_run: runs the functions of a compiled program and prints their
// results (in the format TFRT tests expect).
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "dialects/register.h"
#include "kernels/ccl/ccl_kernels.h"
#include "kernels/ccl/nccl_kernels.h"
#include "kernels/dist/distributed_context.h"
#include "kernels/gpu/gpu_kernels.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "mlir/IR/DialectRegistry.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/compiler/compile_source.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/executor/program.h"
#include "sluice/executor/tool_observers.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/kernels/data_kernels.h"
#include "sluice/kernels/dist_kernels.h"
#include "sluice/kernels/ft_kernels.h"
#include "sluice/kernels/math_kernels.h"
#include "sluice/kernels/tensor_kernels.h"
#include "sluice/kernels/test_kernels.h"
#include "sluice/support/error_util.h"
#include "sluice/support/fault_point.h"
#include "sluice/support/print.h"
#include "tools/sluice_run/diagnostic_verifier.h"
#include "tools/sluice_run/load_diagnostics.h"
#include "tools/sluice_run/value_printer.h"

namespace {

namespace cl = llvm::cl;

cl::opt<std::string> input_file(
    cl::Positional, cl::desc("<program.mlir | program.sbf | - for stdin>"),
    cl::init("-"));
cl::opt<std::string> work_queue_type(
    "work_queue_type",
    cl::desc("s (single-threaded, the default) | mstd | mstd:N | mstd:N,M"),
    cl::init("s"));
cl::list<std::string> functions(
    "functions", cl::desc("run only these functions, in this order"),
    cl::CommaSeparated);
cl::opt<std::string> test_init_function(
    "test_init_function", cl::desc("run this function first, then the rest"),
    cl::init(""));
cl::opt<bool> print_error_code(
    "print_error_code", cl::desc("print error values with their status code"),
    cl::init(false));
cl::opt<std::string> host_allocator_type(
    "host_allocator_type",
    cl::desc("malloc | leak_check (the default: leaks fail the run) | "
             "profiled | test_fixed_size_1k"),
    cl::init("leak_check"));
cl::opt<bool> verify_diagnostics(
    "verify-diagnostics",
    cl::desc("check runtime errors against expected-error annotations in "
             "the source file"),
    cl::init(false));
cl::opt<double> timeout_seconds(
    "timeout",
    cl::desc("cancel each function after this many seconds, printing what "
             "it still waited for"),
    cl::init(0));
cl::opt<std::string> trace_file(
    "trace",
    cl::desc("write a timeline of the run to this file (Chrome trace-event "
             "JSON: open it in ui.perfetto.dev)"),
    cl::init(""));
cl::opt<bool> explain_hangs(
    "explain_hangs",
    cl::desc("on SIGUSR1, print what the running function still waits for"),
    cl::init(false));
cl::opt<std::string> cluster(
    "cluster",
    cl::desc("the tasks tfrt_dist ops talk to: JSON ({\"worker\": "
             "[\"host:port\", ...]}) or @file (default: $SLUICE_CLUSTER)"),
    cl::init(""));
cl::opt<int> rpc_deadline_ms(
    "rpc_deadline_ms",
    cl::desc("deadline of each RPC of tfrt_dist ops, in milliseconds"),
    cl::init(30000));
cl::opt<bool> list_kernels(
    "list_kernels",
    cl::desc("print every registered kernel with what it takes (operands, "
             "results, attributes), and exit"),
    cl::init(false));

// The kernels programs run by this tool may use.
absl::Status RegisterKernels(sluice::KernelRegistry* registry) {
  for (auto* group :
       {&sluice::RegisterBasicKernels, &sluice::RegisterTestKernels,
        &sluice::RegisterDistKernels, &sluice::RegisterTensorKernels,
        &sluice::RegisterMathKernels, &sluice::RegisterFtKernels,
        &sluice::RegisterDataKernels, &sluice::RegisterCclKernels,
        &sluice::RegisterGpuKernels, &sluice::RegisterCclDeviceKernels}) {
    if (absl::Status status = group(registry); !status.ok()) return status;
  }
  return absl::OkStatus();
}

// The test budget allocator counts only allocations above 32 bytes.
class SmallAllocationsFree final : public sluice::HostAllocator {
 public:
  explicit SmallAllocationsFree(std::unique_ptr<HostAllocator> budget)
      : budget_(std::move(budget)), small_(sluice::CreateMallocAllocator()) {}
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
class BorrowedAllocator final : public sluice::HostAllocator {
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

std::unique_ptr<sluice::HostAllocator> CreateAllocator(
    const std::string& type, sluice::LeakCheckAllocator** leak_check) {
  *leak_check = nullptr;
  if (type == "malloc") return sluice::CreateMallocAllocator();
  if (type == "profiled") {
    return std::make_unique<sluice::ProfilingAllocator>(
        sluice::CreateMallocAllocator(), "sluice_run");
  }
  if (type == "test_fixed_size_1k") {
    return std::make_unique<SmallAllocationsFree>(
        std::make_unique<sluice::FixedBudgetAllocator>(1024));
  }
  if (type == "leak_check") {
    auto allocator = std::make_unique<sluice::LeakCheckAllocator>(
        sluice::CreateMallocAllocator());
    *leak_check = allocator.get();
    return allocator;
  }
  return nullptr;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "sluice_run: %s\n", message.c_str());
  return 1;
}

// "file:line:col: error: MESSAGE" for a load error that names a location.
std::string FormatLoadError(const absl::Status& status) {
  sluice::ErrorContext context = sluice::GetErrorContext(status);
  std::string prefix =
      context.location.empty() ? "sluice_run: " : context.location + ": ";
  return absl::StrCat(prefix, "error: ", std::string(status.message()));
}

// The exit status under -verify-diagnostics: 0 when every annotation was
// matched and no diagnostic was unexpected.
int VerificationStatus(const sluice::DiagnosticVerifier& verifier) {
  const std::string problems = verifier.Finish();
  if (problems.empty()) return 0;
  std::fprintf(stderr, "%s", problems.c_str());
  return 1;
}

// A program that does not load runs nothing; its load errors take part in
// verification like runtime ones.
int VerifyLoadErrors(const absl::Status& status,
                     sluice::DiagnosticVerifier& verifier) {
  for (const sluice::LoadDiagnostic& load :
       sluice::LoadErrorDiagnostics(status)) {
    if (!verifier.Match(load.diagnostic)) {
      std::fprintf(stderr, "%s\n", load.text.c_str());
    }
  }
  return VerificationStatus(verifier);
}

}  // namespace

int main(int argc, char** argv) {
  cl::SetVersionPrinter(
      [](llvm::raw_ostream& os) { os << "sluice_run (Sluice)\n"; });
  cl::ParseCommandLineOptions(
      argc, argv,
      "sluice_run: runs every function of a Sluice program (.mlir, compiled "
      "in memory, or .sbf) that takes no arguments, in file order, and "
      "prints what each returns\n");

  if (list_kernels) {
    sluice::KernelRegistry registry;
    if (absl::Status registered = RegisterKernels(&registry);
        !registered.ok()) {
      return Fail(std::string(registered.message()));
    }
    for (const std::string& name : registry.KernelNames()) {
      std::printf(
          "%s\n",
          sluice::DescribeKernel(name, *registry.GetKernel(name)).c_str());
    }
    return 0;
  }

  // A fault spec that does not parse stops the run before anything runs.
  if (absl::Status faults = sluice::FaultInjector::InitFromEnvironment();
      !faults.ok()) {
    return Fail(std::string(faults.message()));
  }
  if (rpc_deadline_ms <= 0) {
    return Fail(absl::StrCat("--rpc_deadline_ms must be positive, got ",
                             rpc_deadline_ms.getValue()));
  }
  sluice::dist::RpcOptions rpc_options;
  rpc_options.deadline = absl::Milliseconds(rpc_deadline_ms.getValue());
  // A cluster named on the command line is checked before anything runs.
  // One from SLUICE_CLUSTER is read by the first tfrt_dist op, so that
  // programs without any run whatever the environment holds.
  std::optional<sluice::dist::ClusterSpec> cluster_spec;
  if (!cluster.empty()) {
    auto spec = sluice::dist::ClusterSpec::FromFlagOrEnvironment(cluster);
    if (!spec.ok()) return Fail(std::string(spec.status().message()));
    auto policy = sluice::dist::FailFastPolicyFromEnvironment();
    if (!policy.ok()) return Fail(std::string(policy.status().message()));
    cluster_spec = *std::move(spec);
    rpc_options.fail_fast = *policy;
  }

  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(input_file);
  if (!buffer) {
    return Fail(absl::StrCat("couldn't read '", input_file.getValue(),
                             "': ", buffer.getError().message()));
  }
  // The input's kind comes from its content: compiled programs start with
  // the SBF magic number; anything else is MLIR text, compiled here.
  const auto* data =
      reinterpret_cast<const uint8_t*>((*buffer)->getBufferStart());
  absl::Span<const uint8_t> bytes(data, (*buffer)->getBufferSize());
  std::vector<uint8_t> compiled;
  const bool is_mlir = !sluice::bef::HasSbfMagic(bytes);
  if (is_mlir) {
    mlir::DialectRegistry dialects;
    sluice::RegisterSluiceDialects(dialects);
    absl::StatusOr<std::vector<uint8_t>> sbf = sluice::CompileMlirToSbf(
        (*buffer)->getBuffer().str(),
        input_file == "-" ? "<stdin>" : input_file.getValue(), dialects);
    // The compiler printed its diagnostics already.
    if (!sbf.ok()) return 1;
    compiled = *std::move(sbf);
    bytes = compiled;
  }

  sluice::DiagnosticVerifier verifier;
  if (verify_diagnostics && is_mlir && input_file != "-") {
    verifier.AddSourceFile(input_file);
  }
  std::mutex diagnostics_mu;
  bool runtime_error = false;
  auto on_diagnostic = [&](const sluice::DecodedDiagnostic& diagnostic) {
    std::lock_guard<std::mutex> lock(diagnostics_mu);
    runtime_error = true;
    if (verify_diagnostics && verifier.Match(diagnostic)) return;
    std::fprintf(stderr, "%s\n", diagnostic.ToString().c_str());
  };

  sluice::LeakCheckAllocator* leak_check = nullptr;
  std::unique_ptr<sluice::HostAllocator> allocator =
      CreateAllocator(host_allocator_type, &leak_check);
  if (!allocator) {
    return Fail(absl::StrCat("unknown host allocator type '",
                             host_allocator_type.getValue(), "'"));
  }
  auto work_queue = sluice::CreateWorkQueue(work_queue_type.getValue());
  if (!work_queue.ok()) {
    return Fail(std::string(work_queue.status().message()));
  }
  auto observers = sluice::ToolObservers::Create(
      {"sluice_run", trace_file, timeout_seconds > 0, explain_hangs});
  if (!observers.ok()) return Fail(std::string(observers.status().message()));
  bool failed = false;
  {
    sluice::HostContext host(
        on_diagnostic, std::make_unique<BorrowedAllocator>(allocator.get()),
        *std::move(work_queue));
    sluice::KernelRegistry& registry = sluice::GetKernelRegistry(&host);
    if (absl::Status registered = RegisterKernels(&registry);
        !registered.ok()) {
      return Fail(std::string(registered.message()));
    }
    auto& distributed =
        host.GetOrCreateSharedContext<sluice::DistributedContext>();
    distributed.SetDefaultDeadline(rpc_options.deadline);
    if (cluster_spec) {
      absl::Status configured =
          distributed.Configure(*std::move(cluster_spec), rpc_options);
      if (!configured.ok()) return Fail(std::string(configured.message()));
    }

    auto program = sluice::Program::Load(bytes, registry);
    if (!program.ok() && verify_diagnostics) {
      return VerifyLoadErrors(program.status(), verifier);
    }
    if (!program.ok()) {
      std::fprintf(stderr, "%s\n", FormatLoadError(program.status()).c_str());
      return 1;
    }

    std::vector<const sluice::Function*> to_run;
    if (!test_init_function.empty()) {
      const sluice::Function* init =
          (*program)->GetFunction(test_init_function);
      if (init == nullptr) {
        return Fail(absl::StrCat("couldn't find function ",
                                 test_init_function.getValue()));
      }
      to_run.push_back(init);
    }
    if (!functions.empty()) {
      for (const std::string& name : functions) {
        const sluice::Function* function = (*program)->GetFunction(name);
        if (function == nullptr) {
          return Fail(absl::StrCat("couldn't find function ", name));
        }
        // The init function already runs first, and only then.
        if (name != test_init_function) to_run.push_back(function);
      }
    } else {
      for (const sluice::Function* function : (*program)->ListFunctions()) {
        if (function->name() != test_init_function) to_run.push_back(function);
      }
    }

    for (const sluice::Function* function : to_run) {
      if (function->num_arguments() > 0) {
        sluice::PrintLine(absl::StrCat("--- Not running '", function->name(),
                                       "' because it has arguments."));
        continue;
      }
      sluice::PrintLine(absl::StrCat("--- Running '", function->name(), "':"));
      std::optional<absl::Time> deadline;
      if (timeout_seconds > 0) {
        deadline = absl::Now() + absl::Seconds(timeout_seconds.getValue());
      }
      sluice::RCReference<sluice::RequestContext> request =
          sluice::RequestContext::Create(&host, deadline);
      request->set_observers((*observers)->observers());
      (*observers)
          ->ExplainOnDeadline(*request,
                              absl::StrCat("sluice_run: '", function->name(),
                                           "' passed its --timeout of ",
                                           timeout_seconds.getValue(),
                                           " s; what is still unresolved:"));
      sluice::ExecutionContext context(std::move(request));
      std::vector<sluice::RCReference<sluice::AsyncValue>> results =
          sluice::CallFunction(*function, context, {});
      host.Await(results);
      host.Quiesce();
      // Remote calls whose results nobody waits for are still this
      // function's work; this also leaves no RPC in flight when the host,
      // and its work queue, go away.
      distributed.AwaitIdle();
      if (results.empty()) continue;
      std::vector<std::string_view> types = (*program)->ResultTypes(*function);
      std::string line = absl::StrCat("'", function->name(), "' returned ");
      for (size_t i = 0; i < results.size(); ++i) {
        if (i > 0) line += ",";
        if (results[i]->IsError()) failed = true;
        line += sluice::FormatResult(*results[i], types[i], print_error_code);
      }
      sluice::PrintLine(line);
    }
  }

  if (absl::Status written = (*observers)->WriteTrace(); !written.ok()) {
    return Fail(std::string(written.message()));
  }
  // Everything the run made is gone with the host and the program: a value
  // still alive is a leak (a reference cycle, a lost reference).
  if (sluice::AsyncValue::kCountsInstances &&
      sluice::AsyncValue::NumLiveInstances() > 0) {
    std::fprintf(
        stderr, "sluice_run: %lld AsyncValue(s) leaked at exit\n",
        static_cast<long long>(sluice::AsyncValue::NumLiveInstances()));
    return 1;
  }
  if (leak_check != nullptr && leak_check->num_alive_allocations() > 0) {
    sluice::PrintLine(absl::StrCat(
        "Memory leak detected: ", leak_check->num_alive_allocations(),
        " alive allocations, ", leak_check->num_alive_bytes(), " alive bytes"));
    return 1;
  }
  // As in mlir-opt, the status under -verify-diagnostics is the
  // verification's alone, so a test pipes the output to FileCheck.
  if (verify_diagnostics) return VerificationStatus(verifier);
  return (failed || runtime_error) ? 1 : 0;
}
