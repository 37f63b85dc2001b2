// Chains, constants, arithmetic, comparisons and casts, called through
// KernelFrameBuilder the way the executor calls them.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/basic/basic_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/kernel/attribute_buffer.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/error_util.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int32_t kMaxI32 = std::numeric_limits<int32_t>::max();
constexpr int32_t kMinI32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMinI64 = std::numeric_limits<int64_t>::min();

// Checks that result `index` is available, not an error, and equals
// `expected` (get<T>() also checks the payload type in debug builds).
template <typename T>
void ExpectResult(const KernelFrameBuilder& frame, size_t index,
                  const T& expected) {
  const AsyncValue* value = frame.result(index).get();
  ASSERT_NE(value, nullptr) << "result " << index << " was never set";
  ASSERT_FALSE(value->IsError()) << value->GetError();
  ASSERT_TRUE(value->IsConcrete()) << "result " << index << " is unavailable";
  if constexpr (std::is_same_v<T, Chain>) {
    (void)value->get<Chain>();  // A chain has nothing to compare.
    (void)expected;
  } else {
    EXPECT_EQ(value->get<T>(), expected) << "result " << index;
  }
}

void ExpectDivideByZero(const KernelFrameBuilder& frame, size_t index,
                        std::string_view kernel) {
  const AsyncValue* value = frame.result(index).get();
  ASSERT_NE(value, nullptr);
  ASSERT_TRUE(value->IsError());
  EXPECT_EQ(value->GetError().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(value->GetError().message(), "Divide by zero");
  EXPECT_EQ(GetErrorContext(value->GetError()).kernel, kernel);
}

class ValueKernelsTest : public ::testing::Test {
 protected:
  ValueKernelsTest() : host_("s", DecodedLocation{"prog.mlir", 3, 8}) {
    EXPECT_TRUE(basic_kernels::RegisterValueKernels(&host_.registry()).ok());
  }

  std::unique_ptr<KernelFrameBuilder> NewFrame(std::string_view kernel) {
    return host_.NewFrame(std::string(kernel));
  }

  // Calls `kernel` on `frame` and waits for its results. Strict kernels get
  // available operands only, as the executor would give them.
  void Run(std::string_view kernel, KernelFrameBuilder& frame) {
    ASSERT_NO_FATAL_FAILURE(host_.Invoke(frame, kernel));
    host_.Await(frame.results());
  }

  // The single result of `kernel` applied to `operands`.
  template <typename R, typename... Ts>
  R Call(std::string_view kernel, Ts... operands) {
    std::unique_ptr<KernelFrameBuilder> frame = NewFrame(kernel);
    (frame->AddAvailableArg<Ts>(operands), ...);
    frame->SetNumResults(1);
    Run(kernel, *frame);
    const AsyncValue* value = frame->result(0).get();
    if (value == nullptr || !value->IsConcrete()) {
      ADD_FAILURE() << kernel << " produced no value";
      return R{};
    }
    return value->get<R>();
  }

  test_util::KernelTestHost host_;
};

// --- Every kernel, with and without a trailing chain operand -----------------

struct KernelCase {
  std::string kernel;
  // Adds the operands and attributes the op declares.
  std::function<void(KernelFrameBuilder&)> setup;
  size_t num_results;
  std::function<void(const KernelFrameBuilder&)> check;
};

template <typename T>
std::function<void(KernelFrameBuilder&)> Operands(T a, T b) {
  return [a, b](KernelFrameBuilder& frame) {
    frame.AddAvailableArg<T>(a);
    frame.AddAvailableArg<T>(b);
  };
}

template <typename T>
std::function<void(KernelFrameBuilder&)> Operand(T a) {
  return [a](KernelFrameBuilder& frame) { frame.AddAvailableArg<T>(a); };
}

template <typename T>
std::function<void(KernelFrameBuilder&)> ValueAttribute(T value) {
  return [value](KernelFrameBuilder& frame) {
    frame.AddAttribute(frame.attribute_buffer().AddScalar<T>(value));
  };
}

std::function<void(KernelFrameBuilder&)> NoOperands() {
  return [](KernelFrameBuilder&) {};
}

template <typename T>
std::function<void(const KernelFrameBuilder&)> Is(T expected) {
  return [expected](const KernelFrameBuilder& frame) {
    ExpectResult<T>(frame, 0, expected);
  };
}

template <typename T>
std::function<void(const KernelFrameBuilder&)> AreQuotientAndRemainder(
    T quotient, T remainder) {
  return [quotient, remainder](const KernelFrameBuilder& frame) {
    ExpectResult<T>(frame, 0, quotient);
    ExpectResult<T>(frame, 1, remainder);
  };
}

std::vector<KernelCase> AllKernelCases() {
  // Complex constants bind `value`, `real` and `imaginary` by name; a frame
  // built by hand passes them in that order, null where the op has none.
  auto complex_attributes = [](auto real, auto imaginary) {
    return [real, imaginary](KernelFrameBuilder& frame) {
      AttributeBuffer& buffer = frame.attribute_buffer();
      frame.AddAttribute(nullptr)
          .AddAttribute(buffer.AddScalar(real))
          .AddAttribute(buffer.AddScalar(imaginary));
    };
  };
  auto chains = [](KernelFrameBuilder& frame) {
    frame.AddAvailableArg<Chain>().AddAvailableArg<int32_t>(1);
  };
  return {
      {"tfrt.new.chain", NoOperands(), 1, Is(Chain())},
      {"tfrt.merge.chains", chains, 1, Is(Chain())},
      {"tfrt.constant.i1", ValueAttribute<uint8_t>(1), 1, Is(true)},
      {"tfrt.constant.i32", ValueAttribute<int32_t>(42), 1, Is<int32_t>(42)},
      {"tfrt.constant.i64", ValueAttribute<int64_t>(kMinI64), 1,
       Is<int64_t>(kMinI64)},
      {"tfrt.constant.ui32", ValueAttribute<uint32_t>(4000000000u), 1,
       Is<uint32_t>(4000000000u)},
      {"tfrt.constant.ui64", ValueAttribute<uint64_t>(~uint64_t{0}), 1,
       Is<uint64_t>(~uint64_t{0})},
      // 1.0 in IEEE half and in bfloat16.
      {"tfrt.constant.f16", ValueAttribute<uint16_t>(0x3C00), 1,
       Is<uint16_t>(0x3C00)},
      {"tfrt.constant.bf16", ValueAttribute<uint16_t>(0x3F80), 1,
       Is<uint16_t>(0x3F80)},
      {"tfrt.constant.f32", ValueAttribute<float>(1.5f), 1, Is(1.5f)},
      {"tfrt.constant.f64", ValueAttribute<double>(-0.25), 1, Is(-0.25)},
      {"tfrt.constant.complex64", complex_attributes(1.0f, -1.5f), 1,
       Is(std::complex<float>(1.0f, -1.5f))},
      {"tfrt.constant.complex128", complex_attributes(1.0, -1.5), 1,
       Is(std::complex<double>(1.0, -1.5))},
      {"tfrt.add.i32", Operands<int32_t>(40, 2), 1, Is<int32_t>(42)},
      {"tfrt.add.i64", Operands<int64_t>(kMaxI64, 1), 1, Is(kMinI64)},
      {"tfrt.add.f32", Operands(1.5f, 0.25f), 1, Is(1.75f)},
      {"tfrt.add.f64", Operands(1.5, -0.25), 1, Is(1.25)},
      {"tfrt.mul.i32", Operands<int32_t>(-6, 7), 1, Is<int32_t>(-42)},
      {"tfrt.mul.i64", Operands<int64_t>(int64_t{1} << 40, 3), 1,
       Is<int64_t>(int64_t{3} << 40)},
      {"tfrt.div.i32", Operands<int32_t>(-7, 2), 2,
       AreQuotientAndRemainder<int32_t>(-3, -1)},
      {"tfrt.div.i64", Operands<int64_t>(7, -2), 2,
       AreQuotientAndRemainder<int64_t>(-3, 1)},
      {"tfrt.div.f32", Operands(1.0f, 4.0f), 1, Is(0.25f)},
      {"tfrt.div.f64", Operands(-3.0, 2.0), 1, Is(-1.5)},
      {"tfrt.multiply.f32", Operands(1.5f, -2.0f), 1, Is(-3.0f)},
      {"tfrt.multiply.f64", Operands(0.5, 0.5), 1, Is(0.25)},
      {"tfrt.minimum.f32", Operands(2.5f, -1.0f), 1, Is(-1.0f)},
      {"tfrt.minimum.f64", Operands(-2.5, 1.0), 1, Is(-2.5)},
      {"tfrt.minus.i32", Operands<int32_t>(2, 5), 1, Is<int32_t>(-3)},
      {"tfrt.minus.i64", Operands<int64_t>(kMinI64, 1), 1, Is(kMaxI64)},
      {"tfrt.equal.i32", Operands<int32_t>(3, 3), 1, Is(true)},
      {"tfrt.equal.i64", Operands<int64_t>(3, 4), 1, Is(false)},
      {"tfrt.lessequal.i32", Operands<int32_t>(3, 3), 1, Is(true)},
      {"tfrt.lessequal.i64", Operands<int64_t>(4, 3), 1, Is(false)},
      {"tfrt.and.i1", Operands(true, true), 1, Is(true)},
      {"tfrt.cast.i32_to_i64", Operand<int32_t>(-7), 1, Is<int64_t>(-7)},
      {"tfrt.cast.i64_to_f32", Operand<int64_t>(-3), 1, Is(-3.0f)},
      {"tfrt.cast.f32_to_i64", Operand(-2.75f), 1, Is<int64_t>(-2)},
      {"tfrt.cast.i64_to_f64", Operand<int64_t>(737), 1, Is(737.0)},
      {"tfrt.cast.f64_to_i64", Operand(2.75), 1, Is<int64_t>(2)},
  };
}

TEST_F(ValueKernelsTest, RegistersExactlyTheSpecKernels) {
  std::vector<std::string> expected;
  for (const KernelCase& kernel_case : AllKernelCases()) {
    expected.push_back(kernel_case.kernel);
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(host_.registry().KernelNames(), expected);
}

TEST_F(ValueKernelsTest, EveryKernelComputesItsResult) {
  for (const KernelCase& kernel_case : AllKernelCases()) {
    SCOPED_TRACE(kernel_case.kernel);
    std::unique_ptr<KernelFrameBuilder> frame = NewFrame(kernel_case.kernel);
    kernel_case.setup(*frame);
    frame->SetNumResults(kernel_case.num_results);
    Run(kernel_case.kernel, *frame);
    kernel_case.check(*frame);
  }
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

// The spec lets any op take one more !tfrt.chain operand than it declares
// (`"tfrt.lessequal.i32"(%a, %b, %ch)`); it must not change the results.
TEST_F(ValueKernelsTest, EveryKernelIgnoresATrailingChainOperand) {
  for (const KernelCase& kernel_case : AllKernelCases()) {
    SCOPED_TRACE(kernel_case.kernel);
    std::unique_ptr<KernelFrameBuilder> frame = NewFrame(kernel_case.kernel);
    kernel_case.setup(*frame);
    frame->AddAvailableArg<Chain>().SetNumResults(kernel_case.num_results);
    Run(kernel_case.kernel, *frame);
    kernel_case.check(*frame);
  }
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

// --- Chains ------------------------------------------------------------------

TEST_F(ValueKernelsTest, MergeChainsTakesAnyNumberOfOperandsOfAnyType) {
  for (int count : {0, 1, 5}) {
    SCOPED_TRACE(count);
    std::unique_ptr<KernelFrameBuilder> frame = NewFrame("tfrt.merge.chains");
    for (int i = 0; i < count; ++i) {
      if (i % 2 == 0) {
        frame->AddAvailableArg<Chain>();
      } else {
        frame->AddAvailableArg<std::string>("not a chain");
      }
    }
    frame->SetNumResults(1);
    Run("tfrt.merge.chains", *frame);
    ExpectResult(*frame, 0, Chain());
  }
}

// --- Constants ---------------------------------------------------------------

TEST_F(ValueKernelsTest, ConstantI1ReadsTheStoredByte) {
  for (uint8_t byte : {0, 1}) {
    std::unique_ptr<KernelFrameBuilder> frame = NewFrame("tfrt.constant.i1");
    frame->AddAttribute(frame->attribute_buffer().AddScalar<uint8_t>(byte))
        .SetNumResults(1);
    Run("tfrt.constant.i1", *frame);
    ExpectResult(*frame, 0, byte == 1);
  }
}

TEST_F(ValueKernelsTest, ConstantComplexAcceptsOneComplexAttribute) {
  std::unique_ptr<KernelFrameBuilder> frame =
      NewFrame("tfrt.constant.complex128");
  const double parts[] = {1.0, -1.5};  // real, imaginary
  frame->AddAttribute(frame->attribute_buffer().AddArray<double>(parts))
      .SetNumResults(1);
  Run("tfrt.constant.complex128", *frame);
  ExpectResult(*frame, 0, std::complex<double>(1.0, -1.5));

  std::unique_ptr<KernelFrameBuilder> frame64 =
      NewFrame("tfrt.constant.complex64");
  const float parts64[] = {2.0f, 0.5f};
  frame64->AddAttribute(frame64->attribute_buffer().AddArray<float>(parts64))
      .SetNumResults(1);
  Run("tfrt.constant.complex64", *frame64);
  ExpectResult(*frame64, 0, std::complex<float>(2.0f, 0.5f));
}

// --- Integer arithmetic wraps around -----------------------------------------

TEST_F(ValueKernelsTest, IntegerAddWrapsAround) {
  EXPECT_EQ(Call<int32_t>("tfrt.add.i32", kMaxI32, 1), kMinI32);
  EXPECT_EQ(Call<int32_t>("tfrt.add.i32", kMinI32, -1), kMaxI32);
  EXPECT_EQ(Call<int64_t>("tfrt.add.i64", kMaxI64, kMaxI64), int64_t{-2});
  EXPECT_EQ(Call<int64_t>("tfrt.add.i64", int64_t{-5}, int64_t{3}),
            int64_t{-2});
}

TEST_F(ValueKernelsTest, IntegerMulWrapsAround) {
  EXPECT_EQ(Call<int32_t>("tfrt.mul.i32", kMaxI32, 2), -2);
  EXPECT_EQ(Call<int32_t>("tfrt.mul.i32", kMinI32, -1), kMinI32);
  EXPECT_EQ(Call<int32_t>("tfrt.mul.i32", 65536, 65536), 0);
  EXPECT_EQ(Call<int64_t>("tfrt.mul.i64", kMinI64, int64_t{-1}), kMinI64);
  EXPECT_EQ(Call<int64_t>("tfrt.mul.i64", kMaxI64, int64_t{3}),
            kMaxI64 - 2);  // 3 * (2^63 - 1) = 2^63 + (2^63 - 3) mod 2^64
}

TEST_F(ValueKernelsTest, IntegerMinusWrapsAround) {
  EXPECT_EQ(Call<int32_t>("tfrt.minus.i32", kMinI32, 1), kMaxI32);
  EXPECT_EQ(Call<int32_t>("tfrt.minus.i32", 0, kMinI32), kMinI32);
  EXPECT_EQ(Call<int64_t>("tfrt.minus.i64", kMaxI64, int64_t{-1}), kMinI64);
}

// --- Division ----------------------------------------------------------------

TEST_F(ValueKernelsTest, IntegerDivTruncatesTowardZero) {
  struct Case {
    int64_t a, b, quotient, remainder;
  };
  for (const Case& c :
       {Case{7, 2, 3, 1}, Case{-7, 2, -3, -1}, Case{7, -2, -3, 1},
        Case{-7, -2, 3, -1}, Case{0, 5, 0, 0}, Case{6, 3, 2, 0}}) {
    SCOPED_TRACE(testing::Message() << c.a << " / " << c.b);
    std::unique_ptr<KernelFrameBuilder> frame32 = NewFrame("tfrt.div.i32");
    frame32->AddAvailableArg<int32_t>(static_cast<int32_t>(c.a))
        .AddAvailableArg<int32_t>(static_cast<int32_t>(c.b))
        .SetNumResults(2);
    Run("tfrt.div.i32", *frame32);
    ExpectResult(*frame32, 0, static_cast<int32_t>(c.quotient));
    ExpectResult(*frame32, 1, static_cast<int32_t>(c.remainder));

    std::unique_ptr<KernelFrameBuilder> frame64 = NewFrame("tfrt.div.i64");
    frame64->AddAvailableArg<int64_t>(c.a)
        .AddAvailableArg<int64_t>(c.b)
        .SetNumResults(2);
    Run("tfrt.div.i64", *frame64);
    ExpectResult(*frame64, 0, c.quotient);
    ExpectResult(*frame64, 1, c.remainder);
  }
}

// min / -1 has no representable quotient; it wraps like the other integer
// ops instead of trapping.
TEST_F(ValueKernelsTest, IntegerDivOfMinByMinusOneWraps) {
  std::unique_ptr<KernelFrameBuilder> frame32 = NewFrame("tfrt.div.i32");
  frame32->AddAvailableArg<int32_t>(kMinI32)
      .AddAvailableArg<int32_t>(-1)
      .SetNumResults(2);
  Run("tfrt.div.i32", *frame32);
  ExpectResult(*frame32, 0, kMinI32);
  ExpectResult(*frame32, 1, int32_t{0});

  std::unique_ptr<KernelFrameBuilder> frame64 = NewFrame("tfrt.div.i64");
  frame64->AddAvailableArg<int64_t>(kMinI64)
      .AddAvailableArg<int64_t>(-1)
      .SetNumResults(2);
  Run("tfrt.div.i64", *frame64);
  ExpectResult(*frame64, 0, kMinI64);
  ExpectResult(*frame64, 1, int64_t{0});
}

TEST_F(ValueKernelsTest, IntegerDivByZeroFailsBothResults) {
  for (std::string_view kernel : {"tfrt.div.i32", "tfrt.div.i64"}) {
    SCOPED_TRACE(kernel);
    host_.ClearDiagnostics();
    std::unique_ptr<KernelFrameBuilder> frame = NewFrame(kernel);
    if (kernel == "tfrt.div.i32") {
      frame->AddAvailableArg<int32_t>(7).AddAvailableArg<int32_t>(0);
    } else {
      frame->AddAvailableArg<int64_t>(7).AddAvailableArg<int64_t>(0);
    }
    frame->SetNumResults(2);
    Run(kernel, *frame);
    ExpectDivideByZero(*frame, 0, kernel);
    ExpectDivideByZero(*frame, 1, kernel);
    EXPECT_THAT(host_.diagnostics(),
                ElementsAre("prog.mlir:3:8: error: runtime error: "
                            "Divide by zero"));
  }
}

TEST_F(ValueKernelsTest, FloatDivByZeroIsAnError) {
  struct Case {
    std::string_view kernel;
    double divisor;
  };
  for (const Case& c :
       {Case{"tfrt.div.f32", 0.0}, Case{"tfrt.div.f32", -0.0},
        Case{"tfrt.div.f64", 0.0}, Case{"tfrt.div.f64", -0.0}}) {
    SCOPED_TRACE(testing::Message() << c.kernel << " by " << c.divisor);
    host_.ClearDiagnostics();
    std::unique_ptr<KernelFrameBuilder> frame = NewFrame(c.kernel);
    if (c.kernel == "tfrt.div.f32") {
      frame->AddAvailableArg<float>(1.0f).AddAvailableArg<float>(
          static_cast<float>(c.divisor));
    } else {
      frame->AddAvailableArg<double>(1.0).AddAvailableArg<double>(c.divisor);
    }
    frame->SetNumResults(1);
    Run(c.kernel, *frame);
    ExpectDivideByZero(*frame, 0, c.kernel);
    EXPECT_THAT(host_.diagnostics(),
                ElementsAre("prog.mlir:3:8: error: runtime error: "
                            "Divide by zero"));
  }
}

// --- Floating point ----------------------------------------------------------

TEST_F(ValueKernelsTest, FloatArithmetic) {
  EXPECT_EQ(Call<float>("tfrt.div.f32", 1.0f, 3.0f), 1.0f / 3.0f);
  EXPECT_EQ(Call<double>("tfrt.div.f64", 1.0, 3.0), 1.0 / 3.0);
  EXPECT_EQ(Call<float>("tfrt.multiply.f32", 3.0f, 0.1f), 3.0f * 0.1f);
  EXPECT_EQ(Call<double>("tfrt.multiply.f64", 3.0, 0.1), 3.0 * 0.1);
  EXPECT_EQ(Call<float>("tfrt.add.f32", 0.1f, 0.2f), 0.1f + 0.2f);
  EXPECT_EQ(Call<double>("tfrt.add.f64", 0.1, 0.2), 0.1 + 0.2);
  EXPECT_EQ(Call<float>("tfrt.minimum.f32", 737.0f, 899.0f), 737.0f);
  EXPECT_EQ(Call<double>("tfrt.minimum.f64", 899.0, 737.0), 737.0);
}

// --- Comparisons and logic ---------------------------------------------------

TEST_F(ValueKernelsTest, Comparisons) {
  EXPECT_TRUE(Call<bool>("tfrt.equal.i32", kMinI32, kMinI32));
  EXPECT_FALSE(Call<bool>("tfrt.equal.i32", 1, -1));
  EXPECT_TRUE(Call<bool>("tfrt.equal.i64", kMaxI64, kMaxI64));
  EXPECT_FALSE(Call<bool>("tfrt.equal.i64", kMaxI64, kMinI64));
  EXPECT_TRUE(Call<bool>("tfrt.lessequal.i32", -1, 0));
  EXPECT_TRUE(Call<bool>("tfrt.lessequal.i32", 0, 0));
  EXPECT_FALSE(Call<bool>("tfrt.lessequal.i32", 1, 0));
  EXPECT_TRUE(Call<bool>("tfrt.lessequal.i64", kMinI64, kMaxI64));
  EXPECT_FALSE(Call<bool>("tfrt.lessequal.i64", kMaxI64, kMinI64));
}

TEST_F(ValueKernelsTest, AndI1TruthTable) {
  EXPECT_FALSE(Call<bool>("tfrt.and.i1", false, false));
  EXPECT_FALSE(Call<bool>("tfrt.and.i1", false, true));
  EXPECT_FALSE(Call<bool>("tfrt.and.i1", true, false));
  EXPECT_TRUE(Call<bool>("tfrt.and.i1", true, true));
}

// --- Casts -------------------------------------------------------------------

TEST_F(ValueKernelsTest, CastsTruncateTowardZero) {
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f64_to_i64", 2.999), 2);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f64_to_i64", -2.999), -2);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f32_to_i64", 255.9f), 255);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f32_to_i64", -0.5f), 0);
  EXPECT_EQ(Call<double>("tfrt.cast.i64_to_f64", int64_t{-737}), -737.0);
  // 2^24 + 1 is not a float; it rounds to even.
  EXPECT_EQ(Call<float>("tfrt.cast.i64_to_f32", int64_t{16777217}),
            16777216.0f);
  EXPECT_EQ(Call<float>("tfrt.cast.i64_to_f32", kMaxI64),
            9223372036854775808.0f);
}

// static_cast is undefined there; the kernels saturate instead.
TEST_F(ValueKernelsTest, FloatToIntegerCastsSaturate) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f64_to_i64", inf), kMaxI64);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f64_to_i64", -inf), kMinI64);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f64_to_i64", 1e19), kMaxI64);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f64_to_i64", -1e19), kMinI64);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f64_to_i64", -9223372036854775808.0),
            kMinI64);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f64_to_i64", nan), 0);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f32_to_i64", static_cast<float>(inf)),
            kMaxI64);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f32_to_i64", 9223372036854775808.0f),
            kMaxI64);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f32_to_i64", -1e30f), kMinI64);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f32_to_i64", static_cast<float>(nan)), 0);
}

// The spec's resize example: scaling 737 by 256 / 737.0 gives
// 255.99999999999997 in f64 (cast: 255) but exactly 256 in f32 (cast: 256).
TEST_F(ValueKernelsTest, SpecResizeExampleKeepsIeeeResultsExact) {
  const double height = Call<double>("tfrt.cast.i64_to_f64", int64_t{737});
  const double width = Call<double>("tfrt.cast.i64_to_f64", int64_t{899});
  const double smaller = Call<double>("tfrt.minimum.f64", height, width);
  const double ratio = Call<double>("tfrt.div.f64", 256.0, smaller);
  const double new_height = Call<double>("tfrt.multiply.f64", height, ratio);
  const double new_width = Call<double>("tfrt.multiply.f64", width, ratio);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f64_to_i64", new_height), 255);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f64_to_i64", new_width), 312);

  const float height32 = Call<float>("tfrt.cast.i64_to_f32", int64_t{737});
  const float width32 = Call<float>("tfrt.cast.i64_to_f32", int64_t{899});
  const float smaller32 = Call<float>("tfrt.minimum.f32", height32, width32);
  const float ratio32 = Call<float>("tfrt.div.f32", 256.0f, smaller32);
  const float new_height32 =
      Call<float>("tfrt.multiply.f32", height32, ratio32);
  const float new_width32 = Call<float>("tfrt.multiply.f32", width32, ratio32);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f32_to_i64", new_height32), 256);
  EXPECT_EQ(Call<int64_t>("tfrt.cast.f32_to_i64", new_width32), 312);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

}  // namespace
}  // namespace sluice
