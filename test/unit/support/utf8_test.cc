#include "sluice/support/utf8.h"

#include <optional>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace sluice {
namespace {

TEST(Utf8Test, WellFormedTextPasses) {
  for (std::string_view text :
       {std::string_view(""), std::string_view("main"),
        std::string_view("caf\xC3\xA9"),       // U+00E9
        std::string_view("\xE2\x82\xAC"),      // U+20AC
        std::string_view("\xED\x9F\xBF"),      // U+D7FF, below surrogates
        std::string_view("\xF0\x90\x80\x80"),  // U+10000
        std::string_view("\xF4\x8F\xBF\xBF"),  // U+10FFFF
        std::string_view("a\0b", 3)}) {        // NUL is UTF-8
    EXPECT_EQ(FindInvalidUtf8(text), std::nullopt) << text;
    EXPECT_TRUE(CheckUtf8("name", text).ok());
  }
}

TEST(Utf8Test, IllFormedTextNamesItsFirstBadSequence) {
  struct Case {
    std::string_view text;
    size_t offset;
  };
  for (const Case& c : {
           Case{"f\xFF", 1},             // never in UTF-8
           Case{"\x80", 0},              // a continuation alone
           Case{"ab\xC3", 2},            // cut short
           Case{"\xC3(", 0},             // not a continuation
           Case{"\xC0\xAF", 0},          // overlong '/'
           Case{"\xE0\x80\xAF", 0},      // overlong, 3 bytes
           Case{"\xF0\x80\x80\xAF", 0},  // overlong, 4 bytes
           Case{"ok\xED\xA0\x80", 2},    // U+D800, a surrogate
           Case{"\xF4\x90\x80\x80", 0},  // U+110000
           Case{"\xF5\x80\x80\x80", 0},  // lead byte past F4
           Case{"\xE2\x82", 0},          // 3-byte sequence cut short
           Case{"\xE2\x82\xAC\xE2\x28\xA1", 3},
       }) {
    EXPECT_EQ(FindInvalidUtf8(c.text), c.offset) << c.text;
  }
}

TEST(Utf8Test, TheErrorEscapesTheText) {
  absl::Status status = CheckUtf8("function name", "f\xFF");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "function name \"f\\xff\" is not valid UTF-8 (byte 0xff at offset "
            "1)");
}

}  // namespace
}  // namespace sluice
