// Which backend a process's groups use, by device and by the variable.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/collective/collective_backend.h"

namespace sluice::ccl {
namespace {

using ::testing::HasSubstr;

TEST(CollectiveBackendTest, AutoFollowsTheDevice) {
  EXPECT_EQ(*ChooseCollectiveBackend("", true), CollectiveBackend::kNccl);
  EXPECT_EQ(*ChooseCollectiveBackend("auto", true), CollectiveBackend::kNccl);
  EXPECT_EQ(*ChooseCollectiveBackend("", false), CollectiveBackend::kGloo);
  EXPECT_EQ(*ChooseCollectiveBackend("auto", false), CollectiveBackend::kGloo);
}

TEST(CollectiveBackendTest, ANamedBackendWins) {
  EXPECT_EQ(*ChooseCollectiveBackend("gloo", true), CollectiveBackend::kGloo);
  EXPECT_EQ(*ChooseCollectiveBackend("nccl", true), CollectiveBackend::kNccl);
  absl::StatusOr<CollectiveBackend> forced =
      ChooseCollectiveBackend("nccl", false);
  EXPECT_EQ(forced.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(forced.status().message(), HasSubstr("sees no CUDA device"));
  absl::StatusOr<CollectiveBackend> typo = ChooseCollectiveBackend("ncl", true);
  EXPECT_EQ(typo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(typo.status().message(),
              HasSubstr("SLUICE_COLLECTIVE_BACKEND is 'ncl'; it takes nccl, "
                        "gloo or auto"));
  EXPECT_EQ(CollectiveBackendName(CollectiveBackend::kNccl), "nccl");
  EXPECT_EQ(CollectiveBackendName(CollectiveBackend::kGloo), "gloo");
}

}  // namespace
}  // namespace sluice::ccl
