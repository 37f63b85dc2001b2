// Program: a compiled program (SBF bytes) loaded against a kernel registry,
// ready to run. Loading resolves every kernel and native function name;
// running a function is Function::Execute (sluice/kernel/function.h).
#ifndef SLUICE_EXECUTOR_PROGRAM_H_
#define SLUICE_EXECUTOR_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/ref_count.h"

namespace sluice {

class Program {
 public:
  // Validates and loads `bytes` (copied). Errors: an invalid file (naming
  // section and offset), an unknown native function, and ops that have no
  // kernel ("unknown kernel name 'x'") or do not fit their kernel's
  // signature ("kernel 'x' needs attribute 'value' (i32); the op has
  // none"). Every such op is reported: the first with its location as error
  // context (see GetErrorContext), the others as
  // "file:line:col: error: ..." lines after it, at most 100. The registry
  // must outlive the program.
  static absl::StatusOr<std::unique_ptr<Program>> Load(
      absl::Span<const uint8_t> bytes, const KernelRegistry& registry);
  // As Load, for an .sbf file read straight into the program's own buffer
  // (one copy of the bytes, not two). Errors name the file.
  static absl::StatusOr<std::unique_ptr<Program>> LoadFile(
      std::string_view path, const KernelRegistry& registry);

  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // The function called `name` (functions with a body and native ones;
  // region bodies have no name), or nullptr.
  const Function* GetFunction(std::string_view name) const;

  // Functions with a body and native ones, in file order: what a runner
  // lists and runs (TFRT's runner runs a native function without arguments
  // like any other).
  std::vector<const Function*> ListFunctions() const;

  // The types of a function's results as MLIR spells them ("i32",
  // "!tfrt.chain"), for printing them. `function` is one of this program's.
  std::vector<std::string_view> ResultTypes(const Function& function) const;
  std::vector<std::string_view> ArgumentTypes(const Function& function) const;

  // The program's SBF bytes, as loaded.
  absl::Span<const uint8_t> bytes() const;

 private:
  class Impl;
  // `source` names the bytes in errors ("" for bytes without a file).
  static absl::StatusOr<std::unique_ptr<Program>> LoadOwned(
      std::vector<uint8_t> bytes, std::string_view source,
      const KernelRegistry& registry);
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Calls `function` with available or pending `arguments` and returns its
// results (possibly still unavailable).
std::vector<RCReference<AsyncValue>> CallFunction(
    const Function& function, const ExecutionContext& context,
    absl::Span<AsyncValue* const> arguments);

}  // namespace sluice

#endif  // SLUICE_EXECUTOR_PROGRAM_H_
