#include "sluice/kernel/kernel_registry.h"

#include <algorithm>
#include <unordered_set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sluice/host_context/host_context.h"

namespace sluice {

absl::Status KernelRegistry::CheckEntry(const KernelEntry& entry) const {
  if (kernels_.count(std::string(entry.name)) != 0) {
    return absl::AlreadyExistsError(absl::StrCat(
        "kernel '", std::string(entry.name), "' is already registered"));
  }
  const KernelSignature* signature = entry.kernel.signature();
  const size_t num_names = entry.kernel.attribute_names().size();
  if (num_names == 0) return absl::OkStatus();
  if (signature == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel '", std::string(entry.name),
                     "' names its attributes but has no signature to bind "
                     "them to (register it with SLUICE_KERNEL)"));
  }
  if (num_names != signature->attributes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "kernel '", std::string(entry.name), "' names ", num_names,
        " attributes but its function takes ", signature->attributes.size()));
  }
  std::unordered_set<std::string_view> seen;
  for (const std::string& name : entry.kernel.attribute_names()) {
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("kernel '", std::string(entry.name),
                       "' names attribute '", name, "' twice"));
    }
  }
  return absl::OkStatus();
}

absl::Status KernelRegistry::AddKernel(std::string_view name,
                                       KernelDefinition kernel,
                                       Strictness strictness) {
  return AddKernels({KernelEntry{name, std::move(kernel), strictness}});
}

absl::Status KernelRegistry::AddKernels(
    std::initializer_list<KernelEntry> entries) {
  std::vector<absl::Status> problems;
  std::unordered_set<std::string_view> names;
  for (const KernelEntry& entry : entries) {
    absl::Status status = CheckEntry(entry);
    if (status.ok() && !names.insert(entry.name).second) {
      status = absl::AlreadyExistsError(absl::StrCat(
          "kernel '", std::string(entry.name), "' is registered twice"));
    }
    if (!status.ok()) problems.push_back(std::move(status));
  }
  if (problems.size() == 1) return problems.front();
  if (!problems.empty()) {
    // The first problem's code, every problem's message.
    return absl::Status(
        problems.front().code(),
        absl::StrJoin(problems, "; ", [](std::string* out, const auto& s) {
          absl::StrAppend(out, s.message());
        }));
  }
  for (const KernelEntry& entry : entries) {
    kernels_.emplace(
        std::string(entry.name),
        RegisteredKernel{
            entry.kernel.implementation(), entry.strictness,
            entry.kernel.signature(), entry.kernel.attribute_names(),
            entry.strictness == Strictness::kStrict ? entry.kernel.direct()
                                                    : nullptr});
  }
  return absl::OkStatus();
}

const RegisteredKernel* KernelRegistry::GetKernel(std::string_view name) const {
  auto it = kernels_.find(std::string(name));
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::KernelNames() const {
  std::vector<std::string> names;
  names.reserve(kernels_.size());
  for (const auto& entry : kernels_) names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  return names;
}

absl::Status KernelRegistry::AddNativeFunction(std::string_view name,
                                               NativeFunction function) {
  if (!native_functions_.emplace(std::string(name), function).second) {
    return absl::AlreadyExistsError(absl::StrCat(
        "native function '", std::string(name), "' is already registered"));
  }
  return absl::OkStatus();
}

NativeFunction KernelRegistry::GetNativeFunction(std::string_view name) const {
  auto it = native_functions_.find(std::string(name));
  return it == native_functions_.end() ? nullptr : it->second;
}

namespace {

std::string Count(uint32_t n, bool open, const char* noun) {
  if (n == 0 && open) return absl::StrCat("any ", noun, "s");
  if (n == 0) return absl::StrCat("no ", noun, "s");
  return absl::StrCat(n, open ? "+" : "", " ", noun,
                      n == 1 && !open ? "" : "s");
}

}  // namespace

std::string DescribeKernel(std::string_view name,
                           const RegisteredKernel& kernel) {
  std::string line = absl::StrCat(std::string(name), ": ");
  if (kernel.strictness == Strictness::kNonStrict) {
    absl::StrAppend(&line, "non-strict, ");
  }
  const KernelSignature* signature = kernel.signature;
  if (signature == nullptr) {
    absl::StrAppend(&line, "no signature (checks its frame itself)");
    return line;
  }
  const bool open = signature->reads_frame;
  absl::StrAppend(&line,
                  Count(signature->num_operands,
                        signature->variadic_operands || open, "operand"),
                  " -> ",
                  Count(signature->num_results,
                        signature->variadic_results || open, "result"));
  if (signature->takes_functions) absl::StrAppend(&line, ", runs functions");
  if (open) absl::StrAppend(&line, ", reads its frame");
  if (!signature->attributes.empty()) {
    std::vector<std::string> attributes;
    for (size_t i = 0; i < signature->attributes.size(); ++i) {
      const AttributeRequirement& attribute = signature->attributes[i];
      attributes.push_back(absl::StrCat(
          kernel.attribute_names.empty() ? absl::StrCat("#", i)
                                         : kernel.attribute_names[i],
          attribute.optional ? "?" : "", ": ",
          DescribeAttributeRequirement(attribute)));
    }
    absl::StrAppend(&line, " {", absl::StrJoin(attributes, ", "), "}");
  }
  return line;
}

KernelRegistry& GetKernelRegistry(HostContext* host) {
  return host->GetOrCreateSharedContext<KernelRegistry>();
}

}  // namespace sluice
