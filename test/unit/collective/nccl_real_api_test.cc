// The real NcclApi's view of the libnccl loaded at run time. Needs no GPU:
// ncclGetVersion, ncclGetErrorString and the symbol lookups work without
// one, and they are what decides whether ncclCommSplit/ncclCommShrink are
// offered on a machine whose NCCL is older than the nccl.h built against.
#include "lib/collective/nccl_real_api.h"

#include <dlfcn.h>
#include <nccl.h>

#include "gtest/gtest.h"
#include "lib/collective/nccl_api.h"

namespace sluice::ccl {
namespace {

bool Loaded(const char* symbol) {
  return dlsym(RTLD_DEFAULT, symbol) != nullptr;
}

// A build without CUDA links the stand-in, which is no NCCL to check: its
// ncclGetVersion says 0 and its error strings say why there is none.
class NcclRealApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef SLUICE_NO_CUDA
    // Worded as every test that wants a GPU skips, so that CI counts it.
    GTEST_SKIP() << "no CUDA device: " << ncclGetErrorString(ncclInvalidUsage);
#endif
  }
};

TEST_F(NcclRealApiTest, VersionIsTheLoadedLibrarys) {
  int version = 0;
  ASSERT_EQ(ncclGetVersion(&version), ncclSuccess);
  EXPECT_GT(RealNcclApi()->Version(), 0);
  EXPECT_EQ(RealNcclApi()->Version(), version);
}

TEST_F(NcclRealApiTest, CommSplitOnlyWhenTheLibraryHasIt) {
  NcclApi& api = *RealNcclApi();
  const bool expected = NCCL_VERSION_CODE >= kNcclVersionWithSplit &&
                        Loaded("ncclCommSplit") &&
                        api.Version() >= kNcclVersionWithSplit;
  EXPECT_EQ(api.HasCommSplit(), expected) << "libnccl " << api.Version();
}

TEST_F(NcclRealApiTest, CommShrinkOnlyWhenTheLibraryHasIt) {
  NcclApi& api = *RealNcclApi();
  const bool expected = NCCL_VERSION_CODE >= kNcclVersionWithShrink &&
                        Loaded("ncclCommShrink") &&
                        api.Version() >= kNcclVersionWithShrink;
  EXPECT_EQ(api.HasCommShrink(), expected) << "libnccl " << api.Version();
}

TEST_F(NcclRealApiTest, HasAnswersTheSameEveryTime) {
  NcclApi& api = *RealNcclApi();
  const bool split = api.HasCommSplit();
  const bool shrink = api.HasCommShrink();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(api.HasCommSplit(), split);
    EXPECT_EQ(api.HasCommShrink(), shrink);
  }
}

TEST_F(NcclRealApiTest, ErrorStringsAreNcclsOwn) {
  EXPECT_FALSE(RealNcclApi()->GetErrorString(ncclInvalidUsage).empty());
  EXPECT_FALSE(RealNcclApi()->GetErrorString(ncclSuccess).empty());
}

}  // namespace
}  // namespace sluice::ccl
