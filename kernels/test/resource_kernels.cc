// Kernels with state that outlives one kernel (TFRT's tfrt_test ops): a
// resource held by unique_ptr, a per-host shared context, and an atomic counter
// shared by the kernels that use it.
//
// Input chains only order a kernel after earlier side effects, which
// strictness already guarantees, so the kernels never read them.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/print.h"
#include "sluice/support/ref_count.h"

namespace sluice {
namespace test_kernels {
namespace {

// --- tfrt_test.allocate_resource / deallocate_resource -----------------------

// Announces its birth and death, so a program's output shows when the
// runtime frees it: at deallocate_resource, or (if that never ran, say after
// a cancellation) when the last reference to its value goes.
class TestResource {
 public:
  TestResource() { PrintLine("Allocated TestResource"); }
  ~TestResource() { PrintLine("Destroyed TestResource"); }
  TestResource(const TestResource&) = delete;
  TestResource& operator=(const TestResource&) = delete;
};

// The payload of `!tfrt.test.resource`.
using TestResourcePtr = std::unique_ptr<TestResource>;

std::tuple<TestResourcePtr, Chain> AllocateResource(const Chain&) {
  return {std::make_unique<TestResource>(), Chain()};
}

// Frees the resource now, through the payload itself: other holders of the
// value see an empty pointer afterwards, and nothing is freed twice.
Chain DeallocateResource(TestResourcePtr& resource, const Chain&) {
  resource.reset();
  PrintLine("tfrt_test.deallocate_resource done");
  return Chain();
}

// --- tfrt_test.use_sample_shared_context -------------------------------------

// One per HostContext (GetOrCreateSharedContext). Its name ends in its
// ordinal among the SampleSharedContexts of its host; a host creates exactly
// one, so the name is `sample_shared_context0` on every host, and later uses
// on the same host see the same object and the same name.
class SampleSharedContext {
 public:
  std::string name() const {
    return absl::StrCat("sample_shared_context", kOrdinal);
  }

 private:
  static constexpr int kOrdinal = 0;
};

std::tuple<std::string, RCReference<AsyncValue>> UseSampleSharedContext(
    Argument<Chain> chain, HostContext* host) {
  return {host->GetOrCreateSharedContext<SampleSharedContext>().name(),
          chain.ValueRef()};
}

// --- tfrt_test.atomic.*.i32
// ----------------------------------------------------

// The payload of `!test.atomic.i32`. std::atomic can be neither copied nor
// moved, so the payload is built in place in its AsyncValue and never leaves
// it; every kernel that gets the value shares the one counter.
struct AtomicI32 {
  std::atomic<int32_t> value{0};
};

// Any operands (a chain, if the program orders it) only order the kernel.
void AtomicCreateI32(RemainingArguments, Result<AtomicI32> counter) {
  counter.Emplace();
}

Chain AtomicIncI32(AtomicI32& counter, RemainingArguments) {
  counter.value.fetch_add(1, std::memory_order_relaxed);
  return Chain();
}

Chain AtomicAddI32(AtomicI32& counter, int32_t delta, RemainingArguments) {
  counter.value.fetch_add(delta, std::memory_order_relaxed);
  return Chain();
}

// Ordering comes from the chains the program threads through the kernels,
// which the executor makes happen-before this one; the atomic only has to
// keep concurrent updates from being lost.
std::tuple<int32_t, Chain> AtomicGetI32(AtomicI32& counter,
                                        RemainingArguments) {
  return {counter.value.load(std::memory_order_relaxed), Chain()};
}

}  // namespace

absl::Status RegisterResourceKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_test.allocate_resource", SLUICE_KERNEL(AllocateResource)},
      {"tfrt_test.deallocate_resource", SLUICE_KERNEL(DeallocateResource)},
      {"tfrt_test.use_sample_shared_context",
       SLUICE_KERNEL(UseSampleSharedContext)},
      {"tfrt_test.atomic.create.i32", SLUICE_KERNEL(AtomicCreateI32)},
      {"tfrt_test.atomic.inc.i32", SLUICE_KERNEL(AtomicIncI32)},
      {"tfrt_test.atomic.add.i32", SLUICE_KERNEL(AtomicAddI32)},
      {"tfrt_test.atomic.get.i32", SLUICE_KERNEL(AtomicGetI32)},
  });
}

}  // namespace test_kernels
}  // namespace sluice
