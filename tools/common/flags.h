// The command-line flags of the Sluice tools and examples, without LLVM: a
// tool that only loads .sbf must not link LLVM for its command line.
//
// A tool declares its flags as members of one struct, the FlagSet first:
//
//   struct WorkerFlags {
//     tools::FlagSet set;
//     tools::Flag<std::string> task_name{set, "task_name", "this task's name"};
//     tools::Flag<int> max_programs{set, "max_programs", "programs kept",
//                                   128, tools::InRange(1, 65536)};
//     tools::Flag<std::string> work_queue_type{
//         set, "work_queue_type", "mstd | s", "mstd",
//         tools::Alias("work_queue")};
//   };
//
// After the name, the description and the default come modifiers, in any
// order: Alias (an old spelling that parses and is not in --help),
// DeprecatedAlias (the same, with a warning when used), InRange (refuses a
// value outside it, flag_checks.h, and shows it in --help), ValueName (what
// --help shows for the value) and, for lists, CommaSeparated.
//
// The spellings are LLVM's: -name=value, --name=value, --name value (not for
// booleans), a bare --name for true and --name=true|false. A flag given
// more than once takes its last value (the lit tests' substitutions name a
// work queue that a test may name again); a list takes every value. Arguments
// that are not flags, and every argument after "--", are positional: at most
// one PositionalArg takes the first, and a TrailingArgs takes those after "--".
#ifndef SLUICE_TOOLS_COMMON_FLAGS_H_
#define SLUICE_TOOLS_COMMON_FLAGS_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "tools/common/flag_checks.h"

namespace sluice::tools {

class FlagSet;

// Another spelling of a flag, for the spellings tools had before: it parses
// and stays out of --help.
struct Alias {
  explicit Alias(std::string name) : name(std::move(name)) {}
  std::string name;
};

// An Alias whose use prints "TOOL: --OLD is deprecated; use --NAME".
struct DeprecatedAlias {
  explicit DeprecatedAlias(std::string name) : name(std::move(name)) {}
  std::string name;
};

// What --help shows for the flag's value, <NAME>, instead of its type.
struct ValueName {
  explicit ValueName(std::string name) : name(std::move(name)) {}
  std::string name;
};

// A list flag whose every value is itself a list: --functions=a,b.
struct CommaSeparated {};

// What Flag<T> shares with the FlagSet that parses it.
class FlagBase {
 public:
  FlagBase(const FlagBase&) = delete;
  FlagBase& operator=(const FlagBase&) = delete;

  const std::string& name() const { return name_; }
  // As --help shows it, the range included.
  const std::string& description() const { return description_; }
  // Whether the command line gave the flag (any of its spellings), and how
  // many times.
  bool given() const { return occurrences_ > 0; }
  int occurrences() const { return occurrences_; }

 protected:
  FlagBase(FlagSet& set, std::string name, std::string description);
  // Deregistering is the FlagSet's job; flags live as long as it.
  virtual ~FlagBase() = default;

  void Apply(const Alias& alias) { aliases_.push_back({alias.name, false}); }
  void Apply(const DeprecatedAlias& alias) {
    aliases_.push_back({alias.name, true});
  }
  void Apply(const ValueName& value_name) { value_name_ = value_name.name; }
  void SetDescription(std::string description) {
    description_ = std::move(description);
  }

 private:
  friend class FlagSet;

  struct Spelling {
    std::string name;
    bool deprecated;
  };

  // Parses one value given on the command line; errors name the flag.
  virtual absl::Status Set(std::string_view text) = 0;
  // False for booleans, which take no separate value (`--flag value`).
  virtual bool TakesValue() const { return true; }
  // What --help shows after `=`: "<int>", "<string>"; empty for booleans.
  virtual std::string TypeName() const = 0;

  std::string name_;
  std::string description_;
  std::string value_name_;
  std::vector<Spelling> aliases_;
  int occurrences_ = 0;
};

namespace internal {
// The parsers of each type's values, refusing with the messages of
// flag_checks.h. `range`, when set, is the flag's InRange; integers also
// stay within [type_min, type_max].
absl::Status ParseBool(std::string_view flag, std::string_view text,
                       bool* value);
absl::Status ParseSigned(
    std::string_view flag, std::string_view text, int64_t type_min,
    int64_t type_max, const std::optional<std::pair<int64_t, int64_t>>& range,
    int64_t* value);
absl::Status ParseUnsigned(std::string_view flag, std::string_view text,
                           uint64_t type_max, uint64_t* value);
absl::Status ParseDouble(std::string_view flag, std::string_view text,
                         const std::optional<std::pair<double, double>>& range,
                         double* value);
std::vector<std::string> SplitAtCommas(std::string_view text);
}  // namespace internal

// A flag of type T: std::string, bool, an integer, double, or
// std::vector<std::string> for a list (each occurrence adds its value).
template <typename T>
class Flag final : public FlagBase {
 public:
  template <typename... Modifiers>
  Flag(FlagSet& set, std::string name, std::string description,
       T default_value = T(), const Modifiers&... modifiers)
      : FlagBase(set, std::move(name), std::move(description)),
        value_(std::move(default_value)) {
    (Apply(modifiers), ...);
  }

  const T& value() const { return value_; }
  const T& operator*() const { return value_; }
  const T* operator->() const { return &value_; }

 private:
  static constexpr bool kIsList = std::is_same_v<T, std::vector<std::string>>;
  using RangeType =
      std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

  static_assert(std::is_same_v<T, std::string> || std::is_arithmetic_v<T> ||
                    kIsList,
                "a flag holds a string, a bool, a number or a list of strings");

  using FlagBase::Apply;
  template <typename U>
  void Apply(const InRange<U>& range) {
    static_assert(std::is_arithmetic_v<T> && std::is_signed_v<T>,
                  "a range of signed integers or of floating point");
    range_ = std::make_pair(static_cast<RangeType>(range.min),
                            static_cast<RangeType>(range.max));
    SetDescription(WithRange(description(), range.min, range.max));
  }
  void Apply(const CommaSeparated&) {
    static_assert(kIsList, "only a list is comma-separated");
    comma_separated_ = true;
  }

  absl::Status Set(std::string_view text) override {
    if constexpr (kIsList) {
      if (!comma_separated_) {
        value_.emplace_back(text);
      } else {
        for (std::string& item : internal::SplitAtCommas(text)) {
          value_.push_back(std::move(item));
        }
      }
      return absl::OkStatus();
    } else if constexpr (std::is_same_v<T, std::string>) {
      value_ = std::string(text);
      return absl::OkStatus();
    } else if constexpr (std::is_same_v<T, bool>) {
      return internal::ParseBool(name(), text, &value_);
    } else if constexpr (std::is_floating_point_v<T>) {
      double parsed = 0;
      absl::Status status =
          internal::ParseDouble(name(), text, range_, &parsed);
      if (status.ok()) value_ = static_cast<T>(parsed);
      return status;
    } else if constexpr (std::is_signed_v<T>) {
      int64_t parsed = 0;
      absl::Status status =
          internal::ParseSigned(name(), text, std::numeric_limits<T>::min(),
                                std::numeric_limits<T>::max(), range_, &parsed);
      if (status.ok()) value_ = static_cast<T>(parsed);
      return status;
    } else {
      uint64_t parsed = 0;
      absl::Status status = internal::ParseUnsigned(
          name(), text, std::numeric_limits<T>::max(), &parsed);
      if (status.ok()) value_ = static_cast<T>(parsed);
      return status;
    }
  }

  bool TakesValue() const override { return !std::is_same_v<T, bool>; }

  std::string TypeName() const override {
    if constexpr (std::is_same_v<T, bool>) {
      return "";
    } else if constexpr (std::is_floating_point_v<T>) {
      return "number";
    } else if constexpr (std::is_arithmetic_v<T>) {
      return "int";
    } else {
      return "string";
    }
  }

  T value_;
  std::optional<std::pair<RangeType, RangeType>> range_;
  bool comma_separated_ = false;
};

// The one argument a tool takes besides its flags (sluice_run's program).
// `usage` is how --help's USAGE line shows it, e.g. "<program.mlir>".
class PositionalArg {
 public:
  PositionalArg(FlagSet& set, std::string usage, std::string default_value);
  PositionalArg(const PositionalArg&) = delete;
  PositionalArg& operator=(const PositionalArg&) = delete;

  const std::string& value() const { return value_; }
  const std::string& operator*() const { return value_; }
  const std::string* operator->() const { return &value_; }
  bool given() const { return given_; }

 private:
  friend class FlagSet;
  std::string usage_;
  std::string value_;
  bool given_ = false;
};

// Every argument after "--", never read as flags (sluice_launch's command).
class TrailingArgs {
 public:
  TrailingArgs(FlagSet& set, std::string usage);
  TrailingArgs(const TrailingArgs&) = delete;
  TrailingArgs& operator=(const TrailingArgs&) = delete;

  const std::vector<std::string>& value() const { return values_; }
  const std::vector<std::string>& operator*() const { return values_; }
  const std::vector<std::string>* operator->() const { return &values_; }

 private:
  friend class FlagSet;
  std::string usage_;
  std::vector<std::string> values_;
};

// The flags of one tool. Flags register with it as they are constructed;
// it neither owns nor copies them, so it is declared before them and
// lives as long as they do.
class FlagSet {
 public:
  FlagSet() = default;
  FlagSet(const FlagSet&) = delete;
  FlagSet& operator=(const FlagSet&) = delete;

  // What the command line asked for besides flags.
  enum class Action { kRun, kHelp, kVersion };
  struct Parsed {
    Action action = Action::kRun;
    // One line each, for stderr after the tool's name: deprecated
    // spellings that were used.
    std::vector<std::string> warnings;
  };

  // Parses `args`, the command line without the program's name; `tool` is
  // what errors call the program. Stops at --help or --version. An error
  // is one line (InvalidArgument) without the tool's name in front.
  absl::StatusOr<Parsed> Parse(std::string_view tool,
                               const std::vector<std::string>& args);

  // The --help text: the overview, the usage line and each flag with its
  // description, one line each, sorted by name; aliases left out.
  std::string Help(std::string_view tool, std::string_view overview) const;

 private:
  friend class FlagBase;
  friend class PositionalArg;
  friend class TrailingArgs;

  void Add(FlagBase* flag);
  // The flag spelled `name` (a name or an alias), or null.
  FlagBase* Find(std::string_view name, bool* deprecated) const;
  absl::Status SetPositional(const std::string& arg);

  std::vector<FlagBase*> flags_;
  PositionalArg* positional_ = nullptr;
  TrailingArgs* trailing_ = nullptr;
};

}  // namespace sluice::tools

#endif  // SLUICE_TOOLS_COMMON_FLAGS_H_
