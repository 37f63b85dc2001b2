// Loading: SBF bytes → validated tables → functions whose kernels are
// resolved against the registry, with attribute pointers into the bytes.
#include "sluice/executor/program.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/executor/executable_function.h"
#include "lib/executor/kernel_contract.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/support/error_util.h"

namespace sluice {
namespace {

using executor_internal::ExecutableFunction;
using executor_internal::LoadedKernel;

// A native function (registered in C++) behind the Function interface.
class NativeFunctionAdapter final : public Function {
 public:
  NativeFunctionAdapter(std::string name, size_t num_arguments,
                        size_t num_results, NativeFunction function)
      : Function(std::move(name), num_arguments, num_results),
        function_(function) {}

  void Execute(const ExecutionContext& context,
               absl::Span<AsyncValue* const> arguments,
               absl::Span<RCReference<AsyncValue>> results) const override {
    function_(context, arguments, results);
  }

 private:
  NativeFunction function_;
};

DecodedLocation ToDecodedLocation(const bef::SbfLocation& location) {
  return DecodedLocation{std::string(location.file),
                         static_cast<int>(location.line),
                         static_cast<int>(location.column)};
}

// One way an op of the program does not fit its kernel.
struct LoadProblem {
  absl::StatusCode code;
  std::string message;
  std::string kernel;
  std::string location;  // "file:line:col", or empty
};

// A hostile program could have millions of bad ops; a message lists this
// many and counts the rest.
constexpr size_t kMaxListedProblems = 100;

// Every problem in one status: the first one's code, kernel and location as
// error context, the others as "location: error: message" lines after it,
// the way compilers list them.
absl::Status CombineProblems(const std::vector<LoadProblem>& problems) {
  const LoadProblem& first = problems.front();
  std::string message = first.message;
  const size_t listed = std::min(problems.size(), kMaxListedProblems);
  for (size_t i = 1; i < listed; ++i) {
    absl::StrAppend(&message, "\n", problems[i].location,
                    problems[i].location.empty() ? "" : ": ",
                    "error: ", problems[i].message);
  }
  if (listed < problems.size()) {
    absl::StrAppend(&message, "\n(and ", problems.size() - listed,
                    " more ops that do not fit their kernels)");
  }
  return AddErrorContext(absl::Status(first.code, message),
                         {first.kernel, first.location, ""});
}

}  // namespace

class Program::Impl {
 public:
  // The file's bytes, 8-aligned (operator new aligns to 16): attributes are
  // read in place.
  std::vector<uint8_t> bytes;
  bef::SbfProgram sbf;
  std::vector<std::unique_ptr<Function>> functions;  // by SBF index
  std::vector<const Function*> listed;               // kind kFunction
  std::unordered_map<std::string, const Function*> by_name;
  // Decoded locations, one per SBF location (kernels point at them).
  std::vector<DecodedLocation> locations;
  // Per kernel: attribute pointers and function pointers, flattened.
  std::vector<std::vector<const void*>> attribute_storage;
  std::vector<std::vector<const Function*>> function_storage;

  // Appends every op that does not fit its kernel to `problems`.
  void LoadBody(const bef::SbfFunction& source, ExecutableFunction& target,
                const KernelRegistry& registry,
                std::vector<LoadProblem>& problems);
  // The SBF entry of one of `functions`, or nullptr.
  const bef::SbfFunction* Find(const Function& function) const;
  std::vector<std::string_view> TypeNames(
      const std::vector<uint32_t>& types) const;
};

void Program::Impl::LoadBody(const bef::SbfFunction& source,
                             ExecutableFunction& target,
                             const KernelRegistry& registry,
                             std::vector<LoadProblem>& problems) {
  target.num_registers = source.num_registers;
  target.attribute_section = sbf.attributes_section;
  target.argument_registers = source.argument_registers;
  target.result_registers = source.result_registers;
  target.register_is_result.assign(source.num_registers, 0);
  for (uint32_t r : source.result_registers) target.register_is_result[r] = 1;

  target.argument_user_offsets.push_back(0);
  for (const auto& users : source.argument_users) {
    target.argument_users.insert(target.argument_users.end(), users.begin(),
                                 users.end());
    target.argument_user_offsets.push_back(
        static_cast<uint32_t>(target.argument_users.size()));
  }

  // How many times each register is used: single-use registers are dropped
  // by their user.
  std::vector<uint32_t> uses(source.num_registers, 0);
  for (const bef::SbfKernel& kernel : source.kernels) {
    for (uint32_t r : kernel.operands) ++uses[r];
  }

  // Sized once: kernels point at their entry.
  target.debug_infos.resize(source.kernels.size());

  // Users come first in `indices`, so RunKernel can address every users
  // list from the array's start.
  std::vector<uint32_t>& indices = target.indices;
  std::vector<std::vector<uint32_t>> user_offsets(source.kernels.size());
  for (size_t k = 0; k < source.kernels.size(); ++k) {
    const bef::SbfKernel& kernel = source.kernels[k];
    for (const auto& users : kernel.users) {
      user_offsets[k].push_back(static_cast<uint32_t>(indices.size()));
      indices.insert(indices.end(), users.begin(), users.end());
    }
    user_offsets[k].push_back(static_cast<uint32_t>(indices.size()));
  }

  for (size_t k = 0; k < source.kernels.size(); ++k) {
    const bef::SbfKernel& kernel = source.kernels[k];
    const std::string_view name = sbf.kernel_names[kernel.name_index];
    const bef::SbfLocation& location = sbf.locations[kernel.location_index];
    // Only for the error: loading a program that fits formats no locations.
    auto add_problem = [&](absl::StatusCode code, std::string message) {
      problems.push_back({code, std::move(message), std::string(name),
                          location.file.empty()
                              ? ""
                              : locations[kernel.location_index].ToString()});
    };
    const RegisteredKernel* registered = registry.GetKernel(name);
    if (registered == nullptr) {
      add_problem(
          absl::StatusCode::kNotFound,
          absl::StrCat("unknown kernel name '", std::string(name), "'"));
      continue;
    }
    std::vector<std::string> misfits;
    std::vector<const void*> bound =
        executor_internal::BindKernel(name, *registered, kernel, sbf, misfits);
    for (std::string& misfit : misfits) {
      add_problem(absl::StatusCode::kInvalidArgument, std::move(misfit));
    }
    if (!misfits.empty()) continue;
    LoadedKernel loaded;
    loaded.implementation = registered->implementation;
    loaded.strict = registered->strictness == Strictness::kStrict;
    loaded.num_operands = static_cast<uint32_t>(kernel.operands.size());
    loaded.num_results = static_cast<uint32_t>(kernel.results.size());

    loaded.operands = static_cast<uint32_t>(indices.size());
    indices.insert(indices.end(), kernel.operands.begin(),
                   kernel.operands.end());
    loaded.results = static_cast<uint32_t>(indices.size());
    indices.insert(indices.end(), kernel.results.begin(), kernel.results.end());
    loaded.user_offsets = static_cast<uint32_t>(indices.size());
    indices.insert(indices.end(), user_offsets[k].begin(),
                   user_offsets[k].end());
    loaded.drops = static_cast<uint32_t>(indices.size());
    for (uint32_t r : kernel.operands) {
      if (uses[r] == 1 && !target.register_is_result[r]) indices.push_back(r);
    }
    loaded.num_drops = static_cast<uint32_t>(indices.size()) - loaded.drops;

    loaded.attributes = attribute_storage.emplace_back(std::move(bound));
    std::vector<const Function*>& callees = function_storage.emplace_back();
    for (uint32_t f : kernel.functions) callees.push_back(functions[f].get());
    loaded.functions = callees;

    KernelDebugInfo& debug_info = target.debug_infos[k];
    debug_info.name = name;
    if (!location.file.empty()) {
      debug_info.location = locations[kernel.location_index];
    }
    if (location.has_debug_name) debug_info.debug_name = location.debug_name;
    debug_info.location_record = &locations[kernel.location_index];
    loaded.debug_info = &debug_info;
    if (loaded.num_operands == 0) {
      target.initially_ready.push_back(static_cast<uint32_t>(k));
    }
    target.kernel_inputs.push_back(
        loaded.num_operands |
        (loaded.strict ? executor_internal::kStrictBit : 0));
    target.kernels.push_back(loaded);
  }
}

absl::StatusOr<std::unique_ptr<Program>> Program::Load(
    absl::Span<const uint8_t> bytes, const KernelRegistry& registry) {
  auto impl = std::make_unique<Impl>();
  impl->bytes.assign(bytes.begin(), bytes.end());
  absl::StatusOr<bef::SbfProgram> sbf = bef::ReadSbf(impl->bytes);
  if (!sbf.ok()) return sbf.status();
  impl->sbf = *std::move(sbf);

  for (const bef::SbfLocation& location : impl->sbf.locations) {
    impl->locations.push_back(ToDecodedLocation(location));
  }

  // Function objects first: kernels refer to any of them (recursion too).
  for (const bef::SbfFunction& function : impl->sbf.functions) {
    std::string name(function.name);
    std::unique_ptr<Function> loaded;
    if (function.kind == bef::FunctionKind::kNative) {
      NativeFunction native = registry.GetNativeFunction(name);
      if (native == nullptr) {
        return absl::NotFoundError(
            absl::StrCat("unknown native function '", name, "'"));
      }
      loaded = std::make_unique<NativeFunctionAdapter>(
          name, function.argument_types.size(), function.result_types.size(),
          native);
    } else {
      loaded = std::make_unique<ExecutableFunction>(
          name, function.argument_types.size(), function.result_types.size());
    }
    if (function.kind != bef::FunctionKind::kRegion) {
      impl->by_name.emplace(name, loaded.get());
    }
    if (function.kind != bef::FunctionKind::kRegion) {
      impl->listed.push_back(loaded.get());
    }
    loaded->set_program_bytes(impl->bytes);
    impl->functions.push_back(std::move(loaded));
  }

  // Spans into these vectors stay valid: reserve so they never move.
  size_t num_kernels = 0;
  for (const bef::SbfFunction& function : impl->sbf.functions) {
    num_kernels += function.kernels.size();
  }
  impl->attribute_storage.reserve(num_kernels);
  impl->function_storage.reserve(num_kernels);

  std::vector<LoadProblem> problems;
  for (size_t f = 0; f < impl->sbf.functions.size(); ++f) {
    const bef::SbfFunction& function = impl->sbf.functions[f];
    if (function.kind == bef::FunctionKind::kNative) continue;
    auto& target = static_cast<ExecutableFunction&>(*impl->functions[f]);
    impl->LoadBody(function, target, registry, problems);
  }
  if (!problems.empty()) return CombineProblems(problems);
  return std::unique_ptr<Program>(new Program(std::move(impl)));
}

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::~Program() = default;

const Function* Program::GetFunction(std::string_view name) const {
  auto it = impl_->by_name.find(std::string(name));
  return it == impl_->by_name.end() ? nullptr : it->second;
}

std::vector<const Function*> Program::ListFunctions() const {
  return impl_->listed;
}

const bef::SbfFunction* Program::Impl::Find(const Function& function) const {
  for (size_t f = 0; f < functions.size(); ++f) {
    if (functions[f].get() == &function) return &sbf.functions[f];
  }
  return nullptr;
}

std::vector<std::string_view> Program::Impl::TypeNames(
    const std::vector<uint32_t>& types) const {
  std::vector<std::string_view> names;
  for (uint32_t type : types) names.push_back(sbf.types[type]);
  return names;
}

std::vector<std::string_view> Program::ResultTypes(
    const Function& function) const {
  const bef::SbfFunction* found = impl_->Find(function);
  if (found == nullptr) return {};
  return impl_->TypeNames(found->result_types);
}

std::vector<std::string_view> Program::ArgumentTypes(
    const Function& function) const {
  const bef::SbfFunction* found = impl_->Find(function);
  if (found == nullptr) return {};
  return impl_->TypeNames(found->argument_types);
}

absl::Span<const uint8_t> Program::bytes() const { return impl_->bytes; }

std::vector<RCReference<AsyncValue>> CallFunction(
    const Function& function, const ExecutionContext& context,
    absl::Span<AsyncValue* const> arguments) {
  std::vector<RCReference<AsyncValue>> results(function.num_results());
  function.Execute(context, arguments, absl::MakeSpan(results));
  return results;
}

}  // namespace sluice
