#include "sluice/distributed/cluster_spec.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::dist {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(ClusterSpecTest, ParsesJobsAndNamesTasks) {
  auto spec = ClusterSpec::FromJson(
      R"({"worker": ["127.0.0.1:7001", "127.0.0.1:7002"], "ps": ["h:1"]})");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_THAT(spec->TaskNames(),
              ElementsAre("/job:ps/task:0", "/job:worker/task:0",
                          "/job:worker/task:1"));
  EXPECT_EQ(*spec->AddressOf("/job:worker/task:1"), "127.0.0.1:7002");
  // TensorFlow's longer form names the same task.
  EXPECT_EQ(*spec->AddressOf("/job:worker/replica:0/task:0"), "127.0.0.1:7001");
}

TEST(ClusterSpecTest, AcceptsAWholeTfConfig) {
  auto spec = ClusterSpec::FromJson(
      R"({"cluster": {"chief": ["a:1"]}, "task": {"type": "chief", "index": 0}})");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(*spec->AddressOf("/job:chief/task:0"), "a:1");
}

TEST(ClusterSpecTest, UnknownTaskNamesTheTasksThereAre) {
  auto spec = ClusterSpec::FromJson(R"({"worker": ["a:1"]})");
  ASSERT_TRUE(spec.ok());
  absl::StatusOr<std::string> address = spec->AddressOf("/job:worker/task:3");
  EXPECT_EQ(address.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(address.status().message(), HasSubstr("/job:worker/task:3"));
  EXPECT_THAT(address.status().message(), HasSubstr("/job:worker/task:0"));
}

TEST(ClusterSpecTest, RejectsMalformedSpecsWithTheReason) {
  struct Case {
    const char* json;
    const char* reason;
  } cases[] = {
      {"{", "invalid cluster spec"},
      {"[1]", "JSON object"},
      {R"({"worker": "a:1"})", "list of addresses"},
      {R"({"worker": [7]})", "address 0 of job 'worker'"},
      {R"({"worker": ["nohostport"]})", "host:port"},
      {R"({"a/b": ["h:1"]})", "bad job name"},
      {"{}", "no jobs"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(c.json);
    ASSERT_FALSE(spec.ok()) << c.json;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(spec.status().message(), HasSubstr(c.reason)) << c.json;
  }
}

TEST(ClusterSpecTest, SaysWhereTheJsonIsBroken) {
  absl::StatusOr<ClusterSpec> spec =
      ClusterSpec::FromJson("{\"w\": [\"h:1\",]}");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(spec.status().message(),
              HasSubstr("invalid cluster spec: parse error at line 1, column"));
  EXPECT_THAT(spec.status().message(), Not(HasSubstr("json.exception")));
}

TEST(ClusterSpecTest, RefusesDeepNestingBeforeParsing) {
  absl::StatusOr<ClusterSpec> spec =
      ClusterSpec::FromJson(std::string(100000, '['));
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(),
            "invalid cluster spec: JSON nested deeper than 32 levels");
  // Within the limit, nesting is only a wrong shape.
  spec = ClusterSpec::FromJson(absl::StrCat(
      "{\"w\": ", std::string(31, '['), "\"h:1\"", std::string(31, ']'), "}"));
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("address 0 of job 'w'"));
}

TEST(ClusterSpecTest, ReadsTheFlagThenTheEnvironmentThenAFile) {
  ::unsetenv("SLUICE_CLUSTER");
  EXPECT_EQ(ClusterSpec::FromFlagOrEnvironment("").status().code(),
            absl::StatusCode::kFailedPrecondition);

  ::setenv("SLUICE_CLUSTER", R"({"env": ["e:1"]})", 1);
  EXPECT_EQ(
      *ClusterSpec::FromFlagOrEnvironment("")->AddressOf("/job:env/task:0"),
      "e:1");
  // The flag wins over the environment.
  EXPECT_EQ(*ClusterSpec::FromFlagOrEnvironment(R"({"flag": ["f:1"]})")
                 ->AddressOf("/job:flag/task:0"),
            "f:1");

  const std::string path =
      std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR")
                                             : "/tmp") +
      "/cluster.json";
  std::ofstream(path) << R"({"file": ["g:1"]})";
  EXPECT_EQ(*ClusterSpec::FromFlagOrEnvironment("@" + path)
                 ->AddressOf("/job:file/task:0"),
            "g:1");
  EXPECT_EQ(
      ClusterSpec::FromFlagOrEnvironment("@/no/such/file").status().code(),
      absl::StatusCode::kNotFound);

  ::setenv("SLUICE_CLUSTER", "not json", 1);
  absl::StatusOr<ClusterSpec> bad = ClusterSpec::FromFlagOrEnvironment("");
  EXPECT_THAT(bad.status().message(), HasSubstr("SLUICE_CLUSTER: "));
  ::unsetenv("SLUICE_CLUSTER");
}

TEST(TaskNameTest, ParsesBothFormsAndRejectsOthers) {
  EXPECT_EQ(TaskName("worker", 2), "/job:worker/task:2");
  auto parsed = ParseTaskName("/job:worker/replica:0/task:2");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->first, "worker");
  EXPECT_EQ(parsed->second, 2);
  for (const char* bad : {"", "worker", "/job:/task:0", "/job:w/task:",
                          "/job:w/task:-1", "/job:w/task:x", "/job:w"}) {
    EXPECT_EQ(ParseTaskName(bad).status().code(),
              absl::StatusCode::kInvalidArgument)
        << bad;
  }
}

TEST(ValidateAddressTest, AcceptsHostsAndPortsInRange) {
  for (const char* good :
       {"127.0.0.1:0", "127.0.0.1:7001", "localhost:65535", "[::1]:7001",
        "worker-3.example.com:80", "10.0.0.1:00080"}) {
    EXPECT_TRUE(ValidateAddress(good).ok())
        << good << ": " << ValidateAddress(good);
  }
}

TEST(ValidateAddressTest, SaysWhatIsWrong) {
  struct Case {
    const char* address;
    const char* reason;
  } cases[] = {
      {"127.0.0.1:65536", "port 65536 is out of range 0..65535"},
      {"127.0.0.1:99999999999999999999",
       "port 99999999999999999999 is out of range 0..65535"},
      {"127.0.0.1:http", "port 'http' is not a number"},
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
    absl::Status status = ValidateAddress(c.address);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.address;
    EXPECT_THAT(status.message(), HasSubstr(c.reason)) << c.address;
  }
}

TEST(ClusterSpecTest, ABadTaskAddressNamesTheTask) {
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(
      R"({"ps": ["10.0.0.9:7000"], "worker": ["h:1", "h:2", "h:65537"]})");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(spec.status().message(),
            "invalid cluster spec: address 'h:65537' of task "
            "/job:worker/task:2: port 65537 is out of range 0..65535");
}

}  // namespace
}  // namespace sluice::dist
