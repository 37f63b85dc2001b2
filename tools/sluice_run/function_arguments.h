// Arguments from the command line: --args=FUNCTION:VALUE,VALUE,... gives a
// function that takes arguments the values to run with.
#ifndef SLUICE_TOOLS_SLUICE_RUN_FUNCTION_ARGUMENTS_H_
#define SLUICE_TOOLS_SLUICE_RUN_FUNCTION_ARGUMENTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "sluice/host_context/async_value.h"
#include "sluice/support/ref_count.h"

namespace sluice {

// One --args value, split: "fib:20" is {"fib", {"20"}}, "f:" is {"f", {}}.
struct FunctionArguments {
  std::string function;
  std::vector<std::string> values;
};

// Errors: no ':' after a function name.
absl::StatusOr<FunctionArguments> ParseFunctionArguments(std::string_view flag);

// The values as available AsyncValues of the function's argument `types`
// ("i1": true|false|1|0; "i32", "i64": decimal integers in range; "f32",
// "f64": decimal or scientific numbers; "!tfrt.chain": `chain`). Errors
// (InvalidArgument) name the function and the argument: a count that
// differs from the function's, a value that is not of its argument's type,
// a type the command line cannot give.
absl::StatusOr<std::vector<RCReference<AsyncValue>>> MakeFunctionArguments(
    const FunctionArguments& arguments,
    absl::Span<const std::string_view> types);

}  // namespace sluice

#endif  // SLUICE_TOOLS_SLUICE_RUN_FUNCTION_ARGUMENTS_H_
