// CompileMlirToSbf: text in, bytes or a status naming the first error out,
// with the diagnostics printed as MLIR tools print them.
#include "sluice/compiler/compile_source.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/DialectRegistry.h"
#include "sluice/bef/sbf_reader.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

TEST(CompileSourceTest, CompilesText) {
  mlir::DialectRegistry registry;
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  CompileSourceOptions options;
  options.diagnostics = &os;
  absl::StatusOr<std::vector<uint8_t>> bytes = CompileMlirToSbf(
      R"mlir(
        func.func @main() -> i32 {
          %one = "tfrt.constant.i32"() {value = 1 : i32} : () -> i32
          "tfrt.return"(%one) : (i32) -> ()
        }
      )mlir",
      "prog.mlir", registry, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(os.str(), "");
  absl::StatusOr<bef::SbfProgram> program = bef::ReadSbf(*bytes);
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->functions.size(), 1u);
  EXPECT_EQ(program->functions[0].name, "main");
  EXPECT_TRUE(program->has_register_types);
  const bef::SbfKernel& kernel = program->functions[0].kernels.at(0);
  EXPECT_EQ(program->locations[kernel.location_index].file, "prog.mlir");
  EXPECT_EQ(program->locations[kernel.location_index].line, 3u);

  options.include_optional_sections = false;
  bytes = CompileMlirToSbf("func.func @f() { \"tfrt.return\"() : () -> () }",
                           "f.mlir", registry, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  program = bef::ReadSbf(*bytes);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_FALSE(program->has_register_types);
}

TEST(CompileSourceTest, ParseErrors) {
  mlir::DialectRegistry registry;
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  CompileSourceOptions options;
  options.diagnostics = &os;
  absl::StatusOr<std::vector<uint8_t>> bytes = CompileMlirToSbf(
      "func.func @main() {\n  %x = \"t.op\"(%nope) : (i32) -> i32\n}\n",
      "bad.mlir", registry, options);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(bytes.status().message()),
            "bad.mlir:2:15: error: use of undeclared SSA value name");
  // Printed with the source line, as MLIR tools print diagnostics.
  EXPECT_THAT(os.str(),
              HasSubstr("bad.mlir:2:15: error: use of undeclared SSA value "
                        "name\n  %x = \"t.op\"(%nope) : (i32) -> i32\n"));
}

TEST(CompileSourceTest, CompileErrors) {
  mlir::DialectRegistry registry;
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  CompileSourceOptions options;
  options.diagnostics = &os;
  absl::StatusOr<std::vector<uint8_t>> bytes = CompileMlirToSbf(
      "func.func private @ext(i32) -> i32\n", "ext.mlir", registry, options);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(std::string(bytes.status().message()),
            "ext.mlir:1:1: error: external functions are not allowed");
  EXPECT_EQ(os.str(),
            "ext.mlir:1:1: error: external functions are not allowed\n"
            "func.func private @ext(i32) -> i32\n"
            "^\n");
}

TEST(CompileSourceTest, UnregisteredDialectsCanBeRefused) {
  mlir::DialectRegistry registry;
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  CompileSourceOptions options;
  options.diagnostics = &os;
  options.allow_unregistered_dialects = false;
  absl::StatusOr<std::vector<uint8_t>> bytes = CompileMlirToSbf(
      "func.func @f() {\n  \"vt.op\"() : () -> ()\n  \"tfrt.return\"() : () "
      "-> ()\n}\n",
      "strict.mlir", registry, options);
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("strict.mlir:2:10: error: "));
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("unregistered dialect"));
}

}  // namespace
}  // namespace sluice
