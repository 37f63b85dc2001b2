// ParseHostPort and CheckPort: the one check of "host:port" addresses and
// port numbers that every server and tool uses.
#include "sluice/support/host_port.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

TEST(ParseHostPortTest, SplitsHostAndPort) {
  struct Case {
    const char* address;
    const char* host;
    int port;
  } cases[] = {
      {"127.0.0.1:0", "127.0.0.1", 0},
      {"localhost:65535", "localhost", 65535},
      {"[::1]:7001", "[::1]", 7001},
      {"worker-3.example.com:80", "worker-3.example.com", 80},
      {"10.0.0.1:00080", "10.0.0.1", 80},
  };
  for (const Case& c : cases) {
    absl::StatusOr<HostPort> parsed = ParseHostPort(c.address);
    ASSERT_TRUE(parsed.ok()) << c.address << ": " << parsed.status();
    EXPECT_EQ(parsed->host, c.host) << c.address;
    EXPECT_EQ(parsed->port, c.port) << c.address;
  }
}

// Ports past 65535 are refused rather than wrapped (99999 would listen on
// 34463).
TEST(ParseHostPortTest, SaysWhatIsWrong) {
  struct Case {
    const char* address;
    const char* reason;
  } cases[] = {
      {"127.0.0.1:99999", "port 99999 is out of range 0..65535"},
      {"127.0.0.1:65536", "port 65536 is out of range 0..65535"},
      {"127.0.0.1:99999999999999999999",
       "port 99999999999999999999 is out of range 0..65535"},
      {"127.0.0.1:http", "port 'http' is not a number"},
      {"127.0.0.1:-1", "port '-1' is not a number"},
      {"127.0.0.1:+80", "port '+80' is not a number"},
      {"127.0.0.1: 80", "port ' 80' is not a number"},
      {"127.0.0.1", "expected host:port, there is no ':' before a port"},
      {"", "expected host:port, there is no ':' before a port"},
      {":7001", "the host is missing"},
      {"127.0.0.1:", "the port is missing"},
      {"::1:7001", "host '::1' has a ':'; write an IPv6 host in brackets"},
      {"[::1:7001", "host '[::1' opens a '[' it does not close"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<HostPort> parsed = ParseHostPort(c.address);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument)
        << c.address;
    EXPECT_THAT(parsed.status().message(), HasSubstr(c.reason)) << c.address;
  }
}

TEST(CheckPortTest, AcceptsZeroTo65535Only) {
  EXPECT_TRUE(CheckPort(0).ok());
  EXPECT_TRUE(CheckPort(65535).ok());
  EXPECT_EQ(CheckPort(95177).message(), "port 95177 is out of range 0..65535");
  EXPECT_EQ(CheckPort(-1).message(), "port -1 is out of range 0..65535");
  EXPECT_EQ(CheckPort(int64_t{1} << 40).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice
