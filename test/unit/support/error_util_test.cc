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

TEST(ErrorUtilTest, ADerivedErrorKeepsTheRootOfItsChain) {
  const absl::Status root = absl::UnavailableError("task 1 is down");
  EXPECT_EQ(RootCause(root), "task 1 is down");
  const absl::Status wrapped = WithMessagePrefix(root, "cannot register 'f': ");
  EXPECT_EQ(wrapped.message(), "cannot register 'f': task 1 is down");
  EXPECT_EQ(RootCause(wrapped), "task 1 is down");
  // Wrapped again, it still names the first error, not the one between.
  const absl::Status twice = WithMessagePrefix(wrapped, "step 3: ");
  EXPECT_EQ(RootCause(twice), "task 1 is down");
  // An error recorded as derived keeps its own message and code.
  const absl::Status cancelled =
      DerivedFrom(absl::CancelledError("closure 'g' was cancelled"), twice);
  EXPECT_EQ(cancelled.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(cancelled.message(), "closure 'g' was cancelled");
  EXPECT_EQ(RootCause(cancelled), "task 1 is down");
  // The first cause recorded stays.
  EXPECT_EQ(RootCause(DerivedFrom(cancelled, absl::InternalError("other"))),
            "task 1 is down");
  EXPECT_TRUE(DerivedFrom(absl::OkStatus(), root).ok());
  EXPECT_EQ(RootCause(DerivedFrom(absl::InternalError("x"), absl::OkStatus())),
            "x");
}

TEST(ErrorUtilTest, ASuffixSaysMoreOfTheSameError) {
  absl::Status s = AddErrorContext(absl::InternalError("bad data"),
                                   {"tfrt_test.fail", "prog.mlir:3:8", ""});
  const absl::Status more = WithMessageSuffix(s, " (it explains 3)");
  EXPECT_EQ(more.message(), "bad data (it explains 3)");
  EXPECT_EQ(more.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(GetErrorContext(more).location, "prog.mlir:3:8");
  EXPECT_EQ(RootCause(more), "bad data (it explains 3)");
}

}  // namespace
}  // namespace sluice
