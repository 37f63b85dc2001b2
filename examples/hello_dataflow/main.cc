// hello_dataflow: a host program that registers three kernels of its own and
// runs a small dataflow graph over them on a multi-threaded host, the way the
// executor would, without a compiled program. See --help.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/logging.h"

namespace hello {
namespace {

using ::sluice::AsyncValue;
using ::sluice::ExecutionContext;
using ::sluice::RCReference;

constexpr char kHelp[] =
    "usage: hello_dataflow\n"
    "\n"
    "Runs a small dataflow graph on a Sluice host with two worker threads: it\n"
    "squares the numbers 1 to 8 asynchronously on the work queue, joins the\n"
    "squares into their sum once all of them are ready, divides the sum by 4\n"
    "and by 0, and squares the second quotient. The division by zero yields\n"
    "an error value instead of a number; the error flows to every value that\n"
    "depends on it, and the kernel that would square it never runs. Results\n"
    "go to stdout, in a fixed order, once every value is available;\n"
    "diagnostics go to stderr.\n";

// --- Kernels
// ------------------------------------------------------------------

// Asynchronous: the caller gets an unavailable value at once.
sluice::AsyncValueRef<int64_t> SquareI64(int64_t x, sluice::HostContext* host) {
  return sluice::EnqueueWork(host, [x] { return x * x; });
}

int64_t SumI64(sluice::RemainingArguments values) {
  int64_t sum = 0;
  for (size_t i = 0; i < values.size(); ++i) sum += values[i]->get<int64_t>();
  return sum;
}

// The message is TFRT's, so that programs ported from it print the same.
absl::StatusOr<int64_t> DivI64(int64_t dividend, int64_t divisor) {
  if (divisor == 0) return absl::InvalidArgumentError("Divide by zero");
  return dividend / divisor;
}

absl::Status RegisterHelloKernels(sluice::KernelRegistry* registry) {
  return registry->AddKernels({
      {"hello.square.i64", SLUICE_KERNEL(SquareI64)},
      {"hello.sum.i64", SLUICE_KERNEL(SumI64)},
      {"hello.div.i64", SLUICE_KERNEL(DivI64)},
  });
}

// --- A miniature executor
// -------------------------------------------------------

RCReference<AsyncValue> Invoke(const ExecutionContext& context,
                               const std::string& name,
                               std::vector<RCReference<AsyncValue>> arguments) {
  const sluice::RegisteredKernel* kernel =
      sluice::GetKernelRegistry(context.host()).GetKernel(name);
  SLUICE_CHECK(kernel != nullptr) << "no kernel '" << name << "'";
  sluice::KernelFrameBuilder frame(context, name);
  for (RCReference<AsyncValue>& argument : arguments) {
    frame.AddArg(std::move(argument));
  }
  frame.SetNumResults(1);
  frame.Invoke(kernel->implementation);
  return frame.result(0).CopyRef();
}

// Calls a strict kernel as the executor does: once every argument is
// available, and not at all if one is an error, which then becomes the
// result.
RCReference<AsyncValue> Call(const ExecutionContext& context, std::string name,
                             std::vector<RCReference<AsyncValue>> arguments) {
  RCReference<sluice::IndirectAsyncValue> result =
      sluice::MakeIndirectAsyncValue();
  // A separate list of pointers: `arguments` moves into the callback, which
  // keeps the values alive until it runs.
  std::vector<AsyncValue*> pending;
  for (const RCReference<AsyncValue>& argument : arguments) {
    pending.push_back(argument.get());
  }
  sluice::RunWhenReady(pending, [context, name = std::move(name),
                                 arguments = std::move(arguments),
                                 result = result.CopyRef()]() mutable {
    for (const RCReference<AsyncValue>& argument : arguments) {
      if (argument->IsError()) {
        result->ForwardTo(argument.CopyRef());
        return;
      }
    }
    result->ForwardTo(Invoke(context, name, std::move(arguments)));
  });
  return result;
}

// Argument lists: RCReferences move, so a braced list cannot hold them.
template <typename... Values>
std::vector<RCReference<AsyncValue>> Args(Values... values) {
  std::vector<RCReference<AsyncValue>> arguments;
  (arguments.push_back(std::move(values)), ...);
  return arguments;
}

RCReference<AsyncValue> Constant(int64_t value) {
  return sluice::MakeAvailableAsyncValueRef<int64_t>(value).ReleaseRCRef();
}

std::string Show(const RCReference<AsyncValue>& value) {
  if (value->IsError()) {
    return "error: " + std::string(value->GetError().message());
  }
  return std::to_string(value->get<int64_t>());
}

int Run() {
  absl::StatusOr<std::unique_ptr<sluice::ConcurrentWorkQueue>> work_queue =
      sluice::CreateWorkQueue("mstd:2,4");
  if (!work_queue.ok()) {
    std::fprintf(stderr, "hello_dataflow: %s\n",
                 std::string(work_queue.status().message()).c_str());
    return 1;
  }
  auto allocator = std::make_unique<sluice::LeakCheckAllocator>(
      sluice::CreateMallocAllocator());
  sluice::LeakCheckAllocator* leak_check = allocator.get();
  sluice::HostContext host(
      [](const sluice::DecodedDiagnostic& diagnostic) {
        // One call per line, so lines from different workers stay whole.
        std::fprintf(stderr, "hello_dataflow: %s\n",
                     diagnostic.ToString().c_str());
      },
      std::move(allocator), *std::move(work_queue));
  if (absl::Status registered =
          RegisterHelloKernels(&sluice::GetKernelRegistry(&host));
      !registered.ok()) {
    std::fprintf(stderr, "hello_dataflow: %s\n", registered.ToString().c_str());
    return 1;
  }
  ExecutionContext context(sluice::RequestContext::Create(&host));

  constexpr int64_t kCount = 8;
  std::vector<RCReference<AsyncValue>> squares;
  for (int64_t i = 1; i <= kCount; ++i) {
    squares.push_back(Call(context, "hello.square.i64", Args(Constant(i))));
  }
  std::vector<RCReference<AsyncValue>> addends;
  for (const RCReference<AsyncValue>& square : squares) {
    addends.push_back(square.CopyRef());
  }
  RCReference<AsyncValue> sum =
      Call(context, "hello.sum.i64", std::move(addends));
  RCReference<AsyncValue> by_four =
      Call(context, "hello.div.i64", Args(sum.CopyRef(), Constant(4)));
  RCReference<AsyncValue> by_zero =
      Call(context, "hello.div.i64", Args(sum.CopyRef(), Constant(0)));
  RCReference<AsyncValue> squared_error =
      Call(context, "hello.square.i64", Args(by_zero.CopyRef()));

  std::vector<RCReference<AsyncValue>> everything;
  for (const RCReference<AsyncValue>& square : squares) {
    everything.push_back(square.CopyRef());
  }
  everything.push_back(sum.CopyRef());
  everything.push_back(by_four.CopyRef());
  everything.push_back(by_zero.CopyRef());
  everything.push_back(squared_error.CopyRef());
  host.Await(everything);

  for (int64_t i = 1; i <= kCount; ++i) {
    std::printf("square(%lld) = %s\n", static_cast<long long>(i),
                Show(squares[i - 1]).c_str());
  }
  const std::string total = Show(sum);
  std::printf("sum of squares = %s\n", total.c_str());
  std::printf("%s / 4 = %s\n", total.c_str(), Show(by_four).c_str());
  std::printf("%s / 0 = %s\n", total.c_str(), Show(by_zero).c_str());
  std::printf("square(%s / 0) = %s\n", total.c_str(),
              Show(squared_error).c_str());

  host.Quiesce();
  const std::string leaks = leak_check->LeakReport();
  if (!leaks.empty()) {
    std::fprintf(stderr, "hello_dataflow: host allocator: %s\n", leaks.c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace hello

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(hello::kHelp, stdout);
      return 0;
    }
    std::fprintf(stderr, "hello_dataflow: unknown argument '%s' (try --help)\n",
                 argv[i]);
    return 2;
  }
  return hello::Run();
}
