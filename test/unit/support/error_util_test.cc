#include "sluice/support/error_util.h"

#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(ErrorUtilTest, MakeStatusFormats) {
  absl::Status s = MakeStatus(absl::StatusCode::kNotFound,
                              "unknown kernel '%s' at %d", "x", 3);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "unknown kernel 'x' at 3");
}

TEST(ErrorUtilTest, StatusCodeNames) {
  EXPECT_EQ(StatusCodeName(absl::StatusCode::kInternal), "INTERNAL");
  EXPECT_EQ(StatusCodeName(absl::StatusCode::kCancelled), "CANCELLED");
  EXPECT_EQ(StatusCodeName(absl::StatusCode::kDeadlineExceeded),
            "DEADLINE_EXCEEDED");
}

TEST(ErrorUtilTest, FirstContextWins) {
  absl::Status s = absl::InternalError("something bad happened");
  s = AddErrorContext(s, {"tfrt_test.fail", "prog.mlir:3:8", ""});
  s = AddErrorContext(s, {"tfrt.add.i32", "prog.mlir:9:1", "/job:w/task:0"});
  ErrorContext c = GetErrorContext(s);
  EXPECT_EQ(c.kernel, "tfrt_test.fail");
  EXPECT_EQ(c.location, "prog.mlir:3:8");
  EXPECT_EQ(c.task, "/job:w/task:0");
  EXPECT_EQ(s.message(), "something bad happened");
  EXPECT_EQ(DescribeError(s),
            "something bad happened (kernel tfrt_test.fail at prog.mlir:3:8 on "
            "task /job:w/task:0)");
}

TEST(ErrorUtilTest, OkStatusGetsNoContext) {
  absl::Status s = AddErrorContext(absl::OkStatus(), {"k", "l", "t"});
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(DescribeError(absl::InternalError("plain")), "plain");
}

}  // namespace
}  // namespace sluice
