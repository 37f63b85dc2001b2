// tfrt_test.async_value_get and tfrt_test.async_value_ref: self-tests of the
// AsyncValue API run from inside a program (as TFRT defines them). Each
// exercises one part of the API, records what it observes as text, prints
// it and returns it. A correct implementation produces exactly the strings
// the spec lists; any deviation shows up as a different string, which is
// easier to diagnose from a program's output than a crash.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/test/test_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/print.h"
#include "sluice/support/ref_count.h"

namespace sluice {
namespace test_kernels {
namespace {

// --- async_value_get: payloads with base classes -----------------------------
//
// A payload with two polymorphic bases, so that reaching the second base
// needs a pointer adjustment. get<T>() must name the payload's exact type
// (FinalClass); the bases are then reached through it. Reading through an
// IndirectAsyncValue as well checks that get<T>() follows the forwarding.

class Base1 {
 public:
  explicit Base1(int32_t value) : value_(value) {}
  virtual ~Base1() = default;
  virtual std::string Name1() const { return "base1"; }
  int32_t value() const { return value_; }

 private:
  int32_t value_;
};

class Base2 {
 public:
  virtual ~Base2() = default;
  virtual std::string Name2() const { return "base2"; }
};

class FinalClass final : public Base1, public Base2 {
 public:
  explicit FinalClass(int32_t value) : Base1(value) {}
  std::string Name() const { return "final_class"; }
};

std::string AsyncValueGet() {
  AsyncValueRef<FinalClass> value = MakeAvailableAsyncValueRef<FinalClass>(3);
  RCReference<IndirectAsyncValue> indirect = MakeIndirectAsyncValue();
  indirect->ForwardTo(value.CopyRCRef());

  const Base1& base1 = value.get();
  const Base2& base2 = indirect->get<FinalClass>();
  const FinalClass& final_class = *value;
  const std::string observed =
      absl::StrCat(base1.Name1(), ":", base2.Name2(), ":", final_class.Name(),
                   ":", indirect->get<FinalClass>().value());
  PrintLine(observed);
  return observed;
}

// --- async_value_ref: states and waiters -------------------------------------
//
// Three values, each taken through its states, describing the value after
// each step; a waiter adds its own entry, in parentheses, when it runs:
//   1. made available at once:            available:2
//   2. unconstructed, then emplace(3):    unavailable;(3);available:3
//      (the waiter runs inside emplace, before emplace returns)
//   3. constructed (payload built but not
//      published), then SetStateConcrete: unavailable;available:4

std::string Describe(const AsyncValueRef<int32_t>& value) {
  if (!value.IsAvailable()) return "unavailable";
  if (value.IsError())
    return absl::StrCat("error:", value.GetError().message());
  return absl::StrCat("available:", *value);
}

std::string AsyncValueRefTest() {
  std::vector<std::string> steps;

  AsyncValueRef<int32_t> ready = MakeAvailableAsyncValueRef<int32_t>(2);
  steps.push_back(Describe(ready));

  AsyncValueRef<int32_t> later = MakeUnconstructedAsyncValueRef<int32_t>();
  steps.push_back(Describe(later));
  later.AndThen(
      [&steps, &later] { steps.push_back(absl::StrCat("(", *later, ")")); });
  later.emplace(3);
  steps.push_back(Describe(later));

  AsyncValueRef<int32_t> constructed = MakeConstructedAsyncValueRef<int32_t>(4);
  steps.push_back(Describe(constructed));
  constructed.SetStateConcrete();
  steps.push_back(Describe(constructed));

  const std::string observed = absl::StrJoin(steps, ";");
  PrintLine(observed);
  return observed;
}

}  // namespace

absl::Status RegisterAsyncValueKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"tfrt_test.async_value_get", SLUICE_KERNEL(AsyncValueGet)},
      {"tfrt_test.async_value_ref", SLUICE_KERNEL(AsyncValueRefTest)},
  });
}

}  // namespace test_kernels
}  // namespace sluice
