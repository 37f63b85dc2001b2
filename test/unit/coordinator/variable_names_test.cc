// The rules for variable names, and how a name that breaks them appears in
// a message: escaped, and cut short when long, never as it came.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/coordinator/variables.h"

namespace sluice::dist {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(VariableNamesTest, NamesOfTheDocumentedSetAndLengthAreValid) {
  for (const std::string& name :
       {std::string("w"), std::string("dense_1/kernel.m-2"),
        std::string("ABCXYZ0189"), std::string(kMaxVariableNameBytes, 'x')}) {
    EXPECT_TRUE(CheckVariableName(name).ok()) << name;
  }
}

TEST(VariableNamesTest, EmptyLongAndOddNamesAreRefusedNamingTheRule) {
  absl::Status empty = CheckVariableName("");
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.message(), HasSubstr("the name is empty"));

  absl::Status long_name =
      CheckVariableName(std::string(kMaxVariableNameBytes + 1, 'x'));
  EXPECT_EQ(long_name.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(long_name.message(),
              HasSubstr("(257 bytes) is longer than 256 bytes"));

  for (const char* odd : {"a b", "w:0", "caf\xc3\xa9", "x\n", "t\x01"}) {
    absl::Status refused = CheckVariableName(odd);
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << odd;
    EXPECT_THAT(refused.message(),
                HasSubstr("a variable name is 1 to 256 bytes of "
                          "[A-Za-z0-9._/-]"));
  }
  EXPECT_THAT(CheckVariableName("a b").message(),
              HasSubstr("the name 'a b' has ' ' at byte 1"));
}

TEST(VariableNamesTest, MessagesQuoteAHostileNameEscapedAndCutShort) {
  EXPECT_EQ(QuotedVariableName("w"), "'w'");
  EXPECT_EQ(QuotedVariableName("x\n'y"), "'x\\n\\'y'");
  EXPECT_EQ(QuotedVariableName("t\x01"), "'t\\x01'");
  EXPECT_EQ(QuotedVariableName(std::string("a\0b", 3)).find('\0'),
            std::string::npos);

  const std::string huge(4 << 20, 'z');
  const std::string quoted = QuotedVariableName(huge);
  EXPECT_LT(quoted.size(), 100u);
  EXPECT_THAT(quoted, HasSubstr("...' (4194304 bytes)"));
  absl::Status refused = CheckVariableName(huge);
  EXPECT_LT(refused.message().size(), 300u);
  EXPECT_THAT(std::string(refused.message()),
              Not(HasSubstr(std::string(100, 'z'))));
}

}  // namespace
}  // namespace sluice::dist
