#include "lib/support/fault_spec.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::fault_internal {
namespace {

using ::testing::HasSubstr;

TEST(FaultSpecTest, AnEmptySpecHasNoFaults) {
  for (const char* spec : {"", " ", ";", " ; ;"}) {
    absl::StatusOr<FaultSpec> parsed = ParseFaultSpec(spec);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_TRUE(parsed->faults.empty()) << spec;
  }
}

TEST(FaultSpecTest, ParsesEveryActionAndTrigger) {
  absl::StatusOr<FaultSpec> parsed = ParseFaultSpec(
      "worker.call.begin=kill@nth=2; seed=42 ;"
      "worker.call.end=delay:150@every=3;"
      "client.call.send=error:INTERNAL:retryable@prob=0.25;"
      "worker.register.begin=hang:2000@from=4;"
      "worker.call.begin=error;worker.call.end=hang");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->seed, 42u);
  ASSERT_EQ(parsed->faults.size(), 6u);

  const Fault& kill = parsed->faults[0];
  EXPECT_EQ(kill.entry, "worker.call.begin=kill@nth=2");
  EXPECT_EQ(kill.point, "worker.call.begin");
  EXPECT_EQ(kill.action, FaultAction::kKill);
  EXPECT_EQ(kill.trigger, Trigger::kNth);
  EXPECT_EQ(kill.n, 2);

  const Fault& delay = parsed->faults[1];
  EXPECT_EQ(delay.action, FaultAction::kDelay);
  EXPECT_EQ(delay.duration, absl::Milliseconds(150));
  EXPECT_EQ(delay.trigger, Trigger::kEveryNth);
  EXPECT_EQ(delay.n, 3);

  const Fault& error = parsed->faults[2];
  EXPECT_EQ(error.point, "client.call.send");
  EXPECT_EQ(error.action, FaultAction::kError);
  EXPECT_EQ(error.code, absl::StatusCode::kInternal);
  EXPECT_EQ(error.failure_class, FailureClass::kRetryable);
  EXPECT_EQ(error.trigger, Trigger::kProbability);
  EXPECT_DOUBLE_EQ(error.probability, 0.25);

  const Fault& hang = parsed->faults[3];
  EXPECT_EQ(hang.action, FaultAction::kHang);
  EXPECT_EQ(hang.duration, absl::Seconds(2));
  EXPECT_EQ(hang.trigger, Trigger::kFrom);
  EXPECT_EQ(hang.n, 4);

  const Fault& plain_error = parsed->faults[4];
  EXPECT_EQ(plain_error.code, absl::StatusCode::kUnavailable);
  EXPECT_FALSE(plain_error.failure_class.has_value());
  EXPECT_EQ(plain_error.trigger, Trigger::kEveryHit);

  EXPECT_EQ(parsed->faults[5].duration, kDefaultHangBound);
}

TEST(FaultSpecTest, TheSeedDefaultsToOne) {
  absl::StatusOr<FaultSpec> parsed =
      ParseFaultSpec("worker.call.begin=error@prob=0.5");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->seed, 1u);
}

struct BadSpec {
  const char* spec;
  const char* says;
};

TEST(FaultSpecTest, ABadSpecNamesTheEntryAndWhatIsWrong) {
  const BadSpec cases[] = {
      {"worker.call.bgin=kill",
       "fault spec entry 'worker.call.bgin=kill': unknown fault point "
       "'worker.call.bgin'; the fault points are checkpoint.save.begin, "
       "checkpoint.save.tensor, checkpoint.save.rename, client.call.send, "
       "ps.apply.begin, ps.apply.end, ps.create.begin, ps.read.begin, "
       "worker.call.begin"},
      {"worker.call.begin",
       "entry 'worker.call.begin': expected "
       "point=action or seed=N"},
      {"worker.call.begin=explode",
       "unknown action 'explode' (error, delay, "
       "hang or kill)"},
      {"worker.call.begin=error:NOPE",
       "'NOPE' is not a status code name other than OK"},
      {"worker.call.begin=error:OK",
       "'OK' is not a status code name other than OK"},
      {"worker.call.begin=error:INTERNAL:maybe",
       "'maybe' is not a failure class (retryable, fatal, cancelled or "
       "stale)"},
      {"worker.call.begin=error:INTERNAL:fatal:x",
       "action 'error' takes at most 2 argument(s), got 3"},
      {"worker.call.begin=delay", "delay needs its milliseconds: delay:MS"},
      {"worker.call.begin=delay:-1",
       "delay '-1' is not a number of milliseconds from 0 to 3600000"},
      {"worker.call.begin=delay:soon", "delay 'soon' is not a number"},
      {"worker.call.begin=hang:9999999", "hang bound '9999999' is not a"},
      {"worker.call.begin=kill:9", "action 'kill' takes at most 0"},
      {"worker.call.begin=kill@nth=0",
       "nth '0' is not a whole number of hits from 1"},
      {"worker.call.begin=kill@every=two", "every 'two' is not a whole"},
      {"worker.call.begin=kill@prob=1.5",
       "prob '1.5' is not a probability from 0 to 1"},
      {"worker.call.begin=kill@prob=nan", "prob 'nan' is not a probability"},
      {"worker.call.begin=kill@sometimes",
       "unknown trigger 'sometimes' (nth=N, every=N, from=N or prob=P)"},
      {"seed=x", "entry 'seed=x': seed 'x' is not a whole number"},
      {"seed=1;seed=2", "entry 'seed=2': the seed is given twice"},
  };
  for (const BadSpec& bad : cases) {
    absl::StatusOr<FaultSpec> parsed = ParseFaultSpec(bad.spec);
    ASSERT_FALSE(parsed.ok()) << bad.spec;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(), HasSubstr(bad.says)) << bad.spec;
  }
}

TEST(FaultSpecTest, TheBadEntryIsNamedAmongGoodOnes) {
  absl::StatusOr<FaultSpec> parsed = ParseFaultSpec(
      "worker.call.begin=kill@nth=2;worker.call.end=delay:x;seed=3");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(),
              HasSubstr("fault spec entry 'worker.call.end=delay:x'"));
}

}  // namespace
}  // namespace sluice::fault_internal
