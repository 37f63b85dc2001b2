// The CompiledModules and Annotations sections: what the writer puts in
// them comes back from the reader, which refuses entries that point
// nowhere, and files without them are as they were.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/bef/checksum.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/bef/sbf_writer.h"

namespace sluice {
namespace bef {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// main() with one kernel and a native function; `annotate` adds modules
// and annotations.
std::vector<uint8_t> Program(bool annotate, bool optional_sections = true) {
  SbfWriter writer;
  const uint32_t i32 = writer.AddType("i32");
  const uint32_t constant = writer.AddKernelName("tfrt.constant.i32");
  const uint32_t loc = writer.AddLocation("prog.mlir", 2, 3, std::nullopt);
  const uint32_t main =
      writer.DeclareFunction("main", FunctionKind::kFunction, {}, {i32});
  writer.DeclareFunction("native", FunctionKind::kNative, {}, {i32});
  BodyDescription body;
  body.num_registers = 1;
  body.result_registers = {0};
  body.kernels.push_back({constant,
                          loc,
                          {},
                          {0},
                          {writer.AddScalar<int32_t>(AttributeType::kI32, 1)},
                          {writer.AddString("value")},
                          {}});
  body.register_types = {i32};
  writer.DefineFunction(main, body);
  if (annotate) {
    writer.AddCompiledModule("kernel", 1, "module @kernel {}");
    writer.SetModuleAnnotations("{tfrt.cost_threshold = 3 : i64}");
    writer.SetFunctionAnnotations(main, "{tfrt.sync}");
    writer.AddKernelAnnotations(main, 0, "{_tfrt_cost = 5 : i64}");
  }
  return writer.Finish(optional_sections);
}

uint32_t Load32(const std::vector<uint8_t>& bytes, uint32_t offset) {
  uint32_t value;
  std::memcpy(&value, bytes.data() + offset, 4);
  return value;
}

void Store32(std::vector<uint8_t>& bytes, uint32_t offset, uint32_t value) {
  std::memcpy(bytes.data() + offset, &value, 4);
  UpdateSbfChecksum(absl::MakeSpan(bytes));
}

// The offset of section `id`'s contents.
uint32_t SectionOffset(const std::vector<uint8_t>& bytes, SectionId id) {
  for (uint32_t i = 0; i < Load32(bytes, 8); ++i) {
    if (Load32(bytes, 16 + 12 * i) == static_cast<uint32_t>(id)) {
      return Load32(bytes, 16 + 12 * i + 4);
    }
  }
  ADD_FAILURE() << "no section " << static_cast<uint32_t>(id);
  return 0;
}

TEST(SbfAnnotationsTest, RoundTrip) {
  const std::vector<uint8_t> bytes = Program(/*annotate=*/true);
  absl::StatusOr<SbfProgram> program = ReadSbf(bytes);
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->compiled_modules.size(), 1u);
  EXPECT_EQ(program->compiled_modules[0].name, "kernel");
  EXPECT_EQ(program->compiled_modules[0].position, 1u);
  EXPECT_EQ(program->compiled_modules[0].text, "module @kernel {}");
  ASSERT_TRUE(program->has_annotations);
  EXPECT_EQ(program->annotations.module_attributes,
            "{tfrt.cost_threshold = 3 : i64}");
  EXPECT_THAT(program->annotations.function_attributes,
              ElementsAre("{tfrt.sync}", ""));
  ASSERT_EQ(program->annotations.kernels.size(), 1u);
  EXPECT_EQ(program->annotations.kernels[0].function, 0u);
  EXPECT_EQ(program->annotations.kernels[0].kernel, 0u);
  EXPECT_EQ(program->annotations.kernels[0].attributes,
            "{_tfrt_cost = 5 : i64}");
}

TEST(SbfAnnotationsTest, ModulesOutliveTheOptionalSections) {
  absl::StatusOr<SbfProgram> program =
      ReadSbf(Program(/*annotate=*/true, /*optional_sections=*/false));
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->compiled_modules.size(), 1u);
  EXPECT_FALSE(program->has_annotations);
  EXPECT_FALSE(program->has_register_types);
}

TEST(SbfAnnotationsTest, FilesWithoutThemAreUnchanged) {
  const std::vector<uint8_t> bytes = Program(/*annotate=*/false);
  EXPECT_EQ(Load32(bytes, 8), 8u);  // the seven sections and RegisterTypes
  absl::StatusOr<SbfProgram> program = ReadSbf(bytes);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_THAT(program->compiled_modules, IsEmpty());
  EXPECT_FALSE(program->has_annotations);
}

TEST(SbfAnnotationsTest, ModulePositionPastTheFunctions) {
  std::vector<uint8_t> bytes = Program(/*annotate=*/true);
  const uint32_t at = SectionOffset(bytes, SectionId::kCompiledModules);
  Store32(bytes, at + 8, 3);  // the first module's position
  absl::StatusOr<SbfProgram> program = ReadSbf(bytes);
  ASSERT_FALSE(program.ok());
  EXPECT_THAT(program.status().message(),
              HasSubstr("CompiledModules at offset " + std::to_string(at + 8) +
                        ": module position 3 is past the 2 functions"));
}

TEST(SbfAnnotationsTest, ModuleTextOutsideStrings) {
  std::vector<uint8_t> bytes = Program(/*annotate=*/true);
  const uint32_t at = SectionOffset(bytes, SectionId::kCompiledModules);
  Store32(bytes, at + 12, 0x7FFFFFF0);  // the first module's text
  absl::StatusOr<SbfProgram> program = ReadSbf(bytes);
  ASSERT_FALSE(program.ok());
  EXPECT_THAT(program.status().message(), HasSubstr("CompiledModules"));
}

TEST(SbfAnnotationsTest, FunctionCountMustMatch) {
  std::vector<uint8_t> bytes = Program(/*annotate=*/true);
  const uint32_t at = SectionOffset(bytes, SectionId::kAnnotations);
  Store32(bytes, at + 4, 5);
  absl::StatusOr<SbfProgram> program = ReadSbf(bytes);
  ASSERT_FALSE(program.ok());
  EXPECT_THAT(program.status().message(),
              HasSubstr("Annotations at offset " + std::to_string(at + 4) +
                        ": lists 5 functions, but Functions has 2"));
}

TEST(SbfAnnotationsTest, KernelEntriesMustNameAKernel) {
  // module, function count, 2 functions, entry count, then the entry.
  const uint32_t entry = 4 * 5;
  for (const auto& [field, value, message] :
       {std::make_tuple(0u, 2u, "no kernel 0 in function 2"),
        std::make_tuple(0u, 1u, "no kernel 0 in function 1"),
        std::make_tuple(4u, 1u, "no kernel 1 in function 0")}) {
    std::vector<uint8_t> bytes = Program(/*annotate=*/true);
    const uint32_t at = SectionOffset(bytes, SectionId::kAnnotations);
    Store32(bytes, at + entry + field, value);
    absl::StatusOr<SbfProgram> program = ReadSbf(bytes);
    ASSERT_FALSE(program.ok()) << message;
    EXPECT_THAT(program.status().message(), HasSubstr(message));
  }
}

}  // namespace
}  // namespace bef
}  // namespace sluice
