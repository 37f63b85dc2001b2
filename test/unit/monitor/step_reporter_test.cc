// A StepReporter and a MonitorServer in one process, over loopback gRPC.
// Waits poll the monitor's state and are bounded.
#include "sluice/monitor/step_reporter.h"

#include <functional>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "sluice/monitor/monitor.h"

namespace sluice::monitor {
namespace {

StepReporterOptions FastOptions() {
  StepReporterOptions options;
  options.interval = absl::Milliseconds(20);
  options.min_backoff = absl::Milliseconds(20);
  options.max_backoff = absl::Milliseconds(200);
  return options;
}

std::unique_ptr<MonitorServer> StartMonitor(const std::string& address) {
  MonitorOptions options;
  options.world_size = 2;
  auto server = MonitorServer::Start(address, options);
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

// Polls until `holds` is true of the monitor's state, at most `timeout`.
bool WaitFor(const MonitorServer& monitor,
             const std::function<bool(const JobState&)>& holds,
             absl::Duration timeout = absl::Seconds(10)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (holds(monitor.State())) return true;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return holds(monitor.State());
}

TEST(StepReporterTest, SignalsReachTheMonitor) {
  std::unique_ptr<MonitorServer> monitor = StartMonitor("127.0.0.1:0");
  ASSERT_NE(monitor, nullptr);
  auto reporter = StepReporter::Connect(
      absl::StrCat("127.0.0.1:", monitor->port()), 1, FastOptions());
  EXPECT_EQ(reporter->rank(), 1);
  EXPECT_NE(reporter->incarnation(), 0u);
  for (int step = 0; step < 10; ++step) {
    reporter->StepBegin(step, step == 0 ? "first" : "");
    reporter->StepEnd(step);
  }
  reporter->EpochEnd(0);
  reporter->StepBegin(10);
  ASSERT_TRUE(WaitFor(*monitor, [](const JobState& s) {
    return s.ranks[1].last_begin_step == 10;
  }));
  JobState state = monitor->State();
  EXPECT_TRUE(state.ranks[1].connected);
  EXPECT_EQ(state.ranks[1].last_end_step, 9);
  EXPECT_EQ(state.ranks[1].finished_epochs, 1);
  EXPECT_FALSE(state.ranks[0].connected);
  EXPECT_EQ(state.verdicts.size(), 0u);

  reporter->StepEnd(10);
  reporter->TrainEnd();  // returns once the monitor has it
  state = monitor->State();
  EXPECT_TRUE(state.ranks[1].finished);
  ASSERT_EQ(state.verdicts.size(), 1u);
  EXPECT_EQ(state.verdicts[0].message, "rank 1 finished");
  EXPECT_EQ(reporter->dropped(), 0);
  EXPECT_EQ(reporter->connections(), 1);
}

TEST(StepReporterTest, ReporterGoneIsDeadAtOnce) {
  std::unique_ptr<MonitorServer> monitor = StartMonitor("127.0.0.1:0");
  ASSERT_NE(monitor, nullptr);
  auto reporter = StepReporter::Connect(
      absl::StrCat("127.0.0.1:", monitor->port()), 0, FastOptions());
  reporter->StepBegin(12);
  ASSERT_TRUE(WaitFor(*monitor, [](const JobState& s) {
    return s.ranks[0].last_begin_step == 12;
  }));
  reporter.reset();
  ASSERT_TRUE(WaitFor(
      *monitor, [](const JobState& s) { return s.verdicts.size() == 1; },
      absl::Seconds(1)));
  EXPECT_EQ(monitor->State().verdicts[0].kind, VerdictKind::kDead);
  EXPECT_EQ(monitor->State().verdicts[0].message,
            "rank 0 dead: its connection to the monitor dropped in step 12");
}

TEST(StepReporterTest, MonitorRestartIsToldTheOpenStepAndEpochs) {
  std::unique_ptr<MonitorServer> monitor = StartMonitor("127.0.0.1:0");
  ASSERT_NE(monitor, nullptr);
  const std::string address = absl::StrCat("127.0.0.1:", monitor->port());
  auto reporter = StepReporter::Connect(address, 1, FastOptions());
  reporter->EpochEnd(2);
  reporter->StepBegin(30, "checkpoint");
  ASSERT_TRUE(WaitFor(*monitor, [](const JobState& s) {
    return s.ranks[1].last_begin_step == 30;
  }));
  monitor.reset();
  // Training goes on while there is no monitor.
  for (int step = 31; step < 20000; ++step) {
    reporter->StepEnd(step - 1);
    reporter->StepBegin(step);
  }
  absl::SleepFor(absl::Milliseconds(100));
  monitor = StartMonitor(address);
  ASSERT_NE(monitor, nullptr);
  ASSERT_TRUE(WaitFor(*monitor, [](const JobState& s) {
    return s.ranks[1].last_begin_step == 19999;
  }));
  JobState state = monitor->State();
  EXPECT_EQ(state.ranks[1].finished_epochs, 3);
  EXPECT_TRUE(state.ranks[1].connected);
  EXPECT_GE(reporter->connections(), 2);
  // 39938 signals while the monitor was away, at most two buffers' worth
  // kept.
  EXPECT_GE(reporter->dropped(), 39938 - 2 * FastOptions().max_buffered);
}

TEST(StepReporterTest, UnreachableMonitorNeverBlocksTraining) {
  // Nothing listens on port 1.
  auto reporter = StepReporter::Connect("127.0.0.1:1", 0, FastOptions());
  for (int step = 0; step < 10000; ++step) {
    reporter->StepBegin(step);
    reporter->StepEnd(step);
  }
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_GE(reporter->dropped(), 20000 - 2 * FastOptions().max_buffered);
  // TrainEnd gives up after its bounded wait.
  const absl::Time start = absl::Now();
  reporter->TrainEnd();
  EXPECT_LT(absl::Now() - start,
            FastOptions().train_end_wait + absl::Seconds(1));
}

TEST(StepReporterTest, FromEnvironmentWithoutMonitorIsNull) {
  unsetenv("SLUICE_MONITOR");
  EXPECT_EQ(StepReporter::FromEnvironment(), nullptr);
}

TEST(MonitorServerTest, BadAddressesAndOptionsAreErrors) {
  auto no_port = MonitorServer::Start("localhost", MonitorOptions());
  EXPECT_EQ(no_port.status().message(),
            "monitor: cannot listen on 'localhost': expected host:port, "
            "there is no ':' before a port");
  MonitorOptions options;
  options.world_size = 0;
  auto bad = MonitorServer::Start("127.0.0.1:0", options);
  EXPECT_EQ(bad.status().message(),
            "monitor: world size must be at least 1, not 0");
}

}  // namespace
}  // namespace sluice::monitor
