// embed: a host program that embeds Sluice. It loads a compiled program
// (triple_plus.mlir, compiled by sluice_translate), runs one of its functions
// with arguments on a multi-threaded host, and handles the errors and the
// cancellation that come back as values. docs/embedding.md walks through it;
// embed_test.sh holds its output.
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/sluice.h"

namespace {

// [START kernel]
// Unlike tfrt.mul.i32, which wraps around, this kernel refuses a product
// that does not fit: the caller gets an error value instead of a wrong number.
absl::StatusOr<int32_t> ScaleI32(int32_t x, sluice::Attribute<int32_t> factor) {
  const int64_t scaled = int64_t{x} * *factor;
  if (scaled < std::numeric_limits<int32_t>::min() ||
      scaled > std::numeric_limits<int32_t>::max()) {
    return absl::OutOfRangeError(std::to_string(x) + " * " +
                                 std::to_string(*factor) + " overflows i32");
  }
  return static_cast<int32_t>(scaled);
}
// [END kernel]

// [START call]
// Runs `function` on (x, y) in a request of its own and waits for every
// result, errors included.
std::vector<sluice::RCReference<sluice::AsyncValue>> CallAndWait(
    sluice::HostContext* host, const sluice::Function& function, int32_t x,
    int32_t y) {
  sluice::AsyncValueRef<int32_t> x_value =
      sluice::MakeAvailableAsyncValueRef<int32_t>(x);
  sluice::AsyncValueRef<int32_t> y_value =
      sluice::MakeAvailableAsyncValueRef<int32_t>(y);
  sluice::AsyncValue* const arguments[] = {x_value.GetAsyncValue(),
                                           y_value.GetAsyncValue()};
  // Past the deadline, kernels not yet started see DEADLINE_EXCEEDED as
  // their input, so a stuck call still returns.
  sluice::ExecutionContext context(
      sluice::RequestContext::Create(host, absl::Now() + absl::Seconds(10)));
  std::vector<sluice::RCReference<sluice::AsyncValue>> results =
      sluice::CallFunction(function, context, arguments);
  host->Await(results);
  return results;
}
// [END call]

// [START print]
void PrintResults(
    std::string_view call,
    absl::Span<const sluice::RCReference<sluice::AsyncValue>> results) {
  std::printf("%.*s\n", static_cast<int>(call.size()), call.data());
  for (size_t i = 0; i < results.size(); ++i) {
    const sluice::AsyncValue& result = *results[i];
    if (!result.IsError()) {
      std::printf("  result %zu: %d\n", i, result.get<int32_t>());
      continue;
    }
    const absl::Status& error = result.GetError();
    std::printf("  result %zu: %s: %s\n", i,
                sluice::StatusCodeName(error.code()).c_str(),
                std::string(error.message()).c_str());
    // Kernels that failed record where; a cancellation has no kernel.
    const sluice::ErrorContext where = sluice::GetErrorContext(error);
    if (!where.kernel.empty()) {
      std::printf("    from %s at %s\n", where.kernel.c_str(),
                  where.location.c_str());
    }
  }
}
// [END print]

void RunCancelled(sluice::HostContext* host, const sluice::Function& function) {
  // [START cancel]
  // x is still pending when the request is cancelled: the kernels waiting
  // for it never run, while y + y, computed as the call started, stands.
  sluice::AsyncValueRef<int32_t> x =
      sluice::MakeUnconstructedAsyncValueRef<int32_t>();
  sluice::AsyncValueRef<int32_t> y =
      sluice::MakeAvailableAsyncValueRef<int32_t>(5);
  sluice::RCReference<sluice::RequestContext> request =
      sluice::RequestContext::Create(host);
  sluice::AsyncValue* const arguments[] = {x.GetAsyncValue(),
                                           y.GetAsyncValue()};
  std::vector<sluice::RCReference<sluice::AsyncValue>> results =
      sluice::CallFunction(
          function, sluice::ExecutionContext(request.CopyRef()), arguments);
  request->Cancel(absl::CancelledError("the client went away"));
  x.emplace(7);
  host->Await(results);
  PrintResults("triple_plus(7, 5), cancelled before 7 arrived", results);
  // [END cancel]
}

int Run(const char* program_path) {
  // [START host]
  absl::StatusOr<std::unique_ptr<sluice::ConcurrentWorkQueue>> work_queue =
      sluice::CreateWorkQueue("mstd:2,2");
  if (!work_queue.ok()) {
    std::fprintf(stderr, "embed: %s\n",
                 std::string(work_queue.status().message()).c_str());
    return 1;
  }
  auto allocator = std::make_unique<sluice::LeakCheckAllocator>(
      sluice::CreateMallocAllocator());
  sluice::LeakCheckAllocator* leak_check = allocator.get();
  sluice::HostContext host(
      [](const sluice::DecodedDiagnostic& diagnostic) {
        // Called on whichever thread ran the failing kernel: one write per
        // line keeps concurrent diagnostics from interleaving.
        std::fprintf(stderr, "embed: %s\n", diagnostic.ToString().c_str());
      },
      std::move(allocator), *std::move(work_queue));
  // [END host]

  // [START register]
  sluice::KernelRegistry& registry = sluice::GetKernelRegistry(&host);
  absl::Status registered = sluice::RegisterBasicKernels(&registry);
  if (registered.ok()) {
    registered = registry.AddKernel("embed.scale.i32", SLUICE_KERNEL(ScaleI32));
  }
  if (!registered.ok()) {
    std::fprintf(stderr, "embed: %s\n", registered.ToString().c_str());
    return 1;
  }
  // [END register]

  // [START load]
  absl::StatusOr<std::unique_ptr<sluice::Program>> program =
      sluice::Program::LoadFile(program_path, registry);
  if (!program.ok()) {
    // An unknown kernel names the op that uses it.
    const std::string where =
        sluice::GetErrorContext(program.status()).location;
    std::fprintf(stderr, "%s: error: %s\n",
                 where.empty() ? "embed" : where.c_str(),
                 std::string(program.status().message()).c_str());
    return 1;
  }
  const sluice::Function* triple_plus = (*program)->GetFunction("triple_plus");
  // Reading a payload as the wrong type is undefined, so the host checks
  // once that the program matches what it will read.
  if (triple_plus == nullptr || triple_plus->num_arguments() != 2 ||
      (*program)->ResultTypes(*triple_plus) !=
          std::vector<std::string_view>{"i32", "i32", "i32"}) {
    std::fprintf(stderr,
                 "embed: the program has no function triple_plus(i32, i32) "
                 "-> (i32, i32, i32)\n");
    return 1;
  }
  // [END load]

  // [START errors]
  PrintResults("triple_plus(14, 100)",
               CallAndWait(&host, *triple_plus, 14, 100));
  // 3 * 1000000000 does not fit in an i32: the scale fails, the sum that
  // needs it fails with the same error, and y + y is unaffected.
  PrintResults("triple_plus(1000000000, 1)",
               CallAndWait(&host, *triple_plus, 1000000000, 1));
  // [END errors]

  RunCancelled(&host, *triple_plus);

  // [START shutdown]
  host.Quiesce();
  if (leak_check->num_alive_allocations() > 0) {
    std::fprintf(stderr, "embed: host allocator: %s\n",
                 leak_check->LeakReport().c_str());
    return 1;
  }
  return 0;
  // [END shutdown]
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: embed PROGRAM.sbf\n");
    return 2;
  }
  return Run(argv[1]);
}
