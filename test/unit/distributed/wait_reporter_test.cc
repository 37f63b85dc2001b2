#include "lib/distributed/wait_reporter.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::dist::internal {
namespace {

using ::testing::MatchesRegex;

// A TCP socket on 127.0.0.1; listening or only bound (so that nothing
// listens on its port while the test holds it).
class LocalPort {
 public:
  explicit LocalPort(bool listen_on_it) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)),
              0);
    socklen_t length = sizeof(address);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    if (listen_on_it) {
      EXPECT_EQ(listen(fd_, 4), 0);
    }
  }
  ~LocalPort() { close(fd_); }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(ProbeAddressTest, TellsAListeningPortFromARefusingOne) {
  LocalPort listening(/*listen_on_it=*/true);
  LocalPort closed(/*listen_on_it=*/false);
  EXPECT_EQ(ProbeAddress(listening.address(), absl::Seconds(5)), "");
  EXPECT_EQ(ProbeAddress(closed.address(), absl::Seconds(5)),
            "connection refused");
  EXPECT_EQ(ProbeAddress("no-such-host.invalid:80", absl::Seconds(5)),
            "host not found");
  EXPECT_EQ(ProbeAddress("127.0.0.1", absl::Seconds(5)),
            "no port in the address");
}

// Collects the reporter's lines.
struct Lines {
  std::mutex mu;
  std::condition_variable added;
  std::vector<std::string> lines;

  WaitReporter::Report Collector() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu);
      lines.push_back(line);
      added.notify_all();
    };
  }
  bool WaitFor(size_t count) {
    std::unique_lock<std::mutex> lock(mu);
    return added.wait_for(lock, std::chrono::seconds(30),
                          [&] { return lines.size() >= count; });
  }
  std::vector<std::string> Get() {
    std::lock_guard<std::mutex> lock(mu);
    return lines;
  }
};

constexpr char kTask[] = "/job:worker/task:1";

TEST(WaitReporterTest, ReportsTheTaskTheAddressTheRpcAndWhyUntilItGivesUp) {
  LocalPort closed(/*listen_on_it=*/false);
  Lines lines;
  WaitReporter reporter(kTask, closed.address(), lines.Collector());
  const uint64_t id = reporter.Begin("remote call of 'add'", absl::Seconds(30));
  ASSERT_TRUE(lines.WaitFor(2));
  reporter.GaveUp(id, "no answer within 30s (deadline exceeded)");
  ASSERT_TRUE(lines.WaitFor(3));
  std::vector<std::string> got = lines.Get();
  const std::string prefix = absl::StrCat("/job:worker/task:1 at ",
                                          closed.address(), " for remote call");
  for (size_t i = 0; i + 1 < got.size(); ++i) {
    EXPECT_THAT(got[i], MatchesRegex("waiting for task " + prefix +
                                     " of 'add': connection refused "
                                     "\\([0-9]+s of 30s\\)"));
  }
  EXPECT_THAT(got.back(),
              MatchesRegex("gave up waiting for task " + prefix +
                           " of 'add' after [0-9.]+s: no answer within 30s "
                           "\\(deadline exceeded\\)"));
  // Nothing after the end, even once a report would be due again.
  absl::SleepFor(absl::Milliseconds(1500));
  EXPECT_EQ(lines.Get().size(), got.size());
}

TEST(WaitReporterTest, TellsATaskThatIsUpButSilentAndWhenItAnswers) {
  LocalPort listening(/*listen_on_it=*/true);
  Lines lines;
  WaitReporter reporter(kTask, listening.address(), lines.Collector());
  const uint64_t id =
      reporter.Begin("status request", absl::Milliseconds(2500));
  ASSERT_TRUE(lines.WaitFor(1));
  reporter.Answered(id);
  ASSERT_TRUE(lines.WaitFor(2));
  const std::string task_at =
      absl::StrCat("/job:worker/task:1 at ", listening.address());
  EXPECT_THAT(lines.Get()[0],
              MatchesRegex("waiting for task " + task_at +
                           " for status request: connected, no answer yet "
                           "\\([0-9]+s of 2.5s\\)"));
  EXPECT_THAT(lines.Get()[1],
              MatchesRegex("task " + task_at +
                           " answered status request after [0-9.]+s"));
}

// The channel's state tells a port that accepts connections but no gRPC
// session (a wrong port, a handshake that fails) from a silent task; it
// adds nothing to a refused connection.
TEST(WaitReporterTest, SaysWhenThePortIsOpenButTheChannelIsNotUp) {
  LocalPort listening(/*listen_on_it=*/true);
  LocalPort closed(/*listen_on_it=*/false);
  Lines open_lines;
  Lines closed_lines;
  auto failing = [] { return std::string("failing to connect"); };
  WaitReporter open_reporter(kTask, listening.address(), open_lines.Collector(),
                             failing);
  WaitReporter closed_reporter(kTask, closed.address(),
                               closed_lines.Collector(), failing);
  const uint64_t open_id =
      open_reporter.Begin("registering a program", absl::Seconds(30));
  const uint64_t closed_id =
      closed_reporter.Begin("registering a program", absl::Seconds(30));
  ASSERT_TRUE(open_lines.WaitFor(1));
  ASSERT_TRUE(closed_lines.WaitFor(1));
  open_reporter.Answered(open_id);
  closed_reporter.Answered(closed_id);
  EXPECT_THAT(open_lines.Get()[0],
              MatchesRegex(".* for registering a program: port open, channel "
                           "failing to connect \\([0-9]+s of 30s\\)"));
  EXPECT_THAT(closed_lines.Get()[0],
              MatchesRegex(".* for registering a program: connection refused "
                           "\\([0-9]+s of 30s\\)"));
}

TEST(WaitReporterTest, AsksAForgottenChannelNothing) {
  LocalPort listening(/*listen_on_it=*/true);
  Lines lines;
  std::atomic<int> asked{0};
  WaitReporter reporter(kTask, listening.address(), lines.Collector(),
                        [&asked] {
                          ++asked;
                          return std::string("connecting");
                        });
  reporter.ForgetChannel();
  const uint64_t id = reporter.Begin("status request", absl::Seconds(30));
  ASSERT_TRUE(lines.WaitFor(1));
  reporter.Answered(id);
  EXPECT_EQ(asked.load(), 0);
  EXPECT_THAT(lines.Get()[0], ::testing::HasSubstr("connected, no answer yet"));
}

// Each RPC has its own lines: one that ends says so once, and the others
// go on being reported.
TEST(WaitReporterTest, ReportsEachWaitingRpcOnItsOwn) {
  LocalPort closed(/*listen_on_it=*/false);
  Lines lines;
  WaitReporter reporter(kTask, closed.address(), lines.Collector());
  const uint64_t first =
      reporter.Begin("remote call of 'a'", absl::Seconds(30));
  const uint64_t second =
      reporter.Begin("remote call of 'b'", absl::Seconds(30));
  ASSERT_TRUE(lines.WaitFor(2));
  reporter.GaveUp(first, "cancelled");
  const auto count = [&lines](const std::string& text) {
    int found = 0;
    for (const std::string& line : lines.Get()) {
      if (line.find(text) != std::string::npos) ++found;
    }
    return found;
  };
  ASSERT_TRUE(lines.WaitFor(3));
  const int first_waits = count("for remote call of 'a':");
  const int second_waits = count("for remote call of 'b':");
  // The second is reported again; the first is not.
  ASSERT_TRUE(lines.WaitFor(lines.Get().size() + 1));
  reporter.Answered(second);
  EXPECT_EQ(count("for remote call of 'a':"), first_waits);
  EXPECT_GT(count("for remote call of 'b':"), second_waits);
  EXPECT_EQ(count("for remote call of 'a' after"), 1);
  EXPECT_THAT(lines.Get(), ::testing::Contains(MatchesRegex(
                               ".* for remote call of 'a' after [0-9.]+s: "
                               "cancelled")));
}

TEST(WaitReporterTest, SaysNothingOfAWaitThatEndsWithinTheFirstSecond) {
  LocalPort closed(/*listen_on_it=*/false);
  Lines lines;
  {
    WaitReporter reporter(kTask, closed.address(), lines.Collector());
    reporter.Answered(
        reporter.Begin("remote call of 'add'", absl::Seconds(30)));
    reporter.GaveUp(reporter.Begin("remote call of 'add'", absl::Seconds(30)),
                    "cancelled");
    absl::SleepFor(absl::Milliseconds(1500));
  }
  EXPECT_TRUE(lines.Get().empty());
}

}  // namespace
}  // namespace sluice::dist::internal
