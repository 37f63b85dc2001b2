#include "lib/distributed/wait_reporter.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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
    if (listen_on_it) EXPECT_EQ(listen(fd_, 4), 0);
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

TEST(WaitReporterTest, ReportsTheTaskTheAddressAndWhyUntilTheWaitEnds) {
  LocalPort closed(/*listen_on_it=*/false);
  Lines lines;
  WaitReporter reporter(lines.Collector());
  const uint64_t id =
      reporter.Begin("/job:worker/task:1", closed.address(), absl::Seconds(30));
  ASSERT_TRUE(lines.WaitFor(2));
  reporter.End(id);
  const size_t reported = lines.Get().size();
  for (const std::string& line : lines.Get()) {
    EXPECT_THAT(line,
                MatchesRegex("waiting for task /job:worker/task:1 at " +
                             closed.address() +
                             ": connection refused \\([0-9]+s of 30s\\)"));
  }
  // Nothing after End, even once a report would be due again.
  absl::SleepFor(absl::Milliseconds(1500));
  EXPECT_EQ(lines.Get().size(), reported);
}

TEST(WaitReporterTest, TellsATaskThatIsUpButSilent) {
  LocalPort listening(/*listen_on_it=*/true);
  Lines lines;
  WaitReporter reporter(lines.Collector());
  const uint64_t id = reporter.Begin("/job:worker/task:2", listening.address(),
                                     absl::Milliseconds(2500));
  ASSERT_TRUE(lines.WaitFor(1));
  reporter.End(id);
  EXPECT_THAT(lines.Get()[0],
              MatchesRegex("waiting for task /job:worker/task:2 at " +
                           listening.address() +
                           ": connected, no answer yet \\([0-9]+s of 2.5s\\)"));
}

TEST(WaitReporterTest, SaysNothingOfAWaitThatEndsWithinTheFirstSecond) {
  LocalPort closed(/*listen_on_it=*/false);
  Lines lines;
  {
    WaitReporter reporter(lines.Collector());
    reporter.End(reporter.Begin("/job:worker/task:0", closed.address(),
                                absl::Seconds(30)));
    absl::SleepFor(absl::Milliseconds(1500));
  }
  EXPECT_TRUE(lines.Get().empty());
}

}  // namespace
}  // namespace sluice::dist::internal
