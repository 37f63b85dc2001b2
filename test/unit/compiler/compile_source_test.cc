// CompileMlirToSbf: text in, bytes or a status naming the first error out,
// with the diagnostics printed as MLIR tools print them.
#include "sluice/compiler/compile_source.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/DialectRegistry.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/compiler/source_nesting.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

// Compiles with an empty dialect registry (every op is unregistered) and
// collects the diagnostics as a tool would print them.
class CompileSourceTest : public ::testing::Test {
 protected:
  CompileSourceTest() { options_.diagnostics = &diagnostics_; }

  absl::StatusOr<std::vector<uint8_t>> Compile(std::string_view source,
                                               std::string_view file) {
    return CompileMlirToSbf(source, file, registry_, options_);
  }

  mlir::DialectRegistry registry_;
  std::string diagnostic_text_;
  llvm::raw_string_ostream diagnostics_{diagnostic_text_};
  CompileSourceOptions options_;
};

TEST_F(CompileSourceTest, CompilesText) {
  absl::StatusOr<std::vector<uint8_t>> bytes = Compile(
      R"mlir(
        func.func @main() -> i32 {
          %one = "tfrt.constant.i32"() {value = 1 : i32} : () -> i32
          "tfrt.return"(%one) : (i32) -> ()
        }
      )mlir",
      "prog.mlir");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(diagnostics_.str(), "");
  absl::StatusOr<bef::SbfProgram> program = bef::ReadSbf(*bytes);
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->functions.size(), 1u);
  EXPECT_EQ(program->functions[0].name, "main");
  EXPECT_TRUE(program->has_register_types);
  const bef::SbfKernel& kernel = program->functions[0].kernels.at(0);
  EXPECT_EQ(program->locations[kernel.location_index].file, "prog.mlir");
  EXPECT_EQ(program->locations[kernel.location_index].line, 3u);

  options_.include_optional_sections = false;
  bytes = Compile("func.func @f() { \"tfrt.return\"() : () -> () }", "f.mlir");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  program = bef::ReadSbf(*bytes);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_FALSE(program->has_register_types);
}

TEST_F(CompileSourceTest, ParseErrors) {
  absl::StatusOr<std::vector<uint8_t>> bytes =
      Compile("func.func @main() {\n  %x = \"t.op\"(%nope) : (i32) -> i32\n}\n",
              "bad.mlir");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(bytes.status().message()),
            "bad.mlir:2:15: error: use of undeclared SSA value name");
  // Printed with the source line, as MLIR tools print diagnostics.
  EXPECT_THAT(diagnostics_.str(),
              HasSubstr("bad.mlir:2:15: error: use of undeclared SSA value "
                        "name\n  %x = \"t.op\"(%nope) : (i32) -> i32\n"));
}

TEST_F(CompileSourceTest, CompileErrors) {
  absl::StatusOr<std::vector<uint8_t>> bytes =
      Compile("func.func private @ext(i32) -> i32\n", "ext.mlir");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(std::string(bytes.status().message()),
            "ext.mlir:1:1: error: external functions are not allowed");
  EXPECT_EQ(diagnostics_.str(),
            "ext.mlir:1:1: error: external functions are not allowed\n"
            "func.func private @ext(i32) -> i32\n"
            "^\n");
}

TEST_F(CompileSourceTest, UnregisteredDialectsCanBeRefused) {
  options_.allow_unregistered_dialects = false;
  absl::StatusOr<std::vector<uint8_t>> bytes = Compile(
      "func.func @f() {\n  \"vt.op\"() : () -> ()\n  \"tfrt.return\"() : () "
      "-> ()\n}\n",
      "strict.mlir");
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("strict.mlir:2:10: error: "));
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("unregistered dialect"));
}

// `arrays` arrays nested in an attribute of an op in a function: the
// function's body and the op's attribute dictionary add two levels.
std::string NestedArrayProgram(int arrays) {
  return "func.func @main() {\n  \"t.op\"() {deep = " +
         std::string(arrays, '[') + std::string(arrays, ']') +
         "} : () -> ()\n  \"tfrt.return\"() : () -> ()\n}\n";
}

TEST_F(CompileSourceTest, NestingAtTheLimitCompiles) {
  absl::StatusOr<std::vector<uint8_t>> bytes =
      Compile(NestedArrayProgram(kMaxSourceNesting - 2), "deep.mlir");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(diagnostics_.str(), "");
  EXPECT_TRUE(bef::ReadSbf(*bytes).ok());
}

TEST_F(CompileSourceTest, NestingPastTheLimitIsRefusedBeforeParsing) {
  // The 255th `[` opens level 257: column 19 + 255 of line 2, where
  // `  "t.op"() {deep = ` takes 19 columns.
  absl::StatusOr<std::vector<uint8_t>> bytes =
      Compile(NestedArrayProgram(kMaxSourceNesting - 1), "deep.mlir");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(bytes.status().message()),
            "deep.mlir:2:274: error: nesting deeper than 256 levels; sluice "
            "limits programs to 256 levels of brackets ((), [], {} and <>)");
  EXPECT_THAT(diagnostics_.str(),
              HasSubstr("deep.mlir:2:274: error: nesting deeper "
                        "than 256 levels"));

  // Far past the limit, where MLIR's parser would run out of stack: the
  // same error, at the same bracket.
  bytes = Compile(NestedArrayProgram(100000), "deeper.mlir");
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("deeper.mlir:2:274: error: nesting deeper than 256"));
}

// A compiled program with one byte changed is never read as another
// program: every position, flipped, is refused.
TEST_F(CompileSourceTest, EveryFlippedByteOfACompiledProgramIsRefused) {
  absl::StatusOr<std::vector<uint8_t>> bytes = Compile(
      R"mlir(
        func.func @add(%a: i32, %b: i32) -> i32 {
          %sum = "tfrt.add.i32"(%a, %b) : (i32, i32) -> i32
          "tfrt.return"(%sum) : (i32) -> ()
        }
        func.func @main() -> (i32, !t.string) {
          %one = "tfrt.constant.i32"() {value = 1 : i32} : () -> i32
          %two = "tfrt.call"(%one, %one) {callee = @add}
              : (i32, i32) -> i32
          %s = "t.get_string"() {value = "hello", shape = [1, [2, 3]],
                                 f = 0.5 : f32} : () -> !t.string
          "tfrt.return"(%two, %s) : (i32, !t.string) -> ()
        }
      )mlir",
      "sample.mlir");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ASSERT_TRUE(bef::ReadSbf(*bytes).ok());
  for (size_t at = 0; at < bytes->size(); ++at) {
    std::vector<uint8_t> flipped = *bytes;
    flipped[at] ^= 0x10;
    absl::StatusOr<bef::SbfProgram> program = bef::ReadSbf(flipped);
    ASSERT_FALSE(program.ok()) << "byte " << at << " flipped was accepted";
    EXPECT_EQ(program.status().code(), absl::StatusCode::kInvalidArgument);
    // Past the magic and version, the checksum is what catches it.
    if (at >= 8) {
      EXPECT_THAT(std::string(program.status().message()),
                  HasSubstr("checksum mismatch"))
          << "byte " << at;
    }
  }
}

}  // namespace
}  // namespace sluice
