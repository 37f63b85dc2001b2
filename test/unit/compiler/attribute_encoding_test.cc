// Each kind of MLIR attribute in the encoding docs/format.md gives it, as a
// kernel reads it.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "compiler_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/bef/format.h"
#include "sluice/bef/sbf_reader.h"

namespace sluice {
namespace {

using bef::AttributeType;
using ::sluice::testing::Compile;
using ::sluice::testing::Compiled;
using ::sluice::testing::Scalar;
using ::sluice::testing::StringData;

// The count a kernel sees: the 4 bytes right before the data.
uint32_t CountBefore(const bef::SbfAttribute& attribute) {
  uint32_t count;
  std::memcpy(&count, static_cast<const uint8_t*>(attribute.data) - 4, 4);
  return count;
}

AttributeType Dense(AttributeType element) {
  return static_cast<AttributeType>(
      static_cast<uint32_t>(AttributeType::kDenseArrayBase) +
      static_cast<uint32_t>(element));
}

class AttributeEncodingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    compiled_ = Compile(R"mlir(
      func.func @f() {
        "t.op"() {
          b_true = true, b_false = false, b_i1 = 1 : i1,
          i8 = -3 : i8, i16 = -300 : i16, i32 = 7 : i32,
          i64 = -9000000000 : i64, si32 = -5 : si32, idx = 5 : index,
          u8 = 250 : ui8, u16 = 65000 : ui16, u32 = 4000000000 : ui32,
          u64 = 18446744073709551615 : ui64,
          h = 1.5 : f16, bh = -2.0 : bf16, f = 2.5 : f32, d = -0.25 : f64,
          s = "hello", empty = "",
          t = i64, tc = complex<f32>,
          u,
          arr = [1 : i32, "x", [2.0 : f32]],
          empty_arr = [],
          di8 = array<i8: 1, -2>, di16 = array<i16: 300>,
          di32 = array<i32: 1, 2, 3>, di64 = array<i64: 4>,
          df32 = array<f32: 1.0, -1.0>, df64 = array<f64: 2.0>,
          dbool = array<i1: true, false, true>, dempty = array<i32>,
          tensor = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>,
          splat = dense<7> : tensor<3xi64>, scalar = dense<2.5> : tensor<f32>,
          bits = dense<[true, false, true]> : tensor<3xi1>,
          complex = dense<(1.0, -2.0)> : tensor<1xcomplex<f32>>
        } : () -> ()
        "tfrt.return"() : () -> ()
      }
    )mlir");
    ASSERT_NE(compiled_, nullptr);
    kernel_ = &compiled_->Function("f").kernels.at(0);
  }

  bef::SbfAttribute Get(std::string_view name) {
    return compiled_->Attribute(*kernel_, name);
  }

  std::unique_ptr<Compiled> compiled_;
  const bef::SbfKernel* kernel_ = nullptr;
};

TEST_F(AttributeEncodingTest, Booleans) {
  for (std::string_view name : {"b_true", "b_false", "b_i1"}) {
    const bef::SbfAttribute attribute = Get(name);
    EXPECT_EQ(attribute.type, AttributeType::kBool) << name;
    EXPECT_EQ(attribute.count, 1u) << name;
  }
  EXPECT_EQ(Scalar<uint8_t>(Get("b_true")), 1);
  EXPECT_EQ(Scalar<uint8_t>(Get("b_false")), 0);
  EXPECT_EQ(Scalar<uint8_t>(Get("b_i1")), 1);
}

TEST_F(AttributeEncodingTest, SignedAndSignlessIntegers) {
  EXPECT_EQ(Get("i8").type, AttributeType::kI8);
  EXPECT_EQ(Scalar<int8_t>(Get("i8")), -3);
  EXPECT_EQ(Get("i16").type, AttributeType::kI16);
  EXPECT_EQ(Scalar<int16_t>(Get("i16")), -300);
  // MLIR's i32 is signless: the format's i32.
  EXPECT_EQ(Get("i32").type, AttributeType::kI32);
  EXPECT_EQ(Scalar<int32_t>(Get("i32")), 7);
  EXPECT_EQ(Get("i64").type, AttributeType::kI64);
  EXPECT_EQ(Scalar<int64_t>(Get("i64")), -9000000000);
  EXPECT_EQ(Get("si32").type, AttributeType::kI32);
  EXPECT_EQ(Scalar<int32_t>(Get("si32")), -5);
  EXPECT_EQ(Get("idx").type, AttributeType::kI64);
  EXPECT_EQ(Scalar<int64_t>(Get("idx")), 5);
}

TEST_F(AttributeEncodingTest, UnsignedIntegers) {
  EXPECT_EQ(Get("u8").type, AttributeType::kUI8);
  EXPECT_EQ(Scalar<uint8_t>(Get("u8")), 250u);
  EXPECT_EQ(Get("u16").type, AttributeType::kUI16);
  EXPECT_EQ(Scalar<uint16_t>(Get("u16")), 65000u);
  EXPECT_EQ(Get("u32").type, AttributeType::kUI32);
  EXPECT_EQ(Scalar<uint32_t>(Get("u32")), 4000000000u);
  EXPECT_EQ(Get("u64").type, AttributeType::kUI64);
  EXPECT_EQ(Scalar<uint64_t>(Get("u64")), 18446744073709551615u);
}

TEST_F(AttributeEncodingTest, Floats) {
  EXPECT_EQ(Get("h").type, AttributeType::kF16);
  EXPECT_EQ(Scalar<uint16_t>(Get("h")), 0x3E00);  // 1.5 in binary16
  EXPECT_EQ(Get("bh").type, AttributeType::kBF16);
  EXPECT_EQ(Scalar<uint16_t>(Get("bh")), 0xC000);  // -2.0 in bfloat16
  EXPECT_EQ(Get("f").type, AttributeType::kF32);
  EXPECT_EQ(Scalar<float>(Get("f")), 2.5f);
  EXPECT_EQ(Get("d").type, AttributeType::kF64);
  EXPECT_EQ(Scalar<double>(Get("d")), -0.25);
}

TEST_F(AttributeEncodingTest, Strings) {
  EXPECT_EQ(Get("s").type, AttributeType::kString);
  EXPECT_EQ(StringData(Get("s")), "hello");
  EXPECT_EQ(CountBefore(Get("s")), 5u);
  EXPECT_EQ(Get("empty").type, AttributeType::kString);
  EXPECT_EQ(Get("empty").count, 0u);
}

TEST_F(AttributeEncodingTest, TypesAreIndicesIntoTypes) {
  const bef::SbfAttribute t = Get("t");
  EXPECT_EQ(t.type, AttributeType::kType);
  EXPECT_EQ(compiled_->Type(Scalar<uint32_t>(t)), "i64");
  EXPECT_EQ(compiled_->Type(Scalar<uint32_t>(Get("tc"))), "complex<f32>");
}

TEST_F(AttributeEncodingTest, Unit) {
  EXPECT_EQ(Get("u").type, AttributeType::kUnit);
  EXPECT_EQ(Get("u").count, 0u);
}

TEST_F(AttributeEncodingTest, ArraysReferToEarlierElements) {
  const uint32_t reference = kernel_->attributes.at(0);  // "arr" sorts first
  ASSERT_EQ(kernel_->attribute_names.at(0), "arr");
  const bef::SbfAttribute array = compiled_->program.GetAttribute(reference);
  ASSERT_EQ(array.type, AttributeType::kArray);
  ASSERT_EQ(array.count, 3u);
  EXPECT_EQ(CountBefore(array), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_LT(Scalar<uint32_t>(array, i), reference);
  }
  const bef::SbfProgram& program = compiled_->program;
  const bef::SbfAttribute first = program.GetAttribute(Scalar<uint32_t>(array));
  EXPECT_EQ(first.type, AttributeType::kI32);
  EXPECT_EQ(Scalar<int32_t>(first), 1);
  const bef::SbfAttribute second =
      program.GetAttribute(Scalar<uint32_t>(array, 1));
  EXPECT_EQ(StringData(second), "x");
  const bef::SbfAttribute nested =
      program.GetAttribute(Scalar<uint32_t>(array, 2));
  ASSERT_EQ(nested.type, AttributeType::kArray);
  ASSERT_EQ(nested.count, 1u);
  EXPECT_EQ(Scalar<float>(program.GetAttribute(Scalar<uint32_t>(nested))),
            2.0f);

  EXPECT_EQ(Get("empty_arr").type, AttributeType::kArray);
  EXPECT_EQ(Get("empty_arr").count, 0u);
}

TEST_F(AttributeEncodingTest, DenseArrays) {
  const bef::SbfAttribute di8 = Get("di8");
  EXPECT_EQ(di8.type, Dense(AttributeType::kI8));
  ASSERT_EQ(di8.count, 2u);
  EXPECT_EQ(Scalar<int8_t>(di8, 1), -2);
  EXPECT_EQ(Get("di16").type, Dense(AttributeType::kI16));
  EXPECT_EQ(Scalar<int16_t>(Get("di16")), 300);
  const bef::SbfAttribute di32 = Get("di32");
  EXPECT_EQ(di32.type, Dense(AttributeType::kI32));
  ASSERT_EQ(di32.count, 3u);
  EXPECT_EQ(CountBefore(di32), 3u);
  EXPECT_EQ(Scalar<int32_t>(di32, 0), 1);
  EXPECT_EQ(Scalar<int32_t>(di32, 2), 3);
  EXPECT_EQ(Get("di64").type, Dense(AttributeType::kI64));
  EXPECT_EQ(Scalar<int64_t>(Get("di64")), 4);
  const bef::SbfAttribute df32 = Get("df32");
  EXPECT_EQ(df32.type, Dense(AttributeType::kF32));
  EXPECT_EQ(Scalar<float>(df32, 1), -1.0f);
  EXPECT_EQ(Get("df64").type, Dense(AttributeType::kF64));
  EXPECT_EQ(Scalar<double>(Get("df64")), 2.0);
  const bef::SbfAttribute dbool = Get("dbool");
  EXPECT_EQ(dbool.type, Dense(AttributeType::kBool));
  ASSERT_EQ(dbool.count, 3u);
  EXPECT_EQ(Scalar<uint8_t>(dbool, 0), 1);
  EXPECT_EQ(Scalar<uint8_t>(dbool, 1), 0);
  EXPECT_EQ(Scalar<uint8_t>(dbool, 2), 1);
  EXPECT_EQ(Get("dempty").type, Dense(AttributeType::kI32));
  EXPECT_EQ(Get("dempty").count, 0u);
}

// The element type, the rank, the dimensions, then every element (a splat
// written out), as docs/format.md lays them out.
struct DenseElements {
  uint32_t element_type;
  std::vector<int64_t> shape;
  const uint8_t* elements;
};

DenseElements ReadDenseElements(const bef::SbfAttribute& attribute) {
  EXPECT_EQ(attribute.type, AttributeType::kDenseElements);
  DenseElements dense;
  dense.element_type = Scalar<uint32_t>(attribute, 0);
  const uint32_t rank = Scalar<uint32_t>(attribute, 1);
  for (uint32_t i = 0; i < rank; ++i) {
    dense.shape.push_back(Scalar<int64_t>(attribute, 1 + i));
  }
  dense.elements = static_cast<const uint8_t*>(attribute.data) + 8 + 8 * rank;
  return dense;
}

template <typename T>
T Element(const DenseElements& dense, size_t i) {
  T value;
  std::memcpy(&value, dense.elements + i * sizeof(T), sizeof(T));
  return value;
}

TEST_F(AttributeEncodingTest, DenseElements) {
  const DenseElements tensor = ReadDenseElements(Get("tensor"));
  EXPECT_EQ(tensor.element_type, static_cast<uint32_t>(AttributeType::kI32));
  EXPECT_THAT(tensor.shape, ::testing::ElementsAre(2, 3));
  EXPECT_EQ(Get("tensor").count, 8u + 16 + 24);
  EXPECT_EQ(Element<int32_t>(tensor, 0), 1);
  EXPECT_EQ(Element<int32_t>(tensor, 5), 6);

  const DenseElements splat = ReadDenseElements(Get("splat"));
  EXPECT_THAT(splat.shape, ::testing::ElementsAre(3));
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(Element<int64_t>(splat, i), 7);

  const DenseElements scalar = ReadDenseElements(Get("scalar"));
  EXPECT_THAT(scalar.shape, ::testing::IsEmpty());
  EXPECT_EQ(Element<float>(scalar, 0), 2.5f);

  // One byte per boolean, whatever MLIR's own packing.
  const DenseElements bits = ReadDenseElements(Get("bits"));
  EXPECT_EQ(bits.element_type, static_cast<uint32_t>(AttributeType::kBool));
  EXPECT_EQ(Get("bits").count, 8u + 8 + 3);
  EXPECT_EQ(Element<uint8_t>(bits, 0), 1);
  EXPECT_EQ(Element<uint8_t>(bits, 1), 0);
  EXPECT_EQ(Element<uint8_t>(bits, 2), 1);

  const DenseElements complex = ReadDenseElements(Get("complex"));
  EXPECT_EQ(complex.element_type,
            static_cast<uint32_t>(AttributeType::kComplex64));
  EXPECT_EQ(Element<float>(complex, 0), 1.0f);
  EXPECT_EQ(Element<float>(complex, 1), -2.0f);
}

TEST(AttributeSharingTest, EqualAttributesShareOneEntry) {
  std::unique_ptr<Compiled> compiled = Compile(R"mlir(
    func.func @f() {
      %a = "tfrt.constant.i32"() {value = 42 : i32} : () -> i32
      %b = "tfrt.constant.i32"() {value = 42 : i32} : () -> i32
      %c = "tfrt.constant.i64"() {value = 42 : i64} : () -> i64
      "tfrt.return"() : () -> ()
    }
  )mlir");
  ASSERT_NE(compiled, nullptr);
  const bef::SbfFunction& f = compiled->Function("f");
  EXPECT_EQ(f.kernels[0].attributes, f.kernels[1].attributes);
  EXPECT_NE(f.kernels[0].attributes, f.kernels[2].attributes);
}

}  // namespace
}  // namespace sluice
