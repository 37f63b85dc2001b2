// Fuzz target for ParseFaultSpec, the SLUICE_FAULTS grammar of
// docs/faults.md (a process reads it from its environment). Any text either
// fails with an InvalidArgument that names the entry, or parses into faults
// within the grammar's bounds (a known point, a delay of at most an hour, a
// count from 1, a probability from 0 to 1); a parsed spec, printed back in
// the grammar's plainest form, parses to the same faults. The text also goes
// through ParseMinLogLevel (SLUICE_MIN_LOG_LEVEL), which must clamp it.
//
// In the test suite, seeded_fuzz_driver.cc runs this target on
// test/fuzz/seeds/fault_spec/ and deterministic mutations; to fuzz it for
// real with libFuzzer, see build_libfuzzer_target.sh.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/support/fault_spec.h"
#include "sluice/support/failure.h"
#include "sluice/support/fault_point.h"
#include "sluice/support/logging.h"
#include "test/fuzz/fuzz_target.h"

namespace sluice {
namespace fault_internal {
namespace {

using fuzz::Require;

bool IsKnownPoint(std::string_view name) {
  for (const FaultPointInfo& point : KnownFaultPoints()) {
    if (point.name == name) return true;
  }
  return false;
}

// The entry in the grammar's plainest form: every argument spelled out,
// numbers in decimal, the probability with every digit a double needs.
std::string Print(const Fault& fault) {
  std::string entry = absl::StrCat(fault.point, "=");
  switch (fault.action) {
    case FaultAction::kError:
      absl::StrAppend(&entry, "error:", absl::StatusCodeToString(fault.code));
      if (fault.failure_class) {
        absl::StrAppend(&entry, ":",
                        std::string(FailureClassName(*fault.failure_class)));
      }
      break;
    case FaultAction::kDelay:
      absl::StrAppend(&entry,
                      "delay:", absl::ToInt64Milliseconds(fault.duration));
      break;
    case FaultAction::kHang:
      absl::StrAppend(&entry,
                      "hang:", absl::ToInt64Milliseconds(fault.duration));
      break;
    case FaultAction::kKill:
      absl::StrAppend(&entry, "kill");
      break;
  }
  switch (fault.trigger) {
    case Trigger::kEveryHit:
      break;
    case Trigger::kNth:
      absl::StrAppend(&entry, "@nth=", fault.n);
      break;
    case Trigger::kEveryNth:
      absl::StrAppend(&entry, "@every=", fault.n);
      break;
    case Trigger::kFrom:
      absl::StrAppend(&entry, "@from=", fault.n);
      break;
    case Trigger::kProbability: {
      char probability[32];
      std::snprintf(probability, sizeof(probability), "%.17g",
                    fault.probability);
      absl::StrAppend(&entry, "@prob=", probability);
      break;
    }
  }
  return entry;
}

bool SameFault(const Fault& a, const Fault& b) {
  return a.point == b.point && a.action == b.action && a.code == b.code &&
         a.failure_class == b.failure_class && a.duration == b.duration &&
         a.trigger == b.trigger && a.n == b.n && a.probability == b.probability;
}

void CheckFault(const Fault& fault) {
  Require(IsKnownPoint(fault.point), "a fault names a known point");
  Require(!fault.entry.empty() && fault.entry.find(';') == std::string::npos,
          "a fault's entry is one entry of the spec");
  Require(fault.code != absl::StatusCode::kOk, "an injected error is no OK");
  if (fault.action == FaultAction::kDelay ||
      fault.action == FaultAction::kHang) {
    Require(fault.duration >= absl::ZeroDuration() &&
                fault.duration <= absl::Hours(1),
            "a delay or hang lasts from 0 to an hour");
  }
  switch (fault.trigger) {
    case Trigger::kEveryHit:
      break;
    case Trigger::kNth:
    case Trigger::kEveryNth:
    case Trigger::kFrom:
      Require(fault.n >= 1, "a counted trigger counts from 1");
      break;
    case Trigger::kProbability:
      Require(fault.probability >= 0 && fault.probability <= 1,
              "a probability is from 0 to 1");
      break;
  }
}

void CheckOneInput(std::string_view text) {
  // strtol needs a terminated string.
  const std::string level(text);
  const int clamped = internal::ParseMinLogLevel(level.c_str());
  Require(clamped >= 0 && clamped <= 3, "a log level is clamped to 0..3");

  absl::StatusOr<FaultSpec> spec = ParseFaultSpec(text);
  if (!spec.ok()) {
    Require(absl::IsInvalidArgument(spec.status()),
            "a bad spec is InvalidArgument");
    Require(!spec.status().message().empty(), "a bad spec says why");
    return;
  }
  std::string printed = absl::StrCat("seed=", spec->seed);
  for (const Fault& fault : spec->faults) {
    CheckFault(fault);
    absl::StrAppend(&printed, ";", Print(fault));
  }
  absl::StatusOr<FaultSpec> reparsed = ParseFaultSpec(printed);
  Require(reparsed.ok(), "a parsed spec printed back parses");
  Require(reparsed->seed == spec->seed &&
              reparsed->faults.size() == spec->faults.size(),
          "a parsed spec printed back has the same seed and faults");
  for (size_t i = 0; i < spec->faults.size(); ++i) {
    Require(SameFault(reparsed->faults[i], spec->faults[i]),
            "a parsed fault printed back parses to the same fault");
  }
}

}  // namespace
}  // namespace fault_internal

namespace fuzz {

TargetSeeds FuzzTargetSeeds() {
  TargetSeeds target;
  target.tokens = {"=",         ";",       ":",           "@",         "seed=",
                   "error",     "delay:",  "hang",        "kill",      "nth=",
                   "every=",    "from=",   "prob=",       "0.5",       "1e-320",
                   "3600000",   "3600001", "UNAVAILABLE", "DATA_LOSS", "OK",
                   "retryable", "fatal",   "cancelled",   "stale",     " "};
  for (const FaultPointInfo& point : KnownFaultPoints()) {
    target.tokens.emplace_back(point.name);
  }
  // The seed files hold the docs' examples; one entry per known point
  // reaches every point's name.
  std::string every_point;
  for (const FaultPointInfo& point : KnownFaultPoints()) {
    absl::StrAppend(&every_point, std::string(point.name), "=error@nth=1;");
  }
  target.seeds.push_back(every_point);
  return target;
}

}  // namespace fuzz
}  // namespace sluice

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::fault_internal::CheckOneInput(sluice::fuzz::AsText(data, size));
  return 0;
}
