// ResolveUnderRoot and DataRoot: the paths a worker's kernels may open.
#include "lib/checkpoint/data_root.h"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::checkpoint {
namespace {

using ::testing::HasSubstr;

class DataRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        absl::StrCat(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR")
                                                : "/tmp",
                     "/data_root_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    char real[PATH_MAX];
    ASSERT_NE(realpath(pattern.c_str(), real), nullptr);
    base_ = real;
    root_ = base_ + "/root";
    outside_ = base_ + "/outside";
    ASSERT_EQ(mkdir(root_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(outside_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir((root_ + "/inside").c_str(), 0755), 0);
  }

  void ExpectRefused(const std::string& path, const std::string& why) {
    SCOPED_TRACE(path);
    absl::StatusOr<std::string> resolved = ResolveUnderRoot(root_, path);
    ASSERT_FALSE(resolved.ok()) << *resolved;
    EXPECT_EQ(resolved.status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(resolved.status().message(),
                HasSubstr(absl::StrCat("path '", path,
                                       "' is outside the data root '", root_,
                                       "'")));
    EXPECT_THAT(resolved.status().message(), HasSubstr(why));
  }

  std::string base_, root_, outside_;
};

TEST_F(DataRootTest, RelativePathsAreTakenFromTheRoot) {
  EXPECT_EQ(*ResolveUnderRoot(root_, "inside"), root_ + "/inside");
  EXPECT_EQ(*ResolveUnderRoot(root_, "./inside//ckpt/"),
            root_ + "/inside/ckpt");
  EXPECT_EQ(*ResolveUnderRoot(root_, "new/deeper"), root_ + "/new/deeper");
  EXPECT_EQ(*ResolveUnderRoot(root_, "."), root_);
}

TEST_F(DataRootTest, AbsolutePathsInsideTheRootAreKept) {
  EXPECT_EQ(*ResolveUnderRoot(root_, root_ + "/inside/ckpt"),
            root_ + "/inside/ckpt");
}

TEST_F(DataRootTest, DotDotIsRefusedEvenWhenItWouldStayInside) {
  ExpectRefused("../outside", "it climbs with '..'");
  ExpectRefused("inside/../../outside", "it climbs with '..'");
  ExpectRefused("inside/..", "it climbs with '..'");
}

TEST_F(DataRootTest, AbsolutePathsElsewhereAreRefused) {
  ExpectRefused(outside_ + "/ckpt", "it is an absolute path elsewhere");
  ExpectRefused("/etc", "it is an absolute path elsewhere");
  // A sibling whose name starts with the root's is not under it.
  ExpectRefused(root_ + "x/ckpt", "it is an absolute path elsewhere");
}

TEST_F(DataRootTest, SymbolicLinksThatLeaveTheRootAreRefused) {
  ASSERT_EQ(symlink(outside_.c_str(), (root_ + "/escape").c_str()), 0);
  ExpectRefused("escape", "'" + root_ + "/escape' resolves to '" + outside_ +
                              "' through a symbolic link");
  // The link is the longest existing prefix of a path that goes on past it.
  ExpectRefused("escape/new/ckpt", "through a symbolic link");
}

TEST_F(DataRootTest, SymbolicLinksThatStayInsideAreFollowed) {
  ASSERT_EQ(symlink((root_ + "/inside").c_str(), (root_ + "/alias").c_str()),
            0);
  EXPECT_EQ(*ResolveUnderRoot(root_, "alias/ckpt"), root_ + "/inside/ckpt");
}

TEST_F(DataRootTest, AnEmptyPathIsInvalid) {
  EXPECT_EQ(ResolveUnderRoot(root_, "").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(DataRootTest, WithoutARootPathsAreUnchanged) {
  DataRoot unset;
  EXPECT_EQ(*unset.Resolve("../anywhere"), "../anywhere");
  EXPECT_FALSE(unset.root().has_value());
}

TEST_F(DataRootTest, ConfineCanonicalizesTheRootAndResolvesUnderIt) {
  ASSERT_EQ(symlink(root_.c_str(), (base_ + "/link_to_root").c_str()), 0);
  DataRoot data_root;
  ASSERT_TRUE(data_root.Confine(base_ + "/link_to_root").ok());
  EXPECT_EQ(data_root.root(), root_);
  EXPECT_EQ(*data_root.Resolve("inside"), root_ + "/inside");
  EXPECT_EQ(data_root.Resolve("../outside").status().code(),
            absl::StatusCode::kPermissionDenied);
}

TEST_F(DataRootTest, ConfineRefusesAMissingRootOrAFile) {
  DataRoot data_root;
  absl::Status missing = data_root.Confine(base_ + "/missing");
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr(base_ + "/missing"));
  const std::string file = base_ + "/file";
  FILE* created = std::fopen(file.c_str(), "w");
  ASSERT_NE(created, nullptr);
  std::fclose(created);
  EXPECT_EQ(data_root.Confine(file).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice::checkpoint
