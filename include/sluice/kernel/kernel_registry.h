// The kernel registry: kernel name → implementation. Kernel libraries add
// their kernels through an explicit `RegisterXxxKernels(KernelRegistry*)`
// function; nothing relies on static initializers being linked in.
// Registration is not synchronized: finish it before programs are loaded.
#ifndef SLUICE_KERNEL_KERNEL_REGISTRY_H_
#define SLUICE_KERNEL_KERNEL_REGISTRY_H_

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/types/span.h"
#include "sluice/support/ref_count.h"

namespace sluice {

class AsyncValue;
class ExecutionContext;
class HostContext;
class KernelFrame;

using KernelImplementation = void (*)(KernelFrame* frame);

// A function implemented in C++ that programs declare with the `tfrt.native`
// attribute and call like any other. It sets every result slot; arguments
// may be unavailable.
using NativeFunction = void (*)(const ExecutionContext& context,
                                absl::Span<AsyncValue* const> arguments,
                                absl::Span<RCReference<AsyncValue>> results);

// Strict kernels run only when every argument is available and no argument
// is an error (the executor forwards the error to every result instead).
// Non-strict kernels (calls, control flow) may start with arguments pending
// or in error and look at them themselves.
enum class Strictness : uint8_t { kStrict, kNonStrict };

struct RegisteredKernel {
  KernelImplementation implementation = nullptr;
  Strictness strictness = Strictness::kStrict;
};

class KernelRegistry {
 public:
  KernelRegistry() = default;
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  // Registering a name twice is a programming error: the process aborts
  // with a message naming the kernel.
  void AddKernel(std::string_view name, KernelImplementation implementation,
                 Strictness strictness = Strictness::kStrict);

  // The kernel called `name`, or nullptr.
  const RegisteredKernel* GetKernel(std::string_view name) const;

  // Every registered name, sorted.
  std::vector<std::string> KernelNames() const;

  size_t size() const { return kernels_.size(); }

  // Native functions, by the name programs declare them with. Registering a
  // name twice aborts, as for kernels.
  void AddNativeFunction(std::string_view name, NativeFunction function);
  NativeFunction GetNativeFunction(std::string_view name) const;

 private:
  std::unordered_map<std::string, RegisteredKernel> kernels_;
  std::unordered_map<std::string, NativeFunction> native_functions_;
};

// The registry owned by `host` (one per HostContext, created on first use).
KernelRegistry& GetKernelRegistry(HostContext* host);

}  // namespace sluice

#endif  // SLUICE_KERNEL_KERNEL_REGISTRY_H_
