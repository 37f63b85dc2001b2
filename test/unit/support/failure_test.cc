#include "sluice/support/failure.h"

#include <string>
#include <vector>

#include "absl/strings/cord.h"
#include "gtest/gtest.h"
#include "sluice/support/error_util.h"

namespace sluice {
namespace {

// The payloads `status` carries, by type URL.
std::vector<std::string> PayloadUrls(const absl::Status& status) {
  std::vector<std::string> urls;
  status.ForEachPayload([&](absl::string_view url, const absl::Cord&) {
    urls.push_back(std::string(url));
  });
  return urls;
}

ErrorContext FullContext() {
  ErrorContext context;
  context.kernel = "tfrt_test.fail";
  context.location = "prog.mlir:3:8";
  context.task = "/job:worker/task:1";
  context.incarnation = 0xfedcba9876543210u;
  context.generation = 7;
  context.failure_class = FailureClass::kStale;
  return context;
}

TEST(FailureTest, EveryFieldRoundTrips) {
  absl::Status status =
      AddErrorContext(absl::InternalError("boom"), FullContext());
  ErrorContext context = GetErrorContext(status);
  EXPECT_EQ(context.kernel, "tfrt_test.fail");
  EXPECT_EQ(context.location, "prog.mlir:3:8");
  EXPECT_EQ(context.task, "/job:worker/task:1");
  EXPECT_EQ(context.incarnation, 0xfedcba9876543210u);
  EXPECT_EQ(context.generation, 7);
  EXPECT_EQ(context.failure_class, FailureClass::kStale);
  EXPECT_EQ(status.message(), "boom");
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
}

TEST(FailureTest, AStatusWithoutContextHasEmptyFields) {
  ErrorContext context = GetErrorContext(absl::InternalError("plain"));
  EXPECT_EQ(context.kernel, "");
  EXPECT_EQ(context.task, "");
  EXPECT_EQ(context.incarnation, 0u);
  EXPECT_EQ(context.generation, kNoGeneration);
  EXPECT_FALSE(context.failure_class.has_value());
}

TEST(FailureTest, LongFieldsRoundTrip) {
  ErrorContext long_location;
  long_location.location = std::string(70000, 'x') + ":1:2";
  absl::Status status =
      AddErrorContext(absl::InternalError("boom"), long_location);
  EXPECT_EQ(GetErrorContext(status).location, long_location.location);
}

TEST(FailureTest, TheFirstProducerWinsFieldByField) {
  ErrorContext kernel_only;
  kernel_only.kernel = "tfrt_test.fail";
  kernel_only.generation = 0;
  absl::Status status =
      AddErrorContext(absl::InternalError("boom"), kernel_only);
  status = AddErrorContext(status, FullContext());
  ErrorContext context = GetErrorContext(status);
  EXPECT_EQ(context.kernel, "tfrt_test.fail");
  EXPECT_EQ(context.generation, 0);  // 0 is a generation, kept
  // Fields the first producer left empty come from the second.
  EXPECT_EQ(context.location, "prog.mlir:3:8");
  EXPECT_EQ(context.task, "/job:worker/task:1");
  EXPECT_EQ(context.incarnation, 0xfedcba9876543210u);
  EXPECT_EQ(context.failure_class, FailureClass::kStale);
}

TEST(FailureTest, EverythingTravelsAsOnePayload) {
  absl::Status status =
      AddErrorContext(absl::InternalError("boom"), FullContext());
  status = MarkRetryable(status, "/job:worker/task:0", 3);
  status = MarkStale(status, 4);
  status = MarkFailureClass(status, FailureClass::kFatal);
  EXPECT_EQ(PayloadUrls(status).size(), 1u);
}

TEST(FailureTest, OkStatusesStayOkAndBare) {
  for (absl::Status status :
       {AddErrorContext(absl::OkStatus(), FullContext()),
        MarkRetryable(absl::OkStatus(), "/job:worker/task:0"),
        MarkStale(absl::OkStatus(), 3),
        MarkFailureClass(absl::OkStatus(), FailureClass::kCancelled)}) {
    EXPECT_TRUE(status.ok());
    EXPECT_TRUE(PayloadUrls(status).empty());
  }
  EXPECT_EQ(Classify(absl::OkStatus()), FailureClass::kFatal);
}

TEST(FailureTest, ATruncatedPayloadKeepsTheFieldsBeforeTheCut) {
  ErrorContext two;
  two.kernel = "k";
  two.task = "/job:worker/task:0";
  absl::Status status = AddErrorContext(absl::InternalError("boom"), two);
  std::string url = PayloadUrls(status).at(0);
  std::string bytes(*status.GetPayload(url));
  // Cut into the second field, then into the first one's length.
  for (size_t keep : {bytes.size() - 1, size_t{3}}) {
    absl::Status damaged = absl::InternalError("boom");
    damaged.SetPayload(url, absl::Cord(bytes.substr(0, keep)));
    ErrorContext context = GetErrorContext(damaged);
    EXPECT_EQ(context.kernel, keep > 3 ? "k" : "") << keep;
    EXPECT_EQ(context.task, "") << keep;
  }
}

TEST(FailureTest, ClassNamesRoundTrip) {
  for (FailureClass failure_class :
       {FailureClass::kRetryable, FailureClass::kFatal,
        FailureClass::kCancelled, FailureClass::kStale}) {
    EXPECT_EQ(ParseFailureClass(FailureClassName(failure_class)),
              failure_class);
  }
  EXPECT_EQ(FailureClassName(FailureClass::kRetryable), "retryable");
  EXPECT_FALSE(ParseFailureClass("transient").has_value());
  EXPECT_FALSE(ParseFailureClass("").has_value());
}

// The table of ClassOfCode, through Classify, for a status made here and
// one that names the task it came from.
struct CodeCase {
  absl::StatusCode code;
  FailureClass local;
  FailureClass from_peer;
};

TEST(FailureTest, ClassifyDerivesTheClassFromTheCode) {
  const CodeCase cases[] = {
      {absl::StatusCode::kCancelled, FailureClass::kCancelled,
       FailureClass::kCancelled},
      {absl::StatusCode::kUnavailable, FailureClass::kRetryable,
       FailureClass::kRetryable},
      {absl::StatusCode::kDeadlineExceeded, FailureClass::kCancelled,
       FailureClass::kRetryable},
      {absl::StatusCode::kAborted, FailureClass::kFatal, FailureClass::kFatal},
      {absl::StatusCode::kResourceExhausted, FailureClass::kFatal,
       FailureClass::kFatal},
      {absl::StatusCode::kInvalidArgument, FailureClass::kFatal,
       FailureClass::kFatal},
      {absl::StatusCode::kInternal, FailureClass::kFatal, FailureClass::kFatal},
      {absl::StatusCode::kUnknown, FailureClass::kFatal, FailureClass::kFatal},
      {absl::StatusCode::kFailedPrecondition, FailureClass::kFatal,
       FailureClass::kFatal},
  };
  ErrorContext peer;
  peer.task = "/job:worker/task:0";
  for (const CodeCase& c : cases) {
    absl::Status local(c.code, "failed");
    EXPECT_EQ(Classify(local), c.local) << local;
    EXPECT_EQ(Classify(AddErrorContext(local, peer)), c.from_peer) << local;
  }
}

TEST(FailureTest, AbortedWithAGenerationIsStale) {
  ErrorContext old;
  old.generation = 2;
  EXPECT_EQ(Classify(AddErrorContext(absl::AbortedError("old"), old)),
            FailureClass::kStale);
  // Only ABORTED: another code with a generation keeps its own class.
  EXPECT_EQ(Classify(AddErrorContext(absl::InternalError("bug"), old)),
            FailureClass::kFatal);
}

TEST(FailureTest, AnExplicitClassWinsOverTheCode) {
  ErrorContext retryable;
  retryable.failure_class = FailureClass::kRetryable;
  EXPECT_EQ(Classify(AddErrorContext(absl::InternalError("x"), retryable)),
            FailureClass::kRetryable);
  EXPECT_EQ(Classify(MarkFailureClass(absl::UnavailableError("x"),
                                      FailureClass::kFatal)),
            FailureClass::kFatal);
}

TEST(FailureTest, MarkingReplacesTheClassAndKeepsTheOrigin) {
  absl::Status status =
      AddErrorContext(absl::InternalError("boom"), FullContext());
  status = MarkRetryable(status, "/job:ps/task:0", 5);
  ErrorContext context = GetErrorContext(status);
  EXPECT_EQ(context.failure_class, FailureClass::kRetryable);
  EXPECT_EQ(Classify(status), FailureClass::kRetryable);
  EXPECT_EQ(context.task, "/job:worker/task:1");
  EXPECT_EQ(context.incarnation, 0xfedcba9876543210u);
  EXPECT_EQ(context.kernel, "tfrt_test.fail");

  status = MarkStale(status, 1);
  EXPECT_EQ(Classify(status), FailureClass::kStale);
  EXPECT_EQ(GetErrorContext(status).generation, 7);
}

TEST(FailureTest, MarkRetryableRecordsTheTaskWhenNoneIs) {
  absl::Status status =
      MarkRetryable(absl::UnavailableError("gone"), "/job:worker/task:2", 9);
  ErrorContext context = GetErrorContext(status);
  EXPECT_EQ(context.task, "/job:worker/task:2");
  EXPECT_EQ(context.incarnation, 9u);
  EXPECT_EQ(context.failure_class, FailureClass::kRetryable);
}

TEST(FailureTest, MarkStaleRecordsTheGeneration) {
  absl::Status status = MarkStale(absl::InternalError("late value"), 3);
  EXPECT_EQ(Classify(status), FailureClass::kStale);
  EXPECT_EQ(GetErrorContext(status).generation, 3);
}

TEST(FailureTest, DescribeErrorShowsOnlyKernelLocationAndTask) {
  absl::Status status =
      AddErrorContext(absl::InternalError("boom"), FullContext());
  EXPECT_EQ(DescribeError(status),
            "boom (kernel tfrt_test.fail at prog.mlir:3:8 on task "
            "/job:worker/task:1)");
}

}  // namespace
}  // namespace sluice
