// Small synchronous test kernels (TFRT's tfrt_test ops):
// strings, prints, count3, test_cost, logging, debug info, thread ids and a
// deliberate leak. Printed lines are a contract with existing programs'
// expected outputs and go through PrintLine.
//
// Input chains only order a kernel after earlier side effects, which
// strictness already guarantees, so the kernels never read them.
#include <atomic>
#include <cstdint>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/attributes.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/logging.h"
#include "sluice/support/print.h"

namespace sluice {
namespace test_kernels {
namespace {

// --- Prints ------------------------------------------------------------------

Chain PrintHello(const Chain&) {
  PrintLine("hello host executor!");
  return Chain();
}

Chain PrintBool(const Chain&, bool value) {
  PrintLine(value ? "true" : "false");
  return Chain();
}

// --- Strings -----------------------------------------------------------------

// The attribute points into the program: copy it into the payload.
std::string GetString(StringAttribute value) { return value.str(); }

Chain PrintString(const std::string& value, const Chain&) {
  PrintLine(absl::StrCat("string = ", value));
  return Chain();
}

std::string AppendString(const std::string& a, const std::string& b) {
  return a + b;
}

// --- Arithmetic and costs ----------------------------------------------------

// Wraps around on overflow instead of being undefined.
int32_t AddWrapping(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) +
                              static_cast<uint32_t>(b));
}

std::tuple<int32_t, int32_t, int32_t> Count3I32(int32_t x) {
  return {AddWrapping(x, 1), AddWrapping(x, 2), AddWrapping(x, 3)};
}

// `_tfrt_cost` is a compiler hint and never reaches the kernel. The operand
// only orders the kernel.
int32_t TestCost(RemainingArguments, Attribute<int64_t> id) {
  PrintLine(absl::StrCat("id: ", *id));
  return 0;
}

// --- Logging -----------------------------------------------------------------

// The texts name TFRT's macros because existing expected outputs match them.
Chain Logging(const std::string& text, const Chain&) {
  SLUICE_LOG(INFO) << "from TFRT_LOG(INFO): " << text;
  SLUICE_LOG(WARNING) << "from TFRT_LOG(WARNING): " << text;
  SLUICE_LOG(ERROR) << "from TFRT_LOG(ERROR): " << text;
  SLUICE_LOG_IF(INFO, true) << "from TFRT_LOG_IF(INFO, true): " << text;
  SLUICE_LOG_IF(WARNING, true) << "from TFRT_LOG_IF(WARNING, true): " << text;
  SLUICE_LOG_IF(ERROR, true) << "from TFRT_LOG_IF(ERROR, true): " << text;
  return Chain();
}

// --- Debug info --------------------------------------------------------------

// The compiler derives the debug name from the op's location (a NameLoc's
// name, a fused location's names joined, a call site's callee), so the
// kernel only prints it.
Chain PrintDebugInfo(const Chain&, KernelFrame* frame) {
  const KernelDebugInfo& info = frame->debug_info();
  PrintLine(info.debug_name ? *info.debug_name : "Kernel has no debug info");
  return Chain();
}

// --- Threads -----------------------------------------------------------------

// Ids are handed out in the order threads first ask, starting at 0, and are
// process-wide and never reused.
int32_t ThisThreadId() {
  static std::atomic<int32_t> next_id{0};
  thread_local const int32_t id = next_id.fetch_add(1);
  return id;
}

int32_t GetThreadId(RemainingArguments) { return ThisThreadId(); }

// --- Leaks -------------------------------------------------------------------

// Exists so that tests can check the host allocator's leak detection: the 4
// bytes are never freed.
void MemoryLeakOneInt32(HostContext* host) {
  int32_t* leaked = host->allocator()->Allocate<int32_t>();
  (void)leaked;
}

}  // namespace

absl::Status RegisterValueKernels(KernelRegistry* registry) {
  // The thread that registers the kernels is the embedder's main thread (the
  // runner's): it takes its id now, so that it is 0 even when a worker asks
  // first (a get_thread_id in the first function's tfrt_test.do.async).
  (void)ThisThreadId();
  return registry->AddKernels({
      {"tfrt_test.print_hello", SLUICE_KERNEL(PrintHello)},
      {"tfrt_test.print_bool", SLUICE_KERNEL(PrintBool)},
      {"tfrt_test.get_string",
       SLUICE_KERNEL(GetString).WithAttributeNames({"value"})},
      {"tfrt_test.print_string", SLUICE_KERNEL(PrintString)},
      {"tfrt_test.append_string", SLUICE_KERNEL(AppendString)},
      {"tfrt_test.count3.i32", SLUICE_KERNEL(Count3I32)},
      {"tfrt_test.test_cost",
       SLUICE_KERNEL(TestCost).WithAttributeNames({"id"})},
      {"tfrt_test.logging", SLUICE_KERNEL(Logging)},
      {"tfrt_test.print_debug_info", SLUICE_KERNEL(PrintDebugInfo)},
      {"tfrt_test.get_thread_id", SLUICE_KERNEL(GetThreadId)},
      {"tfrt_test.memory_leak_one_int32", SLUICE_KERNEL(MemoryLeakOneInt32)},
  });
}

}  // namespace test_kernels
}  // namespace sluice
