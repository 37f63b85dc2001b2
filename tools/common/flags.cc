#include "tools/common/flags.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace sluice::tools {
namespace {

// Abseil's own string_view, which this Abseil does not alias to std's.
absl::string_view Absl(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

absl::Status InvalidValue(std::string_view flag, std::string_view text,
                          std::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", Absl(flag), "=", Absl(text), " ", Absl(problem)));
}

// A sign and decimal digits: what an integer flag takes, whether or not it
// fits the flag's type.
bool IsDecimal(std::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    text.remove_prefix(1);
  }
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c));
  });
}

// A mistake in the tool, not on its command line: it must not start.
[[noreturn]] void DeclarationError(const std::string& message) {
  std::fprintf(stderr, "flag declarations: %s\n", message.c_str());
  std::abort();
}

}  // namespace

namespace internal {

absl::Status ParseBool(std::string_view flag, std::string_view text,
                       bool* value) {
  if (text == "true" || text == "True" || text == "TRUE" || text == "1") {
    *value = true;
    return absl::OkStatus();
  }
  if (text == "false" || text == "False" || text == "FALSE" || text == "0") {
    *value = false;
    return absl::OkStatus();
  }
  return InvalidValue(flag, text, "is neither true nor false");
}

absl::Status ParseSigned(
    std::string_view flag, std::string_view text, int64_t type_min,
    int64_t type_max, const std::optional<std::pair<int64_t, int64_t>>& range,
    int64_t* value) {
  const int64_t min = range ? range->first : type_min;
  const int64_t max = range ? range->second : type_max;
  if (!IsDecimal(text)) {
    absl::Status error = InvalidValue(flag, text, "is not an integer");
    if (!range) return error;
    return absl::InvalidArgumentError(
        absl::StrCat(error.message(), ": expected ", min, " to ", max));
  }
  int64_t parsed = 0;
  if (!absl::SimpleAtoi(Absl(text), &parsed)) {
    // Past int64_t, so past every range: shown as written.
    return InvalidValue(
        flag, text,
        absl::StrCat("is out of range: expected ", min, " to ", max));
  }
  if (absl::Status valid =
          CheckFlagRange(flag, absl::StrCat(parsed), parsed, min, max);
      !valid.ok()) {
    return valid;
  }
  *value = parsed;
  return absl::OkStatus();
}

absl::Status ParseUnsigned(std::string_view flag, std::string_view text,
                           uint64_t type_max, uint64_t* value) {
  if (!IsDecimal(text)) return InvalidValue(flag, text, "is not an integer");
  uint64_t parsed = 0;
  if (text[0] == '-' || !absl::SimpleAtoi(Absl(text), &parsed) ||
      parsed > type_max) {
    return InvalidValue(
        flag, text, absl::StrCat("is out of range: expected 0 to ", type_max));
  }
  *value = parsed;
  return absl::OkStatus();
}

absl::Status ParseDouble(std::string_view flag, std::string_view text,
                         const std::optional<std::pair<double, double>>& range,
                         double* value) {
  // strtod, as LLVM's parser: nan and the infinities parse, and a number
  // too large for a double is an infinity; a range refuses all three.
  const std::string copy(text);
  char* end = nullptr;
  const double parsed = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size()) {
    absl::Status error = InvalidValue(flag, text, "is not a number");
    if (!range) return error;
    return absl::InvalidArgumentError(absl::StrCat(
        error.message(), ": expected ", range->first, " to ", range->second));
  }
  if (range) {
    if (absl::Status valid = CheckFlagRange(flag, absl::StrCat(parsed), parsed,
                                            range->first, range->second);
        !valid.ok()) {
      return valid;
    }
  }
  *value = parsed;
  return absl::OkStatus();
}

std::vector<std::string> SplitAtCommas(std::string_view text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    items.emplace_back(text.substr(start, comma - start));
    if (comma == std::string_view::npos) return items;
    start = comma + 1;
  }
}

}  // namespace internal

FlagBase::FlagBase(FlagSet& set, std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {
  set.Add(this);
}

PositionalArg::PositionalArg(FlagSet& set, std::string usage,
                             std::string default_value)
    : usage_(std::move(usage)), value_(std::move(default_value)) {
  if (set.positional_ != nullptr) DeclarationError("two positional arguments");
  set.positional_ = this;
}

TrailingArgs::TrailingArgs(FlagSet& set, std::string usage)
    : usage_(std::move(usage)) {
  if (set.trailing_ != nullptr) DeclarationError("two TrailingArgs");
  set.trailing_ = this;
}

void FlagSet::Add(FlagBase* flag) {
  // Only the name can be checked: modifiers, aliases included, apply after
  // the flag registers.
  bool deprecated = false;
  if (flag->name_.empty() || flag->name_ == "help" ||
      flag->name_ == "version" || Find(flag->name_, &deprecated) != nullptr) {
    DeclarationError(
        absl::StrCat("flag '", flag->name_, "' is empty, taken or reserved"));
  }
  flags_.push_back(flag);
}

FlagBase* FlagSet::Find(std::string_view name, bool* deprecated) const {
  for (FlagBase* flag : flags_) {
    if (flag->name_ == name) {
      *deprecated = false;
      return flag;
    }
    for (const FlagBase::Spelling& alias : flag->aliases_) {
      if (alias.name == name) {
        *deprecated = alias.deprecated;
        return flag;
      }
    }
  }
  return nullptr;
}

absl::Status FlagSet::SetPositional(const std::string& arg) {
  if (positional_ == nullptr || positional_->given_) {
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", arg, "'"));
  }
  positional_->value_ = arg;
  positional_->given_ = true;
  return absl::OkStatus();
}

absl::StatusOr<FlagSet::Parsed> FlagSet::Parse(
    std::string_view tool, const std::vector<std::string>& args) {
  Parsed parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      for (++i; i < args.size(); ++i) {
        if (trailing_ != nullptr) {
          trailing_->values_.push_back(args[i]);
        } else if (absl::Status set = SetPositional(args[i]); !set.ok()) {
          return set;
        }
      }
      break;
    }
    // "-" is a file name: standard input.
    if (arg.size() < 2 || arg[0] != '-') {
      if (absl::Status set = SetPositional(arg); !set.ok()) return set;
      continue;
    }
    std::string_view body(arg);
    body.remove_prefix(body.substr(0, 2) == "--" ? 2 : 1);
    const size_t equals = body.find('=');
    const std::string_view name = body.substr(0, equals);
    if (name == "help") {
      parsed.action = Action::kHelp;
      return parsed;
    }
    if (name == "version") {
      parsed.action = Action::kVersion;
      return parsed;
    }
    bool deprecated = false;
    FlagBase* flag = name.empty() ? nullptr : Find(name, &deprecated);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag '",
                       Absl(std::string_view(arg).substr(
                           0, arg.size() - body.size() + name.size())),
                       "' (try '", Absl(tool), " --help')"));
    }
    if (deprecated) {
      parsed.warnings.push_back(absl::StrCat(
          "--", Absl(name), " is deprecated; use --", flag->name_));
    }
    std::string value;
    if (equals != std::string_view::npos) {
      value = std::string(body.substr(equals + 1));
    } else if (!flag->TakesValue()) {
      value = "true";
    } else if (i + 1 < args.size()) {
      // Taken whatever it looks like: `--timeout -1` is a timeout of -1.
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--", Absl(name), " needs a value"));
    }
    ++flag->occurrences_;
    if (absl::Status set = flag->Set(value); !set.ok()) return set;
  }
  return parsed;
}

std::string FlagSet::Help(std::string_view tool,
                          std::string_view overview) const {
  struct Line {
    std::string flag;
    std::string description;
  };
  std::vector<Line> lines;
  for (const FlagBase* flag : flags_) {
    std::string value_name =
        flag->value_name_.empty() ? flag->TypeName() : flag->value_name_;
    lines.push_back(
        {absl::StrCat(
             "--", flag->name_,
             value_name.empty() ? "" : absl::StrCat("=<", value_name, ">")),
         flag->description_});
  }
  lines.push_back({"--help", "Display available options"});
  lines.push_back({"--version", "Display the version of this program"});
  std::sort(lines.begin(), lines.end(),
            [](const Line& a, const Line& b) { return a.flag < b.flag; });
  size_t width = 0;
  for (const Line& line : lines) width = std::max(width, line.flag.size());

  while (!overview.empty() && overview.back() == '\n') {
    overview.remove_suffix(1);
  }
  std::string text;
  if (!overview.empty()) {
    absl::StrAppend(&text, "OVERVIEW: ", Absl(overview), "\n\n");
  }
  absl::StrAppend(&text, "USAGE: ", Absl(tool), " [options]");
  if (positional_ != nullptr) absl::StrAppend(&text, " ", positional_->usage_);
  if (trailing_ != nullptr) absl::StrAppend(&text, " -- ", trailing_->usage_);
  absl::StrAppend(&text, "\n\nOPTIONS:\n\n");
  for (const Line& line : lines) {
    absl::StrAppend(&text, "  ", line.flag,
                    std::string(width - line.flag.size(), ' '), " - ",
                    line.description, "\n");
  }
  return text;
}

}  // namespace sluice::tools
