// ReadSbf rejects every kind of broken file with an error naming the
// section at fault, and never reads outside the bytes it was given.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/bef/checksum.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/bef/sbf_writer.h"

namespace sluice {
namespace bef {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Attribute references of the base program, for tests that patch them.
struct BaseAttributes {
  uint32_t i32;
  uint32_t str;
  uint32_t flag;
  uint32_t type;
  uint32_t array;
  uint32_t symbol;
};

constexpr uint32_t kMain = 0;
constexpr uint32_t kNative = 1;
constexpr uint32_t kRegion = 2;

// The program the tests break: main(r0, r1) with three kernels, a native
// callee and a region body, attributes of several kinds.
std::vector<uint8_t> BaseProgram(bool optional_sections = true,
                                 BaseAttributes* attributes = nullptr) {
  SbfWriter writer;
  const uint32_t i32 = writer.AddType("i32");
  writer.AddType("!tfrt.chain");
  const uint32_t add = writer.AddKernelName("tfrt.add.i32");
  const uint32_t call = writer.AddKernelName("tfrt.call");
  const uint32_t loc0 = writer.AddLocation("prog.mlir", 3, 8, "add");
  const uint32_t loc1 = writer.AddLocation("prog.mlir", 4, 8, std::nullopt);
  const uint32_t main = writer.DeclareFunction("main", FunctionKind::kFunction,
                                               {i32, i32}, {i32});
  const uint32_t native =
      writer.DeclareFunction("callee", FunctionKind::kNative, {i32}, {i32});
  const uint32_t region =
      writer.DeclareFunction("", FunctionKind::kRegion, {i32}, {i32});
  BaseAttributes a;
  a.i32 = writer.AddScalar<int32_t>(AttributeType::kI32, 7);
  a.str = writer.AddStringAttribute("a string that spans several words");
  a.flag = writer.AddScalar<uint8_t>(AttributeType::kBool, 1);
  a.type = writer.AddTypeAttribute(i32);
  a.array = writer.AddArrayAttribute({a.i32, a.str});
  a.symbol = writer.AddSymbolAttribute(native);
  if (attributes != nullptr) *attributes = a;

  // main(r0, r1):
  //   k0: r2 = add(r0, r0) {value, arr}
  //   k1: r3 = add(r2, r1) {flag, ty} [region]
  //   k2: r4 = call(r3) {callee} [callee]
  //   return r4
  BodyDescription body;
  body.num_registers = 5;
  body.argument_registers = {0, 1};
  body.result_registers = {4};
  body.kernels.push_back({add,
                          loc0,
                          {0, 0},
                          {2},
                          {a.i32, a.array},
                          {writer.AddString("value"), writer.AddString("arr")},
                          {}});
  body.kernels.push_back({add,
                          loc1,
                          {2, 1},
                          {3},
                          {a.flag, a.type},
                          {writer.AddString("flag"), writer.AddString("ty")},
                          {region}});
  body.kernels.push_back({call,
                          loc0,
                          {3},
                          {4},
                          {a.symbol},
                          {writer.AddString("callee")},
                          {native}});
  writer.DefineFunction(main, body);

  BodyDescription region_body;
  region_body.num_registers = 2;
  region_body.argument_registers = {0};
  region_body.result_registers = {1};
  region_body.kernels.push_back({add, loc0, {0, 0}, {1}, {}, {}, {}});
  writer.DefineFunction(region, region_body);
  // Added last so that it is the last string in Strings.
  writer.AddKernelName("test.last");
  EXPECT_EQ(main, kMain);
  EXPECT_EQ(native, kNative);
  EXPECT_EQ(region, kRegion);
  return writer.Finish(optional_sections);
}

// A file to break, with the offsets of its parts found by walking it as the
// format describes.
class File {
 public:
  explicit File(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  std::vector<uint8_t>& bytes() { return bytes_; }

  uint32_t Get(uint32_t offset) const {
    uint32_t value;
    std::memcpy(&value, &bytes_.at(offset + 3) - 3, 4);
    return value;
  }
  void Set(uint32_t offset, uint32_t value) {
    std::memcpy(&bytes_.at(offset + 3) - 3, &value, 4);
  }

  // The section table entry of `id`.
  uint32_t SectionEntry(SectionId id) const {
    for (uint32_t i = 0; i < Get(8); ++i) {
      if (Get(16 + 12 * i) == static_cast<uint32_t>(id)) return 16 + 12 * i;
    }
    ADD_FAILURE() << "no section " << static_cast<uint32_t>(id);
    return 0;
  }
  uint32_t SectionOffset(SectionId id) const {
    return Get(SectionEntry(id) + 4);
  }
  uint32_t SectionSize(SectionId id) const { return Get(SectionEntry(id) + 8); }

  uint32_t FunctionEntry(uint32_t function) const {
    uint32_t at = SectionOffset(SectionId::kFunctions) + 4;
    for (uint32_t i = 0; i < function; ++i) {
      at += 24 + 4 * (Get(at + 8) + Get(at + 12));
    }
    return at;
  }
  uint32_t BodyStart(uint32_t function) const {
    return SectionOffset(SectionId::kFunctionBodies) +
           Get(FunctionEntry(function) + 16);
  }
  // The users list (its count) of argument `argument`.
  uint32_t ArgumentUsers(uint32_t function, uint32_t argument) const {
    const uint32_t entry = FunctionEntry(function);
    uint32_t at =
        BodyStart(function) + 8 + 4 * (Get(entry + 8) + Get(entry + 12));
    for (uint32_t i = 0; i < argument; ++i) at += 4 + 4 * Get(at);
    return at;
  }
  uint32_t Kernel(uint32_t function, uint32_t kernel) const {
    const uint32_t num_arguments = Get(FunctionEntry(function) + 8);
    uint32_t at = ArgumentUsers(function, num_arguments);
    for (uint32_t k = 0; k < kernel; ++k) {
      const uint32_t num_results = Get(at + 12);
      at += 24 +
            4 * (Get(at + 8) + num_results + 2 * Get(at + 16) + Get(at + 20));
      for (uint32_t r = 0; r < num_results; ++r) at += 4 + 4 * Get(at);
    }
    return at;
  }
  // Fields of a kernel entry.
  uint32_t Operand(uint32_t function, uint32_t kernel, uint32_t i) const {
    return Kernel(function, kernel) + 24 + 4 * i;
  }
  uint32_t Result(uint32_t function, uint32_t kernel, uint32_t i) const {
    const uint32_t at = Kernel(function, kernel);
    return at + 24 + 4 * (Get(at + 8) + i);
  }
  uint32_t Attribute(uint32_t function, uint32_t kernel, uint32_t i) const {
    const uint32_t at = Kernel(function, kernel);
    return at + 24 + 4 * (Get(at + 8) + Get(at + 12) + i);
  }
  uint32_t AttributeName(uint32_t function, uint32_t kernel, uint32_t i) const {
    const uint32_t at = Kernel(function, kernel);
    return at + 24 + 4 * (Get(at + 8) + Get(at + 12) + Get(at + 16) + i);
  }
  uint32_t Callee(uint32_t function, uint32_t kernel, uint32_t i) const {
    const uint32_t at = Kernel(function, kernel);
    return at + 24 + 4 * (Get(at + 8) + Get(at + 12) + 2 * Get(at + 16) + i);
  }
  uint32_t ResultUsers(uint32_t function, uint32_t kernel, uint32_t i) const {
    uint32_t at = Callee(function, kernel, Get(Kernel(function, kernel) + 20));
    for (uint32_t r = 0; r < i; ++r) at += 4 + 4 * Get(at);
    return at;
  }
  // The data of the attribute entry with reference `reference`.
  uint32_t AttributeData(uint32_t reference) const {
    return SectionOffset(SectionId::kAttributes) + reference;
  }

  // Reads the file as patched, with its checksum recomputed, so that the
  // check under test, not the checksum, is what refuses it.
  absl::Status Read() const {
    // A copy of exactly the file's size, so that AddressSanitizer sees any
    // read past its end.
    std::vector<uint8_t> copy(bytes_);
    UpdateSbfChecksum(absl::MakeSpan(copy));
    return ReadSbf(copy).status();
  }
  // Reads the file as patched, checksum and all.
  absl::Status ReadAsIs() const {
    std::vector<uint8_t> copy(bytes_);
    return ReadSbf(copy).status();
  }

 private:
  std::vector<uint8_t> bytes_;
};

// Matches an error from ReadSbf naming `section` at `offset`.
::testing::Matcher<std::string> NamesSection(const std::string& section) {
  return StartsWith("invalid sbf file: " + section + " at offset ");
}

std::string Message(const absl::Status& status) {
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

std::string At(const std::string& section, uint32_t offset) {
  return "invalid sbf file: " + section + " at offset " +
         std::to_string(offset) + ": ";
}

TEST(SbfReaderValidationTest, BaseProgramIsValid) {
  for (bool optional : {true, false}) {
    File file(BaseProgram(optional));
    EXPECT_TRUE(file.Read().ok()) << file.Read();
    absl::StatusOr<SbfProgram> program = ReadSbf(file.bytes());
    ASSERT_TRUE(program.ok());
    // The walker agrees with the reader.
    EXPECT_EQ(file.Get(file.Operand(kMain, 1, 0)), 2u);
    EXPECT_EQ(file.Get(file.Result(kMain, 2, 0)), 4u);
    EXPECT_EQ(file.Get(file.ResultUsers(kMain, 1, 0)), 1u);
    EXPECT_EQ(file.Get(file.Callee(kMain, 2, 0)), kNative);
    EXPECT_EQ(file.Get(file.ArgumentUsers(kMain, 1) + 4), 1u);
  }
}

TEST(SbfReaderValidationTest, EveryTruncationFails) {
  for (bool optional : {true, false}) {
    const std::vector<uint8_t> bytes = BaseProgram(optional);
    for (size_t length = 0; length < bytes.size(); ++length) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + length);
      absl::StatusOr<SbfProgram> program = ReadSbf(prefix);
      ASSERT_FALSE(program.ok()) << "length " << length;
      EXPECT_THAT(std::string(program.status().message()),
                  StartsWith("invalid sbf file: "));
    }
  }
}

TEST(SbfReaderValidationTest, UnalignedBuffer) {
  std::vector<uint8_t> bytes = BaseProgram();
  bytes.insert(bytes.begin(), 0);
  absl::StatusOr<SbfProgram> program =
      ReadSbf(absl::Span<const uint8_t>(bytes).subspan(1));
  EXPECT_THAT(std::string(program.status().message()), HasSubstr("8-aligned"));
}

TEST(SbfReaderValidationTest, Header) {
  File file(BaseProgram());
  file.bytes()[1] = 'X';
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Header", 0)), HasSubstr("bad magic")));

  file = File(BaseProgram());
  file.Set(4, 3);
  EXPECT_EQ(
      Message(file.Read()),
      At("Header", 4) + "unsupported version 3 (this reader reads version 2)");

  file = File(BaseProgram());
  file.Set(8, 0xFFFFFFFF);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Header", 8)),
                    HasSubstr("section table of 4294967295 entries")));

  // Version 1 had no checksum; its files are refused by their version.
  file = File(BaseProgram());
  file.Set(4, 1);
  file.Set(12, 0);
  EXPECT_EQ(
      Message(file.ReadAsIs()),
      At("Header", 4) + "unsupported version 1 (this reader reads version 2)");
}

TEST(SbfReaderValidationTest, ChecksumCoversTheFileButNotItself) {
  const std::vector<uint8_t> bytes = BaseProgram();
  const uint32_t stored = StoredSbfChecksum(bytes);
  EXPECT_EQ(stored, ComputeSbfChecksum(bytes));
  // The field reads as zero, so changing only it leaves the checksum alone.
  File file(bytes);
  file.Set(kChecksumOffset, stored ^ 0x00010000);
  EXPECT_EQ(ComputeSbfChecksum(file.bytes()), stored);
  EXPECT_EQ(Message(file.ReadAsIs()),
            absl::StrFormat("invalid sbf file: Header at offset 12: checksum "
                            "mismatch (header says 0x%08x, contents give "
                            "0x%08x): the file is corrupt or was changed "
                            "after it was written",
                            stored ^ 0x00010000, stored));

  // CRC-32 of the bytes as written, field zeroed: the value docs/format.md
  // describes, computed here without the library's helper.
  std::vector<uint8_t> zeroed = bytes;
  for (int i = 0; i < 4; ++i) zeroed[kChecksumOffset + i] = 0;
  uint32_t crc = 0xFFFFFFFF;
  for (uint8_t byte : zeroed) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc >> 1) ^ (0xEDB88320 & (0u - (crc & 1)));
    }
  }
  EXPECT_EQ(stored, ~crc);
}

// Every single changed byte is caught: by the magic or version check for
// the first 8 bytes, by the checksum for any other.
TEST(SbfReaderValidationTest, EveryFlippedByteIsRefused) {
  for (bool optional : {true, false}) {
    const std::vector<uint8_t> bytes = BaseProgram(optional);
    for (size_t at = 0; at < bytes.size(); ++at) {
      for (uint8_t flip : {0x01, 0x80, 0xFF}) {
        File file(bytes);
        file.bytes()[at] ^= flip;
        const std::string message = Message(file.ReadAsIs());
        if (at >= 8) {
          EXPECT_THAT(message, StartsWith(At("Header", 12) +
                                          "checksum mismatch (header says "))
              << "byte " << at;
        } else {
          EXPECT_THAT(message,
                      StartsWith("invalid sbf file: Header at offset "))
              << "byte " << at;
        }
      }
    }
  }
}

// The depth of an array counts arrays: an array of scalars is 1 deep.
std::vector<uint8_t> NestedArrayProgram(uint32_t depth) {
  SbfWriter writer;
  uint32_t current = writer.AddScalar<int32_t>(AttributeType::kI32, 1);
  // A second, shallower branch keeps the depth a maximum over elements.
  const uint32_t shallow = writer.AddArrayAttribute({current});
  for (uint32_t level = 0; level < depth; ++level) {
    current = level == 0 ? writer.AddArrayAttribute({current})
                         : writer.AddArrayAttribute({shallow, current});
  }
  const uint32_t kernel = writer.AddKernelName("test.nested");
  const uint32_t loc = writer.AddLocation("n.mlir", 1, 1, std::nullopt);
  const uint32_t f =
      writer.DeclareFunction("nested", FunctionKind::kFunction, {}, {});
  BodyDescription body;
  body.kernels.push_back(
      {kernel, loc, {}, {}, {current}, {writer.AddString("deep")}, {}});
  writer.DefineFunction(f, body);
  return writer.Finish();
}

TEST(SbfReaderValidationTest, ArrayNestingLimit) {
  EXPECT_EQ(kMaxArrayNesting, 256u);
  File file(NestedArrayProgram(kMaxArrayNesting));
  EXPECT_TRUE(file.Read().ok()) << file.Read();

  // One level more: refused at the entry of the array that is too deep,
  // the last one, whose data ends the section.
  file = File(NestedArrayProgram(kMaxArrayNesting + 1));
  const uint32_t attributes_end = file.SectionOffset(SectionId::kAttributes) +
                                  file.SectionSize(SectionId::kAttributes);
  EXPECT_EQ(Message(file.Read()),
            At("Attributes", attributes_end - 16) +
                "array attribute nests 257 levels deep; sbf files allow at "
                "most 256 levels of arrays");
}

TEST(SbfReaderValidationTest, DeepArrayChainIsRefusedWithoutRecursion) {
  // Far deeper than any recursive walk could go: the reader computes depths
  // in one pass and stops at the first array past the limit.
  File file(NestedArrayProgram(200000));
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("Attributes"),
                    HasSubstr("array attribute nests 257 levels deep")));
}

TEST(SbfReaderValidationTest, SectionOutOfBounds) {
  File file(BaseProgram());
  const uint32_t entry = file.SectionEntry(SectionId::kStrings);
  file.Set(entry + 8, 0x7FFFFFF0);
  EXPECT_THAT(
      Message(file.Read()),
      AllOf(StartsWith(At("SectionTable", entry + 8)), HasSubstr("Strings"),
            HasSubstr("runs past the end of the")));

  file = File(BaseProgram());
  file.Set(entry + 4, 0xFFFFFFF8);
  file.Set(entry + 8, 0x10);
  EXPECT_THAT(Message(file.Read()), HasSubstr("runs past the end"));

  file = File(BaseProgram());
  file.Set(entry + 4, file.SectionOffset(SectionId::kStrings) + 4);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("SectionTable", entry + 4)),
                    HasSubstr("not a multiple of 8")));

  file = File(BaseProgram());
  file.Set(entry + 4, 8);
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("SectionTable"),
                    HasSubstr("inside the header or section table")));
}

TEST(SbfReaderValidationTest, OverlappingSections) {
  File file(BaseProgram());
  const uint32_t types = file.SectionEntry(SectionId::kTypes);
  file.Set(types + 4, file.SectionOffset(SectionId::kAttributes) + 8);
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("SectionTable"), HasSubstr("overlaps"),
                    HasSubstr("Types"), HasSubstr("Attributes")));
}

TEST(SbfReaderValidationTest, EmptySectionsOverlapNothing) {
  SbfWriter writer;
  writer.AddString("x");
  File file(writer.Finish());
  // An empty Attributes section placed where Strings starts.
  file.Set(file.SectionEntry(SectionId::kAttributes) + 4,
           file.SectionOffset(SectionId::kStrings));
  EXPECT_TRUE(file.Read().ok()) << file.Read();
}

TEST(SbfReaderValidationTest, DuplicateAndUnknownIds) {
  File file(BaseProgram());
  const uint32_t types = file.SectionEntry(SectionId::kTypes);
  file.Set(types, static_cast<uint32_t>(SectionId::kStrings));
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("SectionTable"),
                    HasSubstr("duplicate section Strings")));

  file = File(BaseProgram());
  const uint32_t register_types = file.SectionEntry(SectionId::kRegisterTypes);
  file.Set(register_types, 9);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("SectionTable", register_types)),
                    HasSubstr("unknown required section id 0x9")));

  // An unknown optional section is skipped...
  file.Set(register_types, 0x80000042);
  UpdateSbfChecksum(absl::MakeSpan(file.bytes()));
  absl::StatusOr<SbfProgram> program = ReadSbf(file.bytes());
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_FALSE(program->has_register_types);
  EXPECT_TRUE(program->functions[kMain].register_types.empty());

  // ...but its table entry is still checked.
  file.Set(register_types + 8, file.Get(register_types + 8) + 8);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("SectionTable", register_types + 8)),
                    HasSubstr("section id 0x80000042 at")));

  file = File(BaseProgram());
  file.Set(types, 0x80000042);
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("SectionTable"),
                    HasSubstr("missing required section Types")));
}

// A worker sends function names in protobuf string fields, which a peer
// cannot parse unless they are UTF-8.
TEST(SbfReaderValidationTest, FunctionNamesMustBeUtf8) {
  File file(BaseProgram());
  const uint32_t entry = file.FunctionEntry(kMain);
  const uint32_t name =
      file.SectionOffset(SectionId::kStrings) + file.Get(entry);
  ASSERT_EQ(file.bytes()[name + 1], 'a');
  file.bytes()[name + 1] = 0xFF;
  EXPECT_EQ(Message(file.Read()),
            At("Functions", entry) +
                "function #0's name \"m\\xffin\" is not valid UTF-8 (byte "
                "0xff at offset 1)");
}

TEST(SbfReaderValidationTest, Strings) {
  // Dropping the last byte of Strings leaves its last string unterminated.
  File file(BaseProgram());
  const uint32_t strings = file.SectionEntry(SectionId::kStrings);
  file.Set(strings + 8, file.Get(strings + 8) - 1);
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("KernelNames"),
                    HasSubstr("has no NUL before the end of Strings")));

  file = File(BaseProgram());
  const uint32_t first_type = file.SectionOffset(SectionId::kTypes) + 4;
  file.Set(first_type, 100000);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Types", first_type)),
                    HasSubstr("string reference 100000 out of range")));

  file = File(BaseProgram());
  const uint32_t name = file.AttributeName(kMain, 1, 0);
  file.Set(name, 0xFFFFFFFF);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", name)),
                    HasSubstr("string reference 4294967295")));

  file = File(BaseProgram());
  const uint32_t location = file.SectionOffset(SectionId::kLocations) + 4;
  file.Set(location + 12, 99999);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Locations", location + 12)),
                    HasSubstr("string reference 99999")));
}

TEST(SbfReaderValidationTest, IndicesOutOfRange) {
  File file(BaseProgram());
  uint32_t at = file.Kernel(kMain, 1);
  file.Set(at, 77);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", at)),
                    HasSubstr("kernel name index 77 but KernelNames has 3")));

  file = File(BaseProgram());
  file.Set(at + 4, 5);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", at + 4)),
                    HasSubstr("location index 5 but Locations has 2")));

  file = File(BaseProgram());
  at = file.FunctionEntry(kNative) + 24;
  file.Set(at, 2);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Functions", at)),
                    HasSubstr("function 'callee' names type 2 but Types has "
                              "2 entries")));

  file = File(BaseProgram());
  at = file.Callee(kMain, 2, 0);
  file.Set(at, 3);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", at)),
                    HasSubstr("refers to function 3 but there are 3")));

  file = File(BaseProgram());
  at = file.SectionOffset(SectionId::kRegisterTypes) + 8;
  file.Set(at, 2);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("RegisterTypes", at)),
                    HasSubstr("has type 2 but Types has 2")));
}

TEST(SbfReaderValidationTest, FunctionEntries) {
  File file(BaseProgram());
  uint32_t at = file.FunctionEntry(kMain);
  file.Set(at + 4, 3);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Functions", at + 4)),
                    HasSubstr("function 'main' has unknown kind 3")));

  file = File(BaseProgram());
  at = file.FunctionEntry(kNative);
  file.Set(at + 20, 8);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Functions", at + 16)),
                    HasSubstr("native function 'callee' has a body")));

  file = File(BaseProgram());
  at = file.FunctionEntry(kRegion);
  file.Set(at + 16, file.Get(at + 16) + 2);
  EXPECT_THAT(Message(file.Read()), AllOf(StartsWith(At("Functions", at + 16)),
                                          HasSubstr("body of function #2"),
                                          HasSubstr("not a multiple of 4")));

  file = File(BaseProgram());
  file.Set(at + 20, file.Get(at + 20) + 4);
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("Functions"),
                    HasSubstr("runs past the end of FunctionBodies")));

  // Growing main's body into the region's leaves bytes after its last
  // kernel.
  file = File(BaseProgram());
  at = file.FunctionEntry(kMain);
  file.Set(at + 20, file.Get(at + 20) + 4);
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("FunctionBodies"),
                    HasSubstr("4 unexpected bytes after the last kernel")));

  // Shrinking it cuts the last users list.
  file = File(BaseProgram());
  file.Set(at + 20, file.Get(at + 20) - 4);
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("FunctionBodies"),
                    HasSubstr("body of function 'main'")));
}

TEST(SbfReaderValidationTest, TrailingBytesInATable) {
  File file(BaseProgram(/*optional_sections=*/false));
  // Locations is the last section: give it 4 more bytes.
  const uint32_t entry = file.SectionEntry(SectionId::kLocations);
  ASSERT_EQ(file.SectionOffset(SectionId::kLocations) + file.Get(entry + 8),
            file.bytes().size());
  file.bytes().resize(file.bytes().size() + 4);
  file.Set(entry + 8, file.Get(entry + 8) + 4);
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("Locations"),
                    HasSubstr("4 unexpected bytes after the last location")));
}

TEST(SbfReaderValidationTest, OperandRegisters) {
  File file(BaseProgram());
  uint32_t at = file.Operand(kMain, 1, 0);
  file.Set(at, 9);
  EXPECT_EQ(Message(file.Read()),
            At("FunctionBodies", at) +
                "operand register 9 out of range (function 'main' has 5 "
                "registers)");

  // r4 is defined by k2, after k1.
  file = File(BaseProgram());
  file.Set(at, 4);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", at)),
                    HasSubstr("kernel 1 of function 'main' uses register 4 "
                              "before it is defined")));

  // A kernel cannot consume its own result.
  file = File(BaseProgram());
  at = file.Operand(kRegion, 0, 1);
  file.Set(at, 1);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", at)),
                    HasSubstr("function #2 uses register 1 before")));
}

// Built by the writer, which leaves register discipline to the reader:
// f(r0) -> r2 with one kernel `k` per entry of `kernels`.
File RegisterProgram(uint32_t num_registers,
                     std::vector<std::pair<uint32_t, uint32_t>> kernels) {
  SbfWriter writer;
  const uint32_t t = writer.AddType("i32");
  const uint32_t k = writer.AddKernelName("k");
  const uint32_t loc = writer.AddLocation("f.mlir", 1, 1, std::nullopt);
  const uint32_t f =
      writer.DeclareFunction("f", FunctionKind::kFunction, {t}, {t});
  BodyDescription body;
  body.num_registers = num_registers;
  body.argument_registers = {0};
  body.result_registers = {num_registers - 1};
  for (auto [operand, result] : kernels) {
    body.kernels.push_back({k, loc, {operand}, {result}, {}, {}, {}});
  }
  writer.DefineFunction(f, body);
  return File(writer.Finish());
}

TEST(SbfReaderValidationTest, NamesInMessagesAreEscaped) {
  SbfWriter writer;
  const uint32_t k = writer.AddKernelName("k");
  const uint32_t loc = writer.AddLocation("f.mlir", 1, 1, std::nullopt);
  const uint32_t f =
      writer.DeclareFunction("two\nlines", FunctionKind::kFunction, {}, {});
  BodyDescription body;
  body.num_registers = 1;
  body.kernels.push_back({k, loc, {}, {0}, {}, {}, {}});
  writer.DefineFunction(f, body);
  File file(writer.Finish());
  file.Set(file.Result(f, 0, 0), 1);
  EXPECT_THAT(Message(file.Read()),
              HasSubstr("(function 'two\\nlines' has 1 registers)"));
}

TEST(SbfReaderValidationTest, RegisterDefinitions) {
  EXPECT_TRUE(RegisterProgram(3, {{0, 1}, {1, 2}}).Read().ok());

  File file = RegisterProgram(3, {{0, 1}, {1, 1}});
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", file.Result(0, 1, 0))),
                    HasSubstr("register 1 of function 'f' is defined twice "
                              "(first by kernel 0)")));

  file = RegisterProgram(3, {{0, 1}, {1, 0}});
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", file.Result(0, 1, 0))),
                    HasSubstr("register 0 of function 'f' is defined twice "
                              "(first by an argument)")));

  file = RegisterProgram(3, {{0, 2}});
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", file.BodyStart(0))),
                    HasSubstr("register 1 of function 'f' is never "
                              "defined")));

  file = RegisterProgram(3, {{0, 1}, {2, 2}});
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", file.Operand(0, 1, 0))),
                    HasSubstr("kernel 1 of function 'f' uses register 2 "
                              "before it is defined")));

  // A result register outside the body.
  file = File(BaseProgram());
  const uint32_t at = file.Result(kMain, 0, 0);
  file.Set(at, 5);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", at)),
                    HasSubstr("result register 5 out of range")));

  file = File(BaseProgram());
  const uint32_t returned = file.BodyStart(kMain) + 16;
  file.Set(returned, 12);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", returned)),
                    HasSubstr("returned register 12 out of range")));
}

TEST(SbfReaderValidationTest, UsersLists) {
  // r0's users are [0, 0]: k0 takes it twice.
  File file(BaseProgram());
  uint32_t at = file.ArgumentUsers(kMain, 0);
  ASSERT_EQ(file.Get(at), 2u);
  file.Set(at + 8, 1);
  EXPECT_EQ(Message(file.Read()),
            At("FunctionBodies", at) +
                "users of register 0 of function 'main' are [0, 1] but its "
                "operand uses are [0, 0]");

  // Listing a use once is not enough.
  file = File(BaseProgram());
  const uint32_t region_users = file.ArgumentUsers(kRegion, 0);
  file.Set(region_users, 1);
  EXPECT_THAT(Message(file.Read()), NamesSection("FunctionBodies"));

  // r2 (k0's result) is used by k1 only.
  file = File(BaseProgram());
  at = file.ResultUsers(kMain, 0, 0);
  file.Set(at + 4, 2);
  EXPECT_THAT(Message(file.Read()), AllOf(StartsWith(At("FunctionBodies", at)),
                                          HasSubstr("users of register 2")));

  // The function result r4 has no users.
  file = File(BaseProgram());
  at = file.ResultUsers(kMain, 2, 0);
  ASSERT_EQ(file.Get(at), 0u);
  // Claiming one user swallows the next kernel's first word.
  file.Set(at, 1);
  EXPECT_THAT(Message(file.Read()), NamesSection("FunctionBodies"));
}

TEST(SbfReaderValidationTest, AttributeReferences) {
  BaseAttributes a;
  File file(BaseProgram(true, &a));
  const uint32_t at = file.Attribute(kMain, 0, 0);
  ASSERT_EQ(file.Get(at), a.i32);
  file.Set(at, a.i32 + 4);
  EXPECT_THAT(Message(file.Read()), AllOf(StartsWith(At("FunctionBodies", at)),
                                          HasSubstr("not a multiple of 8")));

  file.Set(at, 0x7FFFFFF8);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", at)),
                    HasSubstr("attribute reference 2147483640 out of range")));

  file.Set(at, 0);
  EXPECT_THAT(Message(file.Read()), HasSubstr("out of range"));

  // Inside the data of the long string.
  file.Set(at, a.str + 16);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("FunctionBodies", at)),
                    HasSubstr("does not point at the data of an attribute "
                              "entry")));
}

TEST(SbfReaderValidationTest, AttributeEntries) {
  BaseAttributes a;
  File file(BaseProgram(true, &a));
  uint32_t entry = file.AttributeData(a.i32) - 8;
  file.Set(entry, 99);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Attributes", entry)),
                    HasSubstr("unknown attribute type code 0x63")));

  file.Set(entry, 0x100);
  EXPECT_THAT(Message(file.Read()), HasSubstr("unknown attribute type code"));
  file.Set(entry, 0x100 + 14);
  EXPECT_THAT(Message(file.Read()), HasSubstr("unknown attribute type code"));

  file = File(BaseProgram(true, &a));
  file.Set(entry + 4, 2);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Attributes", entry + 4)),
                    HasSubstr("i32 attribute has count 2, expected 1")));

  // An array element pointing at the array itself, and one past it.
  file = File(BaseProgram(true, &a));
  const uint32_t element = file.AttributeData(a.array) + 4;
  file.Set(element, a.array);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Attributes", element)),
                    HasSubstr("array element 1 refers to attribute"),
                    HasSubstr("does not come before the array")));
  file.Set(element, a.symbol);
  EXPECT_THAT(Message(file.Read()), HasSubstr("does not come before"));
  file.Set(element, a.i32 + 4);
  EXPECT_THAT(Message(file.Read()), AllOf(StartsWith(At("Attributes", element)),
                                          HasSubstr("not a multiple of 8")));

  file = File(BaseProgram(true, &a));
  file.bytes()[file.AttributeData(a.flag)] = 2;
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Attributes", file.AttributeData(a.flag))),
                    HasSubstr("bool value 2 is not 0 or 1")));

  file = File(BaseProgram(true, &a));
  file.Set(file.AttributeData(a.type), 2);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Attributes", file.AttributeData(a.type))),
                    HasSubstr("type attribute names type 2 but Types has 2")));

  file = File(BaseProgram(true, &a));
  file.Set(file.AttributeData(a.symbol), 3);
  EXPECT_THAT(Message(file.Read()),
              AllOf(NamesSection("Attributes"),
                    HasSubstr("symbol attribute names function 3 but there "
                              "are 3 functions")));

  // The string's declared length runs past the section.
  file = File(BaseProgram(true, &a));
  entry = file.AttributeData(a.str) - 8;
  file.Set(entry + 4, 1000);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Attributes", entry)),
                    HasSubstr("string attribute with 1000 elements")));

  // Cutting the last entry's padding.
  file = File(BaseProgram(true, &a));
  const uint32_t attributes = file.SectionEntry(SectionId::kAttributes);
  file.Set(attributes + 8, file.Get(attributes + 8) - 4);
  EXPECT_THAT(Message(file.Read()), NamesSection("Attributes"));
}

// A program whose only attributes are dense elements: an i32 tensor of
// shape [2, 3] at `*ints` and a bool one of shape [2] at `*bools`.
std::vector<uint8_t> DenseElementsProgram(uint32_t* ints, uint32_t* bools) {
  SbfWriter writer;
  const int32_t int_values[6] = {1, 2, 3, 4, 5, 6};
  const int64_t int_shape[2] = {2, 3};
  *ints = writer.AddDenseElementsAttribute(AttributeType::kI32, int_shape,
                                           int_values);
  const uint8_t bool_values[2] = {1, 0};
  const int64_t bool_shape[1] = {2};
  *bools = writer.AddDenseElementsAttribute(AttributeType::kBool, bool_shape,
                                            bool_values);
  writer.DefineFunction(
      writer.DeclareFunction("main", FunctionKind::kFunction, {}, {}),
      BodyDescription());
  return writer.Finish();
}

TEST(SbfReaderValidationTest, DenseElements) {
  uint32_t ints = 0;
  uint32_t bools = 0;
  const File base(DenseElementsProgram(&ints, &bools));
  EXPECT_TRUE(base.Read().ok()) << base.Read();
  const uint32_t data = base.AttributeData(ints);
  const uint32_t first_dimension = data + 8;

  File file = base;
  file.Set(data, static_cast<uint32_t>(AttributeType::kString));
  EXPECT_THAT(Message(file.Read()), AllOf(StartsWith(At("Attributes", data)),
                                          HasSubstr("element type code 0xe")));

  file = base;
  file.Set(data + 4, 0xFFFFFFFF);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Attributes", data + 4)),
                    HasSubstr("of rank 4294967295 needs")));

  file = base;
  file.Set(first_dimension, 3);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Attributes", data)),
                    HasSubstr("has 24 bytes of i32 elements, not what its "
                              "shape needs")));

  // No elements where the data has some.
  file = base;
  file.Set(first_dimension, 0);
  EXPECT_THAT(Message(file.Read()), HasSubstr("not what its shape needs"));

  // Dimensions whose product overflows 64 bits.
  file = base;
  file.Set(first_dimension + 4, 0x10000);
  file.Set(first_dimension + 12, 0x10000);
  EXPECT_THAT(Message(file.Read()), HasSubstr("not what its shape needs"));

  file = base;
  file.Set(first_dimension + 12, 0x80000000);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Attributes", first_dimension + 8)),
                    HasSubstr("dense elements dimension 1 is negative")));

  // Shorter than its header.
  file = base;
  file.Set(data - 4, 4);
  EXPECT_THAT(Message(file.Read()), HasSubstr("less than its 8-byte header"));

  file = base;
  const uint32_t bool_element = base.AttributeData(bools) + 16 + 1;
  file.bytes()[bool_element] = 2;
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("Attributes", bool_element)),
                    HasSubstr("bool value 2 is not 0 or 1")));
}

TEST(SbfReaderValidationTest, RegisterTypes) {
  File file(BaseProgram());
  const uint32_t at = file.SectionOffset(SectionId::kRegisterTypes);
  file.Set(at, 4);
  EXPECT_THAT(Message(file.Read()),
              AllOf(StartsWith(At("RegisterTypes", at)),
                    HasSubstr("lists 4 register types for function 'main', "
                              "which has 5 registers")));

  file = File(BaseProgram());
  const uint32_t entry = file.SectionEntry(SectionId::kRegisterTypes);
  file.Set(entry + 8, file.Get(entry + 8) - 4);
  EXPECT_THAT(Message(file.Read()), NamesSection("RegisterTypes"));
}

// Each count set to 0xFFFFFFFF must be rejected before anything is sized by
// it (AddressSanitizer would abort on a 16 GiB allocation).
TEST(SbfReaderValidationTest, HugeCounts) {
  BaseAttributes a;
  const File base(BaseProgram(true, &a));
  struct Case {
    const char* what;
    uint32_t offset;
    const char* section;
  };
  const Case cases[] = {
      {"section count", 8, "Header"},
      {"type count", base.SectionOffset(SectionId::kTypes), "Types"},
      {"kernel name count", base.SectionOffset(SectionId::kKernelNames),
       "KernelNames"},
      {"location count", base.SectionOffset(SectionId::kLocations),
       "Locations"},
      {"function count", base.SectionOffset(SectionId::kFunctions),
       "Functions"},
      {"argument count", base.FunctionEntry(kMain) + 8, "Functions"},
      {"result count", base.FunctionEntry(kRegion) + 12, "Functions"},
      {"register count", base.BodyStart(kMain), "FunctionBodies"},
      {"kernel count", base.BodyStart(kMain) + 4, "FunctionBodies"},
      {"argument user count", base.ArgumentUsers(kMain, 1), "FunctionBodies"},
      {"operand count", base.Kernel(kMain, 1) + 8, "FunctionBodies"},
      {"result count", base.Kernel(kMain, 1) + 12, "FunctionBodies"},
      {"attribute count", base.Kernel(kMain, 1) + 16, "FunctionBodies"},
      {"function count", base.Kernel(kMain, 1) + 20, "FunctionBodies"},
      {"result user count", base.ResultUsers(kMain, 1, 0), "FunctionBodies"},
      {"string length", base.AttributeData(a.str) - 4, "Attributes"},
      {"array count", base.AttributeData(a.array) - 4, "Attributes"},
      {"register type count", base.SectionOffset(SectionId::kRegisterTypes),
       "RegisterTypes"},
  };
  for (const Case& c : cases) {
    for (uint32_t count : {0xFFFFFFFFu, 0x40000000u, 0x3FFFFFFFu}) {
      File file = base;
      file.Set(c.offset, count);
      EXPECT_THAT(Message(file.Read()), NamesSection(c.section))
          << c.what << " = " << count;
    }
  }
}

}  // namespace
}  // namespace bef
}  // namespace sluice
