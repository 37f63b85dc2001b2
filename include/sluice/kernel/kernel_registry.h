// The kernel registry: kernel name → implementation and signature. Kernel
// libraries add their kernels through an explicit
// `RegisterXxxKernels(KernelRegistry*)` function; nothing relies on static
// initializers being linked in. Registration is not synchronized: finish it
// before programs are loaded.
#ifndef SLUICE_KERNEL_KERNEL_REGISTRY_H_
#define SLUICE_KERNEL_KERNEL_REGISTRY_H_

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "sluice/kernel/direct_kernel.h"
#include "sluice/kernel/kernel_signature.h"
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

// What AddKernel takes: SLUICE_KERNEL(fn) gives the implementation with the
// signature of `fn`. A bare `void(KernelFrame*)` converts too; it has no
// signature, so loading checks none of its ops and the kernel must check
// its frame itself.
class KernelDefinition {
 public:
  KernelDefinition(KernelImplementation implementation,  // NOLINT: implicit
                   const KernelSignature* signature = nullptr,
                   const DirectKernel* direct = nullptr)
      : implementation_(implementation),
        signature_(signature),
        direct_(direct) {}

  // Binds the kernel's attribute parameters by name: the i-th attribute
  // parameter (Attribute<T>, StringAttribute, ...) takes the op's attribute
  // called names[i], wherever it sits among the op's attributes. Without
  // names, attribute parameters take the op's attributes in the order the
  // program lists them (sorted by name, as TFRT does).
  KernelDefinition WithAttributeNames(
      std::initializer_list<std::string_view> names) && {
    attribute_names_.assign(names.begin(), names.end());
    return std::move(*this);
  }

  KernelImplementation implementation() const { return implementation_; }
  const KernelSignature* signature() const { return signature_; }
  const DirectKernel* direct() const { return direct_; }
  const std::vector<std::string>& attribute_names() const {
    return attribute_names_;
  }

 private:
  KernelImplementation implementation_;
  const KernelSignature* signature_;
  const DirectKernel* direct_;
  std::vector<std::string> attribute_names_;
};

struct RegisteredKernel {
  KernelImplementation implementation = nullptr;
  Strictness strictness = Strictness::kStrict;
  // Null for kernels registered without one (see KernelDefinition).
  const KernelSignature* signature = nullptr;
  // Empty unless the kernel binds its attributes by name.
  std::vector<std::string> attribute_names;
  // The kernel's frameless entry, if SLUICE_KERNEL made one (strict
  // kernels only).
  const DirectKernel* direct = nullptr;
};

// One row of AddKernels.
struct KernelEntry {
  std::string_view name;
  KernelDefinition kernel;
  Strictness strictness = Strictness::kStrict;
};

class KernelRegistry {
 public:
  KernelRegistry() = default;
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  // Errors: AlreadyExists when `name` is registered already (the first
  // registration stays), InvalidArgument when the attribute names do not
  // match the kernel's attribute parameters.
  absl::Status AddKernel(std::string_view name, KernelDefinition kernel,
                         Strictness strictness = Strictness::kStrict);

  // Registers every entry, or none of them when any would fail AddKernel
  // (the error then names each failing entry).
  absl::Status AddKernels(std::initializer_list<KernelEntry> entries);

  // The kernel called `name`, or nullptr.
  const RegisteredKernel* GetKernel(std::string_view name) const;

  // Every registered name, sorted.
  std::vector<std::string> KernelNames() const;

  size_t size() const { return kernels_.size(); }

  // Native functions, by the name programs declare them with. AlreadyExists
  // when the name is registered already.
  absl::Status AddNativeFunction(std::string_view name,
                                 NativeFunction function);
  NativeFunction GetNativeFunction(std::string_view name) const;

 private:
  absl::Status CheckEntry(const KernelEntry& entry) const;

  std::unordered_map<std::string, RegisteredKernel> kernels_;
  std::unordered_map<std::string, NativeFunction> native_functions_;
};

// One line saying what `kernel` takes, for --list_kernels:
//   "tfrt.add.i32: 2 operands -> 1 result"
//   "my.clamp: 1 operand -> 1 result {low: i32, high: i32}"
//   "tfrt.call: non-strict, no signature (checks its frame itself)"
std::string DescribeKernel(std::string_view name,
                           const RegisteredKernel& kernel);

// The registry owned by `host` (one per HostContext, created on first use).
KernelRegistry& GetKernelRegistry(HostContext* host);

}  // namespace sluice

#endif  // SLUICE_KERNEL_KERNEL_REGISTRY_H_
