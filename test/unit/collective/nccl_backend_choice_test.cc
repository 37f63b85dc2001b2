// Which backend a process's groups use, by device and by the variable; the
// NCCL_HOSTID of local ranks that share a GPU.
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/collective/collective_backend.h"
#include "sluice/collective/nccl_group.h"

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

TEST(NcclHostIdTest, RanksThatShareAGpuClaimAHostEach) {
  EXPECT_EQ(NcclHostIdForLocalRank(2, 2, nullptr, "node7"),
            "node7/sluice-local-rank-2");
  EXPECT_EQ(NcclHostIdForLocalRank(3, 2, nullptr, "node7"),
            "node7/sluice-local-rank-3");
  EXPECT_EQ(NcclHostIdForLocalRank(1, 1, nullptr, "node7"),
            "node7/sluice-local-rank-1");
}

TEST(NcclHostIdTest, RanksWithAGpuOfTheirOwnKeepNcclsIdentity) {
  EXPECT_EQ(NcclHostIdForLocalRank(0, 1, nullptr, "node7"), std::nullopt);
  EXPECT_EQ(NcclHostIdForLocalRank(0, 8, nullptr, "node7"), std::nullopt);
  EXPECT_EQ(NcclHostIdForLocalRank(7, 8, nullptr, "node7"), std::nullopt);
}

TEST(NcclHostIdTest, NothingWithoutADeviceOrWhenTheUserSetIt) {
  EXPECT_EQ(NcclHostIdForLocalRank(3, 0, nullptr, "node7"), std::nullopt);
  EXPECT_EQ(NcclHostIdForLocalRank(3, 2, "mine", "node7"), std::nullopt);
  EXPECT_EQ(NcclHostIdForLocalRank(3, 2, "", "node7"), std::nullopt);
}

// A local rank beyond any machine's GPUs: set on a machine with a device,
// left alone (and device 0) on one without.
TEST(NcclHostIdTest, CudaDeviceForLocalRankSetsItOnlyWithADevice) {
  unsetenv("NCCL_HOSTID");
  setenv("SLUICE_LOCAL_RANK", "1000", /*overwrite=*/1);
  const int device = CudaDeviceForLocalRank();
  const char* host_id = std::getenv("NCCL_HOSTID");
  if (!HasCudaDevice()) {
    EXPECT_EQ(device, 0);
    EXPECT_EQ(host_id, nullptr);
  } else {
    char hostname[256] = {};
    ASSERT_EQ(gethostname(hostname, sizeof(hostname) - 1), 0);
    EXPECT_GE(device, 0);
    EXPECT_LT(device, 1000);
    ASSERT_NE(host_id, nullptr);
    EXPECT_EQ(std::string(host_id),
              std::string(hostname) + "/sluice-local-rank-1000");
    // A second call keeps the value it set.
    EXPECT_EQ(CudaDeviceForLocalRank(), device);
    EXPECT_EQ(std::string(std::getenv("NCCL_HOSTID")), std::string(host_id));
  }
  unsetenv("NCCL_HOSTID");
  unsetenv("SLUICE_LOCAL_RANK");
}

}  // namespace
}  // namespace sluice::ccl
