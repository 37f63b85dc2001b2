#include "lib/support/fault_spec.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "sluice/support/fault_point.h"

namespace sluice::fault_internal {
namespace {

// The longest delay or hang a spec may ask for.
constexpr int64_t kMaxMilliseconds = 3600 * 1000;

std::string Str(std::string_view text) { return std::string(text); }

// Debian's Abseil has a string_view of its own, which its parsers take.
absl::string_view View(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (size_t at = text.find(separator); at != std::string_view::npos;
       at = text.find(separator)) {
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + 1);
  }
  parts.push_back(text);
  return parts;
}

// `text` before and after the first `separator`; whether there was one.
bool SplitOnce(std::string_view text, char separator, std::string_view* before,
               std::string_view* after) {
  const size_t at = text.find(separator);
  *before = text.substr(0, at);
  *after =
      at == std::string_view::npos ? std::string_view() : text.substr(at + 1);
  return at != std::string_view::npos;
}

std::string_view Trim(std::string_view text) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(View(text));
  return std::string_view(trimmed.data(), trimmed.size());
}

// An error about `fault`'s entry.
absl::Status BadEntry(std::string_view entry, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("fault spec entry '", Str(entry), "': ", Str(why)));
}

bool IsKnownPoint(std::string_view name) {
  for (const FaultPointInfo& point : KnownFaultPoints()) {
    if (point.name == name) return true;
  }
  return false;
}

std::string KnownPointNames() {
  std::vector<std::string> names;
  for (const FaultPointInfo& point : KnownFaultPoints()) {
    names.push_back(Str(point.name));
  }
  return absl::StrJoin(names, ", ");
}

std::optional<absl::StatusCode> ParseCode(std::string_view name) {
  for (int code = 1; code <= 16; ++code) {
    auto status_code = static_cast<absl::StatusCode>(code);
    if (absl::StatusCodeToString(status_code) == name) return status_code;
  }
  return std::nullopt;
}

// A duration in milliseconds, `what` naming it in the error.
absl::Status ParseMilliseconds(std::string_view entry, std::string_view text,
                               std::string_view what, absl::Duration* out) {
  int64_t ms = 0;
  if (!absl::SimpleAtoi(View(text), &ms) || ms < 0 || ms > kMaxMilliseconds) {
    return BadEntry(entry, absl::StrCat(Str(what), " '", Str(text),
                                        "' is not a number of milliseconds "
                                        "from 0 to ",
                                        kMaxMilliseconds));
  }
  *out = absl::Milliseconds(ms);
  return absl::OkStatus();
}

// `action[:arg]...` into `fault`.
absl::Status ParseAction(std::string_view text, Fault& fault) {
  const std::vector<std::string_view> parts = Split(text, ':');
  const std::string_view name = parts[0];
  const size_t args = parts.size() - 1;
  auto too_many = [&](size_t most) {
    return BadEntry(fault.entry,
                    absl::StrCat("action '", Str(name), "' takes at most ",
                                 most, " argument(s), got ", args));
  };
  if (name == "error") {
    fault.action = FaultAction::kError;
    if (args > 2) return too_many(2);
    if (args >= 1) {
      std::optional<absl::StatusCode> code = ParseCode(parts[1]);
      if (!code) {
        return BadEntry(fault.entry,
                        absl::StrCat("'", Str(parts[1]),
                                     "' is not a status code name other than "
                                     "OK (UNAVAILABLE, INTERNAL, ...)"));
      }
      fault.code = *code;
    }
    if (args == 2) {
      fault.failure_class = ParseFailureClass(parts[2]);
      if (!fault.failure_class) {
        return BadEntry(fault.entry, absl::StrCat("'", Str(parts[2]),
                                                  "' is not a failure class "
                                                  "(retryable, fatal, "
                                                  "cancelled or stale)"));
      }
    }
    return absl::OkStatus();
  }
  if (name == "delay") {
    fault.action = FaultAction::kDelay;
    if (args == 0) {
      return BadEntry(fault.entry, "delay needs its milliseconds: delay:MS");
    }
    if (args > 1) return too_many(1);
    return ParseMilliseconds(fault.entry, parts[1], "delay", &fault.duration);
  }
  if (name == "hang") {
    fault.action = FaultAction::kHang;
    fault.duration = kDefaultHangBound;
    if (args > 1) return too_many(1);
    if (args == 0) return absl::OkStatus();
    return ParseMilliseconds(fault.entry, parts[1], "hang bound",
                             &fault.duration);
  }
  if (name == "kill") {
    fault.action = FaultAction::kKill;
    if (args > 0) return too_many(0);
    return absl::OkStatus();
  }
  return BadEntry(fault.entry, absl::StrCat("unknown action '", Str(name),
                                            "' (error, delay, hang or kill)"));
}

// `kind=value` into `fault`.
absl::Status ParseTrigger(std::string_view text, Fault& fault) {
  std::string_view kind, value;
  SplitOnce(text, '=', &kind, &value);
  if (kind == "prob") {
    fault.trigger = Trigger::kProbability;
    if (!absl::SimpleAtod(View(value), &fault.probability) ||
        !(fault.probability >= 0 && fault.probability <= 1)) {
      return BadEntry(fault.entry,
                      absl::StrCat("prob '", Str(value),
                                   "' is not a probability from 0 to 1"));
    }
    return absl::OkStatus();
  }
  if (kind == "nth") {
    fault.trigger = Trigger::kNth;
  } else if (kind == "every") {
    fault.trigger = Trigger::kEveryNth;
  } else if (kind == "from") {
    fault.trigger = Trigger::kFrom;
  } else {
    return BadEntry(fault.entry,
                    absl::StrCat("unknown trigger '", Str(text),
                                 "' (nth=N, every=N, from=N or prob=P)"));
  }
  if (!absl::SimpleAtoi(View(value), &fault.n) || fault.n < 1) {
    return BadEntry(fault.entry,
                    absl::StrCat(Str(kind), " '", Str(value),
                                 "' is not a whole number of hits from 1"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FaultSpec> ParseFaultSpec(std::string_view spec) {
  FaultSpec parsed;
  bool seeded = false;
  for (std::string_view raw : Split(spec, ';')) {
    const std::string_view entry = Trim(raw);
    if (entry.empty()) continue;
    std::string_view key, rest;
    if (!SplitOnce(entry, '=', &key, &rest)) {
      return BadEntry(entry, "expected point=action or seed=N");
    }
    if (key == "seed") {
      if (seeded) return BadEntry(entry, "the seed is given twice");
      if (!absl::SimpleAtoi(View(rest), &parsed.seed)) {
        return BadEntry(entry, absl::StrCat("seed '", Str(rest),
                                            "' is not a whole number"));
      }
      seeded = true;
      continue;
    }
    Fault fault;
    fault.entry = Str(entry);
    fault.point = Str(key);
    if (!IsKnownPoint(key)) {
      return BadEntry(
          entry, absl::StrCat("unknown fault point '", Str(key),
                              "'; the fault points are ", KnownPointNames()));
    }
    std::string_view action, trigger;
    const bool has_trigger = SplitOnce(rest, '@', &action, &trigger);
    absl::Status status = ParseAction(action, fault);
    if (!status.ok()) return status;
    if (has_trigger) {
      status = ParseTrigger(trigger, fault);
      if (!status.ok()) return status;
    }
    parsed.faults.push_back(std::move(fault));
  }
  return parsed;
}

}  // namespace sluice::fault_internal
