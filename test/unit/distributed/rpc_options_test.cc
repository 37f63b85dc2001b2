#include "sluice/distributed/rpc_options.h"

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::dist {
namespace {

using ::testing::HasSubstr;

TEST(RpcOptionsTest, ParsesThePolicies) {
  EXPECT_EQ(*ParseFailFastPolicy("true"), FailFastPolicy::kTrue);
  EXPECT_EQ(*ParseFailFastPolicy("1"), FailFastPolicy::kTrue);
  EXPECT_EQ(*ParseFailFastPolicy("false"), FailFastPolicy::kFalse);
  EXPECT_EQ(*ParseFailFastPolicy("0"), FailFastPolicy::kFalse);
  EXPECT_EQ(*ParseFailFastPolicy("use_caller"), FailFastPolicy::kUseCaller);
  absl::StatusOr<FailFastPolicy> bad = ParseFailFastPolicy("maybe");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("'maybe'"));
}

TEST(RpcOptionsTest, ReadsSluiceVariableThenGrpcVariable) {
  ::unsetenv("SLUICE_RPC_FAIL_FAST");
  ::unsetenv("GRPC_FAIL_FAST");
  EXPECT_EQ(*FailFastPolicyFromEnvironment(), FailFastPolicy::kUseCaller);
  ::setenv("GRPC_FAIL_FAST", "false", 1);
  EXPECT_EQ(*FailFastPolicyFromEnvironment(), FailFastPolicy::kFalse);
  ::setenv("SLUICE_RPC_FAIL_FAST", "true", 1);
  EXPECT_EQ(*FailFastPolicyFromEnvironment(), FailFastPolicy::kTrue);
  ::setenv("SLUICE_RPC_FAIL_FAST", "yes", 1);
  absl::StatusOr<FailFastPolicy> bad = FailFastPolicyFromEnvironment();
  EXPECT_THAT(bad.status().message(), HasSubstr("SLUICE_RPC_FAIL_FAST"));
  ::unsetenv("SLUICE_RPC_FAIL_FAST");
  ::unsetenv("GRPC_FAIL_FAST");
}

TEST(RpcOptionsTest, UseCallerWaitsOnlyToStartASession) {
  EXPECT_TRUE(
      WaitsForReady(FailFastPolicy::kUseCaller, RpcKind::kSessionStart));
  EXPECT_FALSE(WaitsForReady(FailFastPolicy::kUseCaller, RpcKind::kExecution));
  EXPECT_FALSE(WaitsForReady(FailFastPolicy::kTrue, RpcKind::kSessionStart));
  EXPECT_FALSE(WaitsForReady(FailFastPolicy::kTrue, RpcKind::kExecution));
  EXPECT_TRUE(WaitsForReady(FailFastPolicy::kFalse, RpcKind::kSessionStart));
  EXPECT_TRUE(WaitsForReady(FailFastPolicy::kFalse, RpcKind::kExecution));
  EXPECT_EQ(FailFastPolicyName(FailFastPolicy::kUseCaller), "use_caller");
}

}  // namespace
}  // namespace sluice::dist
