// as_chain, identity, multi_arg_result, share_to_two, make_indirect and
// get_uniqueness: which AsyncValues their results are, and reference counts.
#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernels/test_kernels.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class ForwardingKernelsTest : public ::testing::Test {
 protected:
  ForwardingKernelsTest() : host_("s", DecodedLocation{"prog.mlir", 2, 3}) {
    EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok());
  }

  test_util::KernelTestHost host_;
};

RCReference<AsyncValue> I32(int32_t value) {
  return MakeAvailableAsyncValueRef<int32_t>(value).ReleaseRCRef();
}

TEST_F(ForwardingKernelsTest, AsChainTakesAnything) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.as_chain");
  frame.AddArg(I32(1))
      .AddAvailableArg<std::string>("x")
      .AddAvailableArg<Chain>()
      .SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.as_chain");
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  (void)frame.result(0)->get<Chain>();
}

TEST_F(ForwardingKernelsTest, AsChainWithNoOperands) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.as_chain");
  frame.SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.as_chain");
  ASSERT_TRUE(frame.result(0)->IsConcrete());
}

TEST_F(ForwardingKernelsTest, IdentityForwardsAllButTheChain) {
  RCReference<AsyncValue> a = I32(1);
  RCReference<AsyncValue> b =
      MakeAvailableAsyncValueRef<std::string>("b").ReleaseRCRef();
  KernelFrameBuilder frame = host_.Frame("tfrt_test.identity");
  frame.AddAvailableArg<Chain>()
      .AddArg(a.CopyRef())
      .AddArg(b.CopyRef())
      .SetNumResults(2);
  host_.Invoke(frame, "tfrt_test.identity");
  EXPECT_EQ(frame.result(0).get(), a.get());
  EXPECT_EQ(frame.result(1).get(), b.get());
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(ForwardingKernelsTest, MultiArgResultForwardsEveryOperand) {
  RCReference<AsyncValue> a = I32(1);
  RCReference<AsyncValue> b = MakeReadyChain().ReleaseRCRef();
  RCReference<AsyncValue> c = I32(3);
  KernelFrameBuilder frame = host_.Frame("tfrt_test.multi_arg_result");
  frame.AddArg(a.CopyRef())
      .AddArg(b.CopyRef())
      .AddArg(c.CopyRef())
      .SetNumResults(3);
  host_.Invoke(frame, "tfrt_test.multi_arg_result");
  EXPECT_EQ(frame.result(0).get(), a.get());
  EXPECT_EQ(frame.result(1).get(), b.get());
  EXPECT_EQ(frame.result(2).get(), c.get());
}

TEST_F(ForwardingKernelsTest, MismatchedCountsAreAnError) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.multi_arg_result");
  frame.AddArg(I32(1)).AddArg(I32(2)).SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.multi_arg_result");
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(),
            "tfrt_test.multi_arg_result forwards 2 operand(s) to 1 result(s)");
  EXPECT_THAT(host_.diagnostics(),
              ElementsAre("prog.mlir:2:3: error: runtime error: "
                          "tfrt_test.multi_arg_result forwards 2 operand(s) "
                          "to 1 result(s)"));
}

TEST_F(ForwardingKernelsTest, ShareToTwoSharesOneValue) {
  RCReference<AsyncValue> value = I32(7);
  KernelFrameBuilder frame = host_.Frame("tfrt_test.share_to_two");
  frame.AddArg(value.CopyRef()).SetNumResults(2);
  const uint32_t refs_before = value->NumRef();
  host_.Invoke(frame, "tfrt_test.share_to_two");
  EXPECT_EQ(frame.result(0).get(), value.get());
  EXPECT_EQ(frame.result(1).get(), value.get());
  EXPECT_EQ(value->NumRef(), refs_before + 2);
}

TEST_F(ForwardingKernelsTest, MakeIndirectForwardsToTheOperands) {
  RCReference<AsyncValue> a = I32(4);
  RCReference<AsyncValue> b =
      MakeAvailableAsyncValueRef<std::string>("s").ReleaseRCRef();
  KernelFrameBuilder frame = host_.Frame("tfrt_test.make_indirect");
  frame.AddArg(a.CopyRef()).AddArg(b.CopyRef()).SetNumResults(2);
  host_.Invoke(frame, "tfrt_test.make_indirect");
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(frame.result(i)->IsIndirect()) << i;
    EXPECT_TRUE(frame.result(i)->IsConcrete()) << i;
  }
  EXPECT_EQ(static_cast<IndirectAsyncValue*>(frame.result(0).get())->target(),
            a.get());
  EXPECT_EQ(static_cast<IndirectAsyncValue*>(frame.result(1).get())->target(),
            b.get());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 4);
  EXPECT_EQ(frame.result(1)->get<std::string>(), "s");
}

// Called by hand with a pending operand (the executor would wait): the
// indirect result follows the operand's state.
TEST_F(ForwardingKernelsTest, MakeIndirectFollowsAPendingOperand) {
  AsyncValueRef<int32_t> pending = MakeUnconstructedAsyncValueRef<int32_t>();
  KernelFrameBuilder frame = host_.Frame("tfrt_test.make_indirect");
  frame.AddArg(pending.CopyRCRef()).SetNumResults(1);
  host_.Invoke(frame, "tfrt_test.make_indirect");
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  pending.emplace(9);
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 9);
}

TEST_F(ForwardingKernelsTest, GetUniqueness) {
  RCReference<AsyncValue> shared = I32(2);
  KernelFrameBuilder frame = host_.Frame("tfrt_test.get_uniqueness");
  // The frame holds the only reference to the first operand; the test keeps
  // one to the second.
  frame.AddArg(I32(1)).AddArg(shared.CopyRef()).SetNumResults(2);
  host_.Invoke(frame, "tfrt_test.get_uniqueness");
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  ASSERT_TRUE(frame.result(1)->IsConcrete());
  EXPECT_TRUE(frame.result(0)->get<bool>());
  EXPECT_FALSE(frame.result(1)->get<bool>());
}

}  // namespace
}  // namespace sluice
