// Programs written by SbfWriter read back unchanged through ReadSbf.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/bef/sbf_writer.h"

namespace sluice {
namespace bef {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

uint32_t Load32(const void* p) {
  uint32_t value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

// The element count a kernel sees: the 4 bytes before the data.
uint32_t CountBefore(const void* data) {
  return Load32(static_cast<const uint8_t*>(data) - 4);
}

template <typename T>
T DataAs(const SbfAttribute& attribute, size_t index = 0) {
  T value;
  std::memcpy(&value, static_cast<const T*>(attribute.data) + index, sizeof(T));
  return value;
}

std::string_view StringData(const SbfAttribute& attribute) {
  return std::string_view(static_cast<const char*>(attribute.data),
                          attribute.count);
}

// The program views `bytes`, which must outlive it.
SbfProgram ReadOrDie(std::vector<uint8_t>&& bytes) = delete;
SbfProgram ReadOrDie(const std::vector<uint8_t>& bytes) {
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bytes.data()) % 8, 0u);
  absl::StatusOr<SbfProgram> program = ReadSbf(bytes);
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *std::move(program) : SbfProgram();
}

TEST(FormatTest, ElementSizesAndNames) {
  EXPECT_EQ(AttributeElementSize(AttributeType::kBool), 1u);
  EXPECT_EQ(AttributeElementSize(AttributeType::kI16), 2u);
  EXPECT_EQ(AttributeElementSize(AttributeType::kUI32), 4u);
  EXPECT_EQ(AttributeElementSize(AttributeType::kF64), 8u);
  EXPECT_EQ(AttributeElementSize(AttributeType::kBF16), 2u);
  EXPECT_EQ(AttributeElementSize(AttributeType::kString), 1u);
  EXPECT_EQ(AttributeElementSize(AttributeType::kArray), 4u);
  EXPECT_EQ(AttributeElementSize(AttributeType::kComplex64), 4u);
  EXPECT_EQ(AttributeElementSize(AttributeType::kComplex128), 8u);
  EXPECT_EQ(AttributeElementSize(AttributeType::kUnit), 1u);
  EXPECT_EQ(AttributeElementSize(static_cast<AttributeType>(0x100 + 5)), 8u);
  EXPECT_EQ(AttributeElementSize(static_cast<AttributeType>(0x100)), 0u);
  EXPECT_EQ(AttributeElementSize(static_cast<AttributeType>(0x100 + 14)), 0u);
  EXPECT_EQ(AttributeElementSize(static_cast<AttributeType>(0)), 0u);
  EXPECT_EQ(AttributeElementSize(AttributeType::kDenseElements), 1u);
  EXPECT_EQ(AttributeElementSize(static_cast<AttributeType>(22)), 0u);
  EXPECT_EQ(DenseElementSize(AttributeType::kBool), 1u);
  EXPECT_EQ(DenseElementSize(AttributeType::kBF16), 2u);
  EXPECT_EQ(DenseElementSize(AttributeType::kComplex64), 8u);
  EXPECT_EQ(DenseElementSize(AttributeType::kComplex128), 16u);
  EXPECT_EQ(DenseElementSize(AttributeType::kString), 0u);
  EXPECT_EQ(DenseElementSize(AttributeType::kDenseElements), 0u);
  EXPECT_EQ(DenseElementSize(static_cast<AttributeType>(0x100 + 4)), 0u);

  EXPECT_STREQ(AttributeTypeName(AttributeType::kBool), "i1");
  EXPECT_STREQ(AttributeTypeName(AttributeType::kUI64), "ui64");
  EXPECT_STREQ(AttributeTypeName(AttributeType::kString), "string");
  EXPECT_STREQ(AttributeTypeName(AttributeType::kComplex64), "complex<f32>");
  EXPECT_STREQ(AttributeTypeName(static_cast<AttributeType>(0x100 + 12)),
               "dense<f32>");
  EXPECT_STREQ(AttributeTypeName(AttributeType::kDenseElements),
               "dense elements");
  EXPECT_STREQ(AttributeTypeName(static_cast<AttributeType>(99)), "unknown");
}

TEST(SbfWriterTest, DeduplicatesStringsTypesAndKernelNames) {
  SbfWriter writer;
  EXPECT_EQ(writer.AddString("abc"), writer.AddString("abc"));
  EXPECT_NE(writer.AddString("abc"), writer.AddString("abd"));
  const uint32_t i32 = writer.AddType("i32");
  const uint32_t chain = writer.AddType("!tfrt.chain");
  EXPECT_EQ(writer.AddType("i32"), i32);
  EXPECT_NE(i32, chain);
  const uint32_t add = writer.AddKernelName("tfrt.add.i32");
  EXPECT_EQ(writer.AddKernelName("tfrt.add.i32"), add);
  // A kernel name that spells like a type still gets its own table entry.
  EXPECT_EQ(writer.AddKernelName("i32"), add + 1);

  const std::vector<uint8_t> bytes = writer.Finish();
  SbfProgram program = ReadOrDie(bytes);
  EXPECT_THAT(program.types, ElementsAre("i32", "!tfrt.chain"));
  EXPECT_THAT(program.kernel_names, ElementsAre("tfrt.add.i32", "i32"));
  // Both tables point at the one copy of "i32" in Strings.
  EXPECT_EQ(program.types[0].data(), program.kernel_names[1].data());
}

TEST(SbfWriterTest, SectionsAndAttributesAreAligned) {
  SbfWriter writer;
  writer.AddString("odd");
  const uint32_t a = writer.AddScalar<uint8_t>(AttributeType::kUI8, 1);
  const uint32_t b = writer.AddStringAttribute("xyz");
  const uint32_t c = writer.AddScalar<int64_t>(AttributeType::kI64, 5);
  for (uint32_t reference : {a, b, c}) EXPECT_EQ(reference % 8, 0u);
  const std::vector<uint8_t> bytes = writer.Finish();
  const uint32_t count = Load32(&bytes[8]);
  for (uint32_t i = 0; i < count; ++i) {
    EXPECT_EQ(Load32(&bytes[16 + 12 * i + 4]) % 8, 0u) << "section " << i;
  }
  EXPECT_TRUE(HasSbfMagic(bytes));
  EXPECT_FALSE(HasSbfMagic(absl::Span<const uint8_t>(bytes).subspan(0, 3)));
  EXPECT_FALSE(HasSbfMagic(absl::Span<const uint8_t>(bytes).subspan(1)));
}

TEST(SbfRoundTripTest, EveryAttributeType) {
  SbfWriter writer;
  const uint32_t f32_type = writer.AddType("f32");
  const uint32_t callee =
      writer.DeclareFunction("callee", FunctionKind::kNative, {}, {});
  const uint32_t b = writer.AddScalar<uint8_t>(AttributeType::kBool, 1);
  const uint32_t i8 = writer.AddScalar<int8_t>(AttributeType::kI8, -8);
  const uint32_t i16 = writer.AddScalar<int16_t>(AttributeType::kI16, -1600);
  const uint32_t i32 = writer.AddScalar<int32_t>(AttributeType::kI32, -320000);
  const uint32_t i64 =
      writer.AddScalar<int64_t>(AttributeType::kI64, -(int64_t{1} << 40));
  const uint32_t u8 = writer.AddScalar<uint8_t>(AttributeType::kUI8, 250);
  const uint32_t u16 = writer.AddScalar<uint16_t>(AttributeType::kUI16, 65000);
  const uint32_t u32 =
      writer.AddScalar<uint32_t>(AttributeType::kUI32, 4000000000u);
  const uint32_t u64 =
      writer.AddScalar<uint64_t>(AttributeType::kUI64, ~uint64_t{0} - 1);
  const uint32_t f16 = writer.AddScalar<uint16_t>(AttributeType::kF16, 0x3C00);
  const uint32_t bf16 =
      writer.AddScalar<uint16_t>(AttributeType::kBF16, 0x3F80);
  const uint32_t f32 = writer.AddScalar<float>(AttributeType::kF32, 1.5f);
  const uint32_t f64 = writer.AddScalar<double>(AttributeType::kF64, -2.25);
  const uint32_t str = writer.AddStringAttribute("hello, sluice");
  const uint32_t empty_str = writer.AddStringAttribute("");
  const uint32_t type = writer.AddTypeAttribute(f32_type);
  const uint32_t symbol = writer.AddSymbolAttribute(callee);
  const uint32_t unit = writer.AddUnitAttribute();
  const float c64_parts[2] = {1.0f, -2.0f};
  const uint32_t c64 = writer.AddScalarAttribute(AttributeType::kComplex64,
                                                 c64_parts, sizeof(c64_parts));
  const double c128_parts[2] = {3.5, 4.5};
  const uint32_t c128 = writer.AddScalarAttribute(
      AttributeType::kComplex128, c128_parts, sizeof(c128_parts));
  const uint32_t empty_array = writer.AddArrayAttribute({});
  const uint32_t inner = writer.AddArrayAttribute({i32, str});
  const uint32_t outer = writer.AddArrayAttribute({inner, empty_array, b});
  const int32_t dense_values[3] = {1, -2, 3};
  const uint32_t dense =
      writer.AddDenseArrayAttribute(AttributeType::kI32, dense_values, 3);
  const double dense_f64_values[2] = {0.5, 0.25};
  const uint32_t dense_f64 =
      writer.AddDenseArrayAttribute(AttributeType::kF64, dense_f64_values, 2);
  const uint8_t dense_bool_values[5] = {1, 0, 0, 1, 1};
  const uint32_t dense_bool =
      writer.AddDenseArrayAttribute(AttributeType::kBool, dense_bool_values, 5);
  const uint32_t empty_dense =
      writer.AddDenseArrayAttribute(AttributeType::kI64, nullptr, 0);
  const int16_t tensor_values[6] = {1, 2, 3, -4, -5, -6};
  const int64_t tensor_shape[2] = {2, 3};
  const uint32_t tensor = writer.AddDenseElementsAttribute(
      AttributeType::kI16, tensor_shape, tensor_values);
  const uint8_t bool_tensor_values[1] = {1};
  const uint32_t bool_tensor = writer.AddDenseElementsAttribute(
      AttributeType::kBool, {}, bool_tensor_values);
  const int64_t empty_shape[3] = {4, 0, 2};
  const uint32_t empty_tensor = writer.AddDenseElementsAttribute(
      AttributeType::kComplex128, empty_shape, nullptr);

  const std::vector<uint32_t> all = {
      b,         i8,         i16,         i32,    i64,         u8,
      u16,       u32,        u64,         f16,    bf16,        f32,
      f64,       str,        empty_str,   type,   symbol,      unit,
      c64,       c128,       empty_array, inner,  outer,       dense,
      dense_f64, dense_bool, empty_dense, tensor, bool_tensor, empty_tensor};
  const uint32_t kernel_name = writer.AddKernelName("test.attrs");
  const uint32_t location = writer.AddLocation("a.mlir", 1, 2, std::nullopt);
  KernelDescription kernel;
  kernel.name_index = kernel_name;
  kernel.location_index = location;
  kernel.functions = {callee};
  for (uint32_t reference : all) {
    kernel.attributes.push_back(reference);
    kernel.attribute_names.push_back(
        writer.AddString("attr" + std::to_string(reference)));
  }
  const uint32_t main =
      writer.DeclareFunction("main", FunctionKind::kFunction, {}, {});
  BodyDescription body;
  body.kernels.push_back(kernel);
  writer.DefineFunction(main, body);

  const std::vector<uint8_t> bytes = writer.Finish();
  const SbfProgram program = ReadOrDie(bytes);
  ASSERT_EQ(program.functions.size(), 2u);
  const SbfKernel& read = program.functions[main].kernels.at(0);
  EXPECT_EQ(read.attributes, kernel.attributes);
  ASSERT_EQ(read.attribute_names.size(), all.size());
  EXPECT_EQ(read.attribute_names[0], "attr" + std::to_string(b));
  EXPECT_THAT(read.functions, ElementsAre(callee));

  auto get = [&](uint32_t reference) {
    const SbfAttribute attribute = program.GetAttribute(reference);
    EXPECT_EQ(attribute.data, program.AttributeData(reference));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(attribute.data) % 8, 0u);
    EXPECT_EQ(CountBefore(attribute.data), attribute.count);
    return attribute;
  };
  EXPECT_EQ(get(b).type, AttributeType::kBool);
  EXPECT_EQ(DataAs<uint8_t>(get(b)), 1);
  EXPECT_EQ(DataAs<int8_t>(get(i8)), -8);
  EXPECT_EQ(DataAs<int16_t>(get(i16)), -1600);
  EXPECT_EQ(DataAs<int32_t>(get(i32)), -320000);
  EXPECT_EQ(DataAs<int64_t>(get(i64)), -(int64_t{1} << 40));
  EXPECT_EQ(DataAs<uint8_t>(get(u8)), 250);
  EXPECT_EQ(DataAs<uint16_t>(get(u16)), 65000);
  EXPECT_EQ(DataAs<uint32_t>(get(u32)), 4000000000u);
  EXPECT_EQ(DataAs<uint64_t>(get(u64)), ~uint64_t{0} - 1);
  EXPECT_EQ(get(f16).type, AttributeType::kF16);
  EXPECT_EQ(DataAs<uint16_t>(get(f16)), 0x3C00);
  EXPECT_EQ(get(bf16).type, AttributeType::kBF16);
  EXPECT_EQ(DataAs<uint16_t>(get(bf16)), 0x3F80);
  EXPECT_EQ(DataAs<float>(get(f32)), 1.5f);
  EXPECT_EQ(DataAs<double>(get(f64)), -2.25);
  for (uint32_t scalar : {b, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16,
                          f32, f64, type, symbol}) {
    EXPECT_EQ(get(scalar).count, 1u) << scalar;
  }
  EXPECT_EQ(get(str).type, AttributeType::kString);
  EXPECT_EQ(StringData(get(str)), "hello, sluice");
  EXPECT_EQ(get(empty_str).count, 0u);
  EXPECT_EQ(get(type).type, AttributeType::kType);
  EXPECT_EQ(DataAs<uint32_t>(get(type)), f32_type);
  EXPECT_EQ(get(symbol).type, AttributeType::kSymbol);
  EXPECT_EQ(DataAs<uint32_t>(get(symbol)), callee);
  EXPECT_EQ(get(unit).type, AttributeType::kUnit);
  EXPECT_EQ(get(unit).count, 0u);
  EXPECT_EQ(get(c64).type, AttributeType::kComplex64);
  EXPECT_EQ(get(c64).count, 2u);
  EXPECT_EQ(DataAs<float>(get(c64), 1), -2.0f);
  EXPECT_EQ(get(c128).count, 2u);
  EXPECT_EQ(DataAs<double>(get(c128), 0), 3.5);
  EXPECT_EQ(DataAs<double>(get(c128), 1), 4.5);

  EXPECT_EQ(get(empty_array).type, AttributeType::kArray);
  EXPECT_EQ(get(empty_array).count, 0u);
  const SbfAttribute outer_attribute = get(outer);
  ASSERT_EQ(outer_attribute.count, 3u);
  EXPECT_EQ(DataAs<uint32_t>(outer_attribute, 0), inner);
  EXPECT_EQ(DataAs<uint32_t>(outer_attribute, 1), empty_array);
  EXPECT_EQ(DataAs<uint32_t>(outer_attribute, 2), b);
  const SbfAttribute inner_attribute =
      get(DataAs<uint32_t>(outer_attribute, 0));
  ASSERT_EQ(inner_attribute.count, 2u);
  EXPECT_EQ(DataAs<int32_t>(get(DataAs<uint32_t>(inner_attribute, 0))),
            -320000);
  EXPECT_EQ(StringData(get(DataAs<uint32_t>(inner_attribute, 1))),
            "hello, sluice");

  EXPECT_EQ(static_cast<uint32_t>(get(dense).type), 0x100u + 4);
  ASSERT_EQ(get(dense).count, 3u);
  EXPECT_EQ(DataAs<int32_t>(get(dense), 1), -2);
  EXPECT_EQ(static_cast<uint32_t>(get(dense_f64).type), 0x100u + 13);
  EXPECT_EQ(DataAs<double>(get(dense_f64), 1), 0.25);
  EXPECT_EQ(get(dense_bool).count, 5u);
  EXPECT_EQ(DataAs<uint8_t>(get(dense_bool), 3), 1);
  EXPECT_EQ(get(empty_dense).count, 0u);

  // Dense elements: element type, rank, dimensions, then the elements.
  const SbfAttribute tensor_attribute = get(tensor);
  EXPECT_EQ(tensor_attribute.type, AttributeType::kDenseElements);
  ASSERT_EQ(tensor_attribute.count, 8u + 16 + 12);
  EXPECT_EQ(DataAs<uint32_t>(tensor_attribute, 0),
            static_cast<uint32_t>(AttributeType::kI16));
  EXPECT_EQ(DataAs<uint32_t>(tensor_attribute, 1), 2u);
  EXPECT_EQ(DataAs<int64_t>(tensor_attribute, 1), 2);
  EXPECT_EQ(DataAs<int64_t>(tensor_attribute, 2), 3);
  EXPECT_EQ(DataAs<int16_t>(tensor_attribute, 12 + 3), -4);
  const SbfAttribute bool_attribute = get(bool_tensor);
  ASSERT_EQ(bool_attribute.count, 9u);
  EXPECT_EQ(DataAs<uint32_t>(bool_attribute, 1), 0u);
  EXPECT_EQ(DataAs<uint8_t>(bool_attribute, 8), 1);
  EXPECT_EQ(get(empty_tensor).count, 8u + 24);
}

// A program with every kind of function and the cases of users lists.
class ProgramRoundTripTest : public ::testing::TestWithParam<bool> {};

TEST_P(ProgramRoundTripTest, FunctionsBodiesAndTables) {
  const bool optional_sections = GetParam();
  SbfWriter writer;
  const uint32_t i32 = writer.AddType("i32");
  const uint32_t chain = writer.AddType("!tfrt.chain");
  const uint32_t add = writer.AddKernelName("tfrt.add.i32");
  const uint32_t call = writer.AddKernelName("tfrt.call");
  const uint32_t if_kernel = writer.AddKernelName("tfrt.if");
  const uint32_t loc0 = writer.AddLocation("prog.mlir", 3, 8, "add");
  const uint32_t loc1 = writer.AddLocation("", 0, 0, std::nullopt);
  const uint32_t loc2 = writer.AddLocation("prog.mlir", 9, 1, "");

  const uint32_t main = writer.DeclareFunction("main", FunctionKind::kFunction,
                                               {i32, i32, chain}, {i32, i32});
  const uint32_t native = writer.DeclareFunction(
      "native_add", FunctionKind::kNative, {i32, i32}, {i32});
  const uint32_t region =
      writer.DeclareFunction("", FunctionKind::kRegion, {i32}, {i32});
  const uint32_t empty =
      writer.DeclareFunction("empty", FunctionKind::kFunction, {}, {});
  const uint32_t callee_attr = writer.AddSymbolAttribute(native);
  const uint32_t callee_name = writer.AddString("callee");

  // Region: r1 = add(r0, r0): one kernel takes the same register twice.
  BodyDescription region_body;
  region_body.num_registers = 2;
  region_body.argument_registers = {0};
  region_body.result_registers = {1};
  region_body.kernels.push_back({add, loc0, {0, 0}, {1}, {}, {}, {}});
  writer.DefineFunction(region, region_body);

  // Bodies may be defined in any order.
  writer.DefineFunction(empty, BodyDescription());

  // main(r0, r1, r2):
  //   k0: r3 = add(r0, r1)
  //   k1: r4 = call @native_add(r3, r0)
  //   k2: r5 = if(r3, r3) { region }
  //   k3: (no results) add(r4, r5, r3)
  //   return r5, r5
  BodyDescription main_body;
  main_body.num_registers = 6;
  main_body.argument_registers = {0, 1, 2};
  main_body.result_registers = {5, 5};
  main_body.kernels.push_back({add, loc0, {0, 1}, {3}, {}, {}, {}});
  main_body.kernels.push_back(
      {call, loc1, {3, 0}, {4}, {callee_attr}, {callee_name}, {native}});
  main_body.kernels.push_back({if_kernel, loc2, {3, 3}, {5}, {}, {}, {region}});
  main_body.kernels.push_back({add, loc0, {4, 5, 3}, {}, {}, {}, {}});
  main_body.register_types = {i32, i32, chain, i32, i32, i32};
  writer.DefineFunction(main, main_body);

  const std::vector<uint8_t> bytes = writer.Finish(optional_sections);
  const SbfProgram program = ReadOrDie(bytes);
  EXPECT_THAT(program.types, ElementsAre("i32", "!tfrt.chain"));
  EXPECT_THAT(program.kernel_names,
              ElementsAre("tfrt.add.i32", "tfrt.call", "tfrt.if"));
  ASSERT_EQ(program.locations.size(), 3u);
  EXPECT_EQ(program.locations[0].file, "prog.mlir");
  EXPECT_EQ(program.locations[0].line, 3u);
  EXPECT_EQ(program.locations[0].column, 8u);
  EXPECT_TRUE(program.locations[0].has_debug_name);
  EXPECT_EQ(program.locations[0].debug_name, "add");
  EXPECT_EQ(program.locations[1].file, "");
  EXPECT_FALSE(program.locations[1].has_debug_name);
  EXPECT_TRUE(program.locations[2].has_debug_name);
  EXPECT_EQ(program.locations[2].debug_name, "");
  // Read again in place, as a loaded program does after dropping the vector.
  for (uint32_t i = 0; i < program.locations.size(); ++i) {
    const SbfLocation& decoded = program.locations[i];
    const SbfLocation in_place = program.LocationAt(i);
    EXPECT_EQ(in_place.file, decoded.file) << "location " << i;
    EXPECT_EQ(in_place.line, decoded.line) << "location " << i;
    EXPECT_EQ(in_place.column, decoded.column) << "location " << i;
    EXPECT_EQ(in_place.has_debug_name, decoded.has_debug_name)
        << "location " << i;
    EXPECT_EQ(in_place.debug_name, decoded.debug_name) << "location " << i;
    EXPECT_EQ(in_place.record, decoded.record) << "location " << i;
  }
  EXPECT_EQ(program.has_register_types, optional_sections);

  ASSERT_EQ(program.functions.size(), 4u);
  const SbfFunction& m = program.functions[main];
  EXPECT_EQ(m.name, "main");
  EXPECT_EQ(m.kind, FunctionKind::kFunction);
  EXPECT_THAT(m.argument_types, ElementsAre(i32, i32, chain));
  EXPECT_THAT(m.result_types, ElementsAre(i32, i32));
  EXPECT_EQ(m.num_registers, 6u);
  EXPECT_THAT(m.argument_registers, ElementsAre(0, 1, 2));
  EXPECT_THAT(m.result_registers, ElementsAre(5, 5));
  // r0 is used by k0 and k1, r1 by k0, r2 by nobody.
  EXPECT_THAT(m.argument_users,
              ElementsAre(ElementsAre(0, 1), ElementsAre(0), IsEmpty()));
  ASSERT_EQ(m.kernels.size(), 4u);
  EXPECT_EQ(m.kernels[0].name_index, add);
  EXPECT_EQ(m.kernels[0].location_index, loc0);
  EXPECT_THAT(m.kernels[0].operands, ElementsAre(0, 1));
  EXPECT_THAT(m.kernels[0].results, ElementsAre(3));
  // r3 feeds k1 once, k2 twice and k3 once: listed once per use, ascending.
  EXPECT_THAT(m.kernels[0].users, ElementsAre(ElementsAre(1, 2, 2, 3)));
  EXPECT_EQ(m.kernels[1].name_index, call);
  EXPECT_THAT(m.kernels[1].attributes, ElementsAre(callee_attr));
  EXPECT_THAT(m.kernels[1].attribute_names, ElementsAre("callee"));
  EXPECT_THAT(m.kernels[1].functions, ElementsAre(native));
  EXPECT_THAT(m.kernels[1].users, ElementsAre(ElementsAre(3)));
  EXPECT_THAT(m.kernels[2].functions, ElementsAre(region));
  EXPECT_THAT(m.kernels[2].users, ElementsAre(ElementsAre(3)));
  EXPECT_THAT(m.kernels[3].operands, ElementsAre(4, 5, 3));
  EXPECT_THAT(m.kernels[3].results, IsEmpty());
  EXPECT_THAT(m.kernels[3].users, IsEmpty());
  EXPECT_EQ(program.GetAttribute(callee_attr).type, AttributeType::kSymbol);

  const SbfFunction& n = program.functions[native];
  EXPECT_EQ(n.name, "native_add");
  EXPECT_EQ(n.kind, FunctionKind::kNative);
  EXPECT_THAT(n.argument_types, ElementsAre(i32, i32));
  EXPECT_THAT(n.result_types, ElementsAre(i32));
  EXPECT_EQ(n.num_registers, 0u);
  EXPECT_THAT(n.kernels, IsEmpty());
  EXPECT_THAT(n.register_types, IsEmpty());

  const SbfFunction& r = program.functions[region];
  EXPECT_EQ(r.name, "");
  EXPECT_EQ(r.kind, FunctionKind::kRegion);
  EXPECT_EQ(r.num_registers, 2u);
  EXPECT_THAT(r.argument_users, ElementsAre(ElementsAre(0, 0)));
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_THAT(r.kernels[0].users, ElementsAre(IsEmpty()));
  EXPECT_THAT(r.result_registers, ElementsAre(1));

  const SbfFunction& e = program.functions[empty];
  EXPECT_EQ(e.kind, FunctionKind::kFunction);
  EXPECT_EQ(e.num_registers, 0u);
  EXPECT_THAT(e.argument_registers, IsEmpty());
  EXPECT_THAT(e.kernels, IsEmpty());

  if (optional_sections) {
    EXPECT_THAT(m.register_types, ElementsAre(i32, i32, chain, i32, i32, i32));
    // Without types from the compiler, each register is "unknown".
    EXPECT_THAT(r.register_types, ElementsAre(kNone, kNone));
    EXPECT_THAT(e.register_types, IsEmpty());
  } else {
    EXPECT_THAT(m.register_types, IsEmpty());
    EXPECT_THAT(r.register_types, IsEmpty());
  }
}

INSTANTIATE_TEST_SUITE_P(OptionalSections, ProgramRoundTripTest,
                         ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "WithRegisterTypes"
                                             : "WithoutRegisterTypes";
                         });

TEST(SbfRoundTripTest, EmptyProgram) {
  SbfWriter writer;
  const std::vector<uint8_t> bytes = writer.Finish();
  const SbfProgram program = ReadOrDie(bytes);
  EXPECT_THAT(program.types, IsEmpty());
  EXPECT_THAT(program.kernel_names, IsEmpty());
  EXPECT_THAT(program.locations, IsEmpty());
  EXPECT_THAT(program.functions, IsEmpty());
  EXPECT_TRUE(program.attributes_section.empty());
  EXPECT_TRUE(program.has_register_types);
}

TEST(SbfRoundTripTest, WritingIsDeterministic) {
  auto build = [] {
    SbfWriter writer;
    const uint32_t t = writer.AddType("i32");
    const uint32_t f =
        writer.DeclareFunction("f", FunctionKind::kFunction, {t}, {t});
    BodyDescription body;
    body.num_registers = 1;
    body.argument_registers = {0};
    body.result_registers = {0};
    writer.DefineFunction(f, body);
    return writer.Finish();
  };
  EXPECT_EQ(build(), build());
}

using SbfWriterDeathTest = ::testing::Test;

TEST(SbfWriterDeathTest, ProgrammingErrorsFailChecks) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        writer.DefineFunction(0, BodyDescription());
      },
      "defining function 0 but only 0 functions were declared");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        const uint32_t f =
            writer.DeclareFunction("n", FunctionKind::kNative, {}, {});
        writer.DefineFunction(f, BodyDescription());
      },
      "cannot have a body");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        const uint32_t f =
            writer.DeclareFunction("f", FunctionKind::kFunction, {}, {});
        writer.DefineFunction(f, BodyDescription());
        writer.DefineFunction(f, BodyDescription());
      },
      "defined twice");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        writer.DeclareFunction("f", FunctionKind::kFunction, {}, {});
        writer.Finish();
      },
      "declared with a body but not defined");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        writer.AddArrayAttribute({8});
      },
      "not a reference to an attribute added earlier");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        writer.AddTypeAttribute(0);
      },
      "only 0 types were added");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        const uint32_t f =
            writer.DeclareFunction("f", FunctionKind::kFunction, {}, {});
        BodyDescription body;
        body.num_registers = 1;
        body.kernels.push_back({0, 0, {3}, {}, {}, {}, {}});
        writer.DefineFunction(f, body);
      },
      "uses register 3 but has 1 registers");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        writer.AddScalar<int32_t>(AttributeType::kI64, 1);
      },
      "takes 8 bytes, not 4");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        writer.AddDenseElementsAttribute(AttributeType::kString, {}, "x");
      },
      "dense elements hold scalars or complex numbers, not string");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        const int64_t shape[1] = {-1};
        writer.AddDenseElementsAttribute(AttributeType::kI32, shape, nullptr);
      },
      "dimension -1 < 0");
  EXPECT_DEATH(
      {
        SbfWriter writer;
        // No braced list: its comma would split the macro's argument.
        uint8_t values[2];
        values[0] = 0;
        values[1] = 2;
        const int64_t shape[1] = {2};
        writer.AddDenseElementsAttribute(AttributeType::kBool, shape, values);
      },
      "dense bool element 1 is 2, not 0 or 1");
}

}  // namespace
}  // namespace bef
}  // namespace sluice
