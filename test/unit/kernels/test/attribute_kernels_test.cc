#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/bef/sbf_writer.h"
#include "sluice/kernels/test_kernels.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class AttributeKernelsTest : public ::testing::Test {
 protected:
  AttributeKernelsTest() : host_("s", DecodedLocation{"prog.mlir", 4, 2}) {
    EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok());
  }

  // A program whose only content is `value`'s attribute entries; returns
  // the reference of the attribute `build` made.
  template <typename Build>
  uint32_t MakeAttributes(Build build) {
    bef::SbfWriter writer;
    const uint32_t reference = build(writer);
    bytes_ = writer.Finish();
    absl::StatusOr<bef::SbfProgram> program = bef::ReadSbf(bytes_);
    EXPECT_TRUE(program.ok()) << program.status();
    if (program.ok()) program_ = *std::move(program);
    return reference;
  }

  test_util::KernelTestHost host_;
  std::vector<uint8_t> bytes_;
  bef::SbfProgram program_;
};

TEST_F(AttributeKernelsTest, FlatFlattensNestedArraysDepthFirst) {
  const uint32_t value = MakeAttributes([](bef::SbfWriter& w) {
    const uint32_t s = w.AddStringAttribute("string");
    const uint32_t one = w.AddScalar<int32_t>(bef::AttributeType::kI32, 1);
    const uint32_t zero = w.AddScalar<int32_t>(bef::AttributeType::kI32, 0);
    const uint32_t inner = w.AddArrayAttribute({one, zero});
    const uint32_t first = w.AddArrayAttribute({s, inner});
    const uint32_t f = w.AddScalar<float>(bef::AttributeType::kF32, 1.5f);
    const uint32_t second = w.AddArrayAttribute({f});
    return w.AddArrayAttribute({first, second});
  });
  KernelFrameBuilder frame = host_.Frame("tfrt_test.flat");
  frame.SetAttributeSection(program_.attributes_section)
      .AddAttribute(program_.AttributeData(value))
      .SetNumResults(4);
  host_.Invoke(frame, "tfrt_test.flat");
  EXPECT_EQ(frame.result(0)->get<std::string>(), "string");
  EXPECT_EQ(frame.result(1)->get<int32_t>(), 1);
  EXPECT_EQ(frame.result(2)->get<int32_t>(), 0);
  EXPECT_EQ(frame.result(3)->get<float>(), 1.5f);
}

TEST_F(AttributeKernelsTest, FlatRejectsTooFewResults) {
  const uint32_t value = MakeAttributes([](bef::SbfWriter& w) {
    const uint32_t a = w.AddScalar<int64_t>(bef::AttributeType::kI64, 7);
    return w.AddArrayAttribute({a, a});
  });
  KernelFrameBuilder frame = host_.Frame("tfrt_test.flat");
  frame.SetAttributeSection(program_.attributes_section)
      .AddAttribute(program_.AttributeData(value))
      .SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.flat");
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_THAT(host_.diagnostics(),
              ElementsAre(HasSubstr("tfrt_test.flat: the attribute has 2 "
                                    "leaves but the op has 1 results")));
}

TEST_F(AttributeKernelsTest, UniqueLocFailsWhenTwoOpsShareARecord) {
  const int record = 0;  // any address identifies a record
  KernelFrameBuilder first = host_.Frame("tfrt_test.unique_loc");
  first.SetLocationRecord(&record)
      .AddAttribute(first.attribute_buffer().AddString("a"))
      .SetNumResults(1);
  host_.Invoke(first, "tfrt_test.unique_loc");
  EXPECT_TRUE(first.result(0)->IsConcrete());

  // The same op again is fine; another op at the same record is not.
  KernelFrameBuilder again = host_.Frame("tfrt_test.unique_loc");
  again.SetLocationRecord(&record)
      .AddAttribute(again.attribute_buffer().AddString("a"))
      .SetNumResults(1);
  host_.Invoke(again, "tfrt_test.unique_loc");
  EXPECT_TRUE(again.result(0)->IsConcrete());

  KernelFrameBuilder other = host_.Frame("tfrt_test.unique_loc");
  other.SetLocationRecord(&record)
      .AddAttribute(other.attribute_buffer().AddString("b"))
      .SetNumResults(1);
  host_.Invoke(other, "tfrt_test.unique_loc");
  ASSERT_TRUE(other.result(0)->IsError());
  EXPECT_EQ(other.result(0)->GetError().message(), "duplicate locations");
  EXPECT_THAT(host_.diagnostics(),
              ElementsAre("prog.mlir:4:2: error: runtime error: duplicate "
                          "locations"));
}

}  // namespace
}  // namespace sluice
