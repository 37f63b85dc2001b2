#include "sluice/support/llvm_error.h"

#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(LlvmErrorTest, RoundTripKeepsCode) {
  absl::Status original = absl::UnavailableError("peer is gone");
  absl::Status back = StatusFromLlvmError(MakeLlvmError(original));
  EXPECT_EQ(back, original);
  EXPECT_TRUE(StatusFromLlvmError(MakeLlvmError(absl::OkStatus())).ok());
}

TEST(LlvmErrorTest, PlainLlvmErrorIsInternal) {
  absl::Status s = StatusFromLlvmError(
      llvm::createStringError(llvm::inconvertibleErrorCode(), "bad input"));
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "bad input");
}

}  // namespace
}  // namespace sluice
