#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/coordinator/coordinator.h"

namespace sluice::dist {

absl::StatusOr<ClosureFunction> ClosureFunction::FromProgram(
    std::shared_ptr<const std::vector<uint8_t>> program,
    std::string_view name) {
  if (program == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no program given for function '", std::string(name), "'"));
  }
  absl::StatusOr<bef::SbfProgram> read = bef::ReadSbf(*program);
  if (!read.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot schedule function '", std::string(name),
                     "': ", read.status().message()));
  }
  std::vector<std::string> names;
  for (const bef::SbfFunction& function : read->functions) {
    if (function.kind != bef::FunctionKind::kFunction) continue;
    if (function.name != name) {
      names.emplace_back(function.name);
      continue;
    }
    ClosureFunction result;
    result.program_ = std::move(program);
    result.name_ = std::string(name);
    for (uint32_t type : function.argument_types) {
      result.argument_types_.emplace_back(read->types[type]);
    }
    for (uint32_t type : function.result_types) {
      result.result_types_.emplace_back(read->types[type]);
    }
    return result;
  }
  return absl::NotFoundError(absl::StrCat(
      "the program has no function '", std::string(name), "'; it has ",
      names.empty() ? "none" : absl::StrJoin(names, ", ")));
}

}  // namespace sluice::dist
