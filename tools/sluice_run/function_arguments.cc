#include "tools/sluice_run/function_arguments.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sluice/host_context/async_value_ref.h"

namespace sluice {
namespace {

absl::StatusOr<RCReference<AsyncValue>> MakeValue(std::string_view type,
                                                  const std::string& text) {
  if (type == "i1") {
    if (text == "true" || text == "1") {
      return MakeAvailableAsyncValueRef<bool>(true).ReleaseRCRef();
    }
    if (text == "false" || text == "0") {
      return MakeAvailableAsyncValueRef<bool>(false).ReleaseRCRef();
    }
  } else if (type == "i32") {
    int32_t value = 0;
    if (absl::SimpleAtoi(text, &value)) {
      return MakeAvailableAsyncValueRef<int32_t>(value).ReleaseRCRef();
    }
  } else if (type == "i64") {
    int64_t value = 0;
    if (absl::SimpleAtoi(text, &value)) {
      return MakeAvailableAsyncValueRef<int64_t>(value).ReleaseRCRef();
    }
  } else if (type == "f32") {
    float value = 0;
    if (absl::SimpleAtof(text, &value)) {
      return MakeAvailableAsyncValueRef<float>(value).ReleaseRCRef();
    }
  } else if (type == "f64") {
    double value = 0;
    if (absl::SimpleAtod(text, &value)) {
      return MakeAvailableAsyncValueRef<double>(value).ReleaseRCRef();
    }
  } else if (type == "!tfrt.chain") {
    if (text == "chain") return MakeReadyChain().ReleaseRCRef();
  } else {
    return absl::UnimplementedError(absl::StrCat(
        "is ", std::string(type),
        ", which --args cannot give (i1, i32, i64, f32, f64 and !tfrt.chain "
        "can)"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("is ", std::string(type), "; '", text, "' is not"));
}

}  // namespace

absl::StatusOr<FunctionArguments> ParseFunctionArguments(
    std::string_view flag) {
  const size_t colon = flag.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--args=", std::string(flag),
                     ": expected FUNCTION:VALUE,VALUE,... (e.g. fib:20)"));
  }
  FunctionArguments arguments;
  arguments.function = std::string(flag.substr(0, colon));
  const std::string_view values = flag.substr(colon + 1);
  if (!values.empty())
    arguments.values = absl::StrSplit(std::string(values), ',');
  return arguments;
}

absl::StatusOr<std::vector<RCReference<AsyncValue>>> MakeFunctionArguments(
    const FunctionArguments& arguments,
    absl::Span<const std::string_view> types) {
  if (arguments.values.size() != types.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--args: '", arguments.function, "' takes ", types.size(),
        types.size() == 1 ? " argument (" : " arguments (",
        absl::StrJoin(
            types, ", ",
            [](std::string* out, std::string_view type) { out->append(type); }),
        "), got ", arguments.values.size()));
  }
  std::vector<RCReference<AsyncValue>> values;
  values.reserve(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    absl::StatusOr<RCReference<AsyncValue>> value =
        MakeValue(types[i], arguments.values[i]);
    if (!value.ok()) {
      return absl::Status(
          value.status().code(),
          absl::StrCat("--args: argument #", i, " of '", arguments.function,
                       "' ", std::string(value.status().message())));
    }
    values.push_back(*std::move(value));
  }
  return values;
}

}  // namespace sluice
