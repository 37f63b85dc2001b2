// The built-in native functions: values, pending and error arguments, and
// that their errors are silent.
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/test_kernels.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::IsEmpty;

class NativeFunctionsTest : public ::testing::Test {
 protected:
  explicit NativeFunctionsTest(std::string_view spec = "s") : host_(spec) {
    EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok());
  }

  // Calls the native function `name` with `arguments`; returns its
  // `num_results` results as it set them (not waited for).
  std::vector<RCReference<AsyncValue>> Call(
      std::string_view name, const std::vector<RCReference<AsyncValue>>& args,
      size_t num_results) {
    NativeFunction function = host_.registry().GetNativeFunction(name);
    std::vector<RCReference<AsyncValue>> results(num_results);
    if (function == nullptr) {
      ADD_FAILURE() << name << " is not registered";
      return results;
    }
    std::vector<AsyncValue*> pointers;
    for (const RCReference<AsyncValue>& arg : args) {
      pointers.push_back(arg.get());
    }
    function(host_.Context(), pointers, absl::MakeSpan(results));
    for (const RCReference<AsyncValue>& result : results) {
      EXPECT_TRUE(result) << name << " left a result unset";
    }
    return results;
  }

  test_util::KernelTestHost host_;
};

std::vector<RCReference<AsyncValue>> Values(
    std::initializer_list<int32_t> values) {
  std::vector<RCReference<AsyncValue>> refs;
  for (int32_t value : values) {
    refs.push_back(MakeAvailableAsyncValueRef<int32_t>(value).ReleaseRCRef());
  }
  return refs;
}

TEST_F(NativeFunctionsTest, NativeAddWithAvailableArguments) {
  std::vector<RCReference<AsyncValue>> results =
      Call("native_add", Values({2, 3}), 1);
  ASSERT_TRUE(results[0]->IsConcrete());
  EXPECT_EQ(results[0]->get<int32_t>(), 5);
}

TEST_F(NativeFunctionsTest, NativeAddWaitsForPendingArguments) {
  AsyncValueRef<int32_t> a = MakeUnconstructedAsyncValueRef<int32_t>();
  AsyncValueRef<int32_t> b = MakeUnconstructedAsyncValueRef<int32_t>();
  std::vector<RCReference<AsyncValue>> args;
  args.push_back(a.CopyRCRef());
  args.push_back(b.CopyRCRef());
  std::vector<RCReference<AsyncValue>> results = Call("native_add", args, 1);
  // The function holds the arguments itself: the caller may drop its own.
  args.clear();
  EXPECT_TRUE(results[0]->IsUnavailable());
  a.emplace(40);
  EXPECT_TRUE(results[0]->IsUnavailable());
  b.emplace(2);
  ASSERT_TRUE(results[0]->IsConcrete());
  EXPECT_EQ(results[0]->get<int32_t>(), 42);
}

TEST_F(NativeFunctionsTest, NativeAddPassesAnErrorOnSilently) {
  std::vector<RCReference<AsyncValue>> args = Values({1});
  args.push_back(MakeErrorAsyncValueRef(absl::InternalError("upstream")));
  std::vector<RCReference<AsyncValue>> results = Call("native_add", args, 1);
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "upstream");
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(NativeFunctionsTest, NativeAsyncAddCompletesFromATask) {
  std::vector<RCReference<AsyncValue>> results =
      Call("native_async_add", Values({2, 3}), 1);
  // Nothing runs on the single-threaded queue until someone waits.
  EXPECT_TRUE(results[0]->IsUnavailable());
  host_.Await(results);
  ASSERT_TRUE(results[0]->IsConcrete());
  EXPECT_EQ(results[0]->get<int32_t>(), 5);
}

TEST_F(NativeFunctionsTest, NativeAsyncAddWithAPendingArgument) {
  AsyncValueRef<int32_t> a = MakeUnconstructedAsyncValueRef<int32_t>();
  std::vector<RCReference<AsyncValue>> args = Values({7});
  args.push_back(a.CopyRCRef());
  std::vector<RCReference<AsyncValue>> results =
      Call("native_async_add", args, 1);
  host_.Quiesce();
  EXPECT_TRUE(results[0]->IsUnavailable());
  a.emplace(-7);
  host_.Await(results);
  EXPECT_EQ(results[0]->get<int32_t>(), 0);
}

TEST_F(NativeFunctionsTest, NativeErrorReturnsAnErrorWithoutADiagnostic) {
  std::vector<RCReference<AsyncValue>> results = Call("native_error", {}, 1);
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "something bad happened");
  host_.Quiesce();
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(NativeFunctionsTest, NativeSinkHasNoResults) {
  Call("native_sink", Values({1, 2}), 0);
  host_.Quiesce();
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(NativeFunctionsTest, NativeAsyncSinkReturnsAChainFromATask) {
  std::vector<RCReference<AsyncValue>> results =
      Call("native_async_sink", Values({1, 2}), 1);
  EXPECT_TRUE(results[0]->IsUnavailable());
  host_.Await(results);
  ASSERT_TRUE(results[0]->IsConcrete());
  (void)results[0]->get<Chain>();
}

TEST_F(NativeFunctionsTest, NativeAsyncSinkPassesAnErrorOn) {
  std::vector<RCReference<AsyncValue>> args = Values({1});
  args.push_back(MakeErrorAsyncValueRef(absl::InternalError("upstream")));
  std::vector<RCReference<AsyncValue>> results =
      Call("native_async_sink", args, 1);
  host_.Await(results);
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "upstream");
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(NativeFunctionsTest, AMismatchedCallFailsEveryResult) {
  std::vector<RCReference<AsyncValue>> results =
      Call("native_add", Values({1}), 2);
  for (const RCReference<AsyncValue>& result : results) {
    ASSERT_TRUE(result->IsError());
    EXPECT_EQ(result->GetError().message(),
              "native_add takes 2 argument(s) and returns 1 result(s), but "
              "was called with 1 and 2");
  }
}

class NativeFunctionsMultiThreadedTest : public NativeFunctionsTest {
 protected:
  NativeFunctionsMultiThreadedTest() : NativeFunctionsTest("mstd:4,2") {}
};

// Arguments resolved from worker threads while the functions wait.
TEST_F(NativeFunctionsMultiThreadedTest, ArgumentsResolvedByWorkers) {
  constexpr int kCalls = 64;
  std::vector<RCReference<AsyncValue>> results;
  for (int i = 0; i < kCalls; ++i) {
    std::vector<RCReference<AsyncValue>> args;
    args.push_back(
        EnqueueWork(host_.host_context(), [i] { return i; }).ReleaseRCRef());
    args.push_back(
        EnqueueWork(host_.host_context(), [] { return 1; }).ReleaseRCRef());
    const char* name = i % 3 == 0   ? "native_add"
                       : i % 3 == 1 ? "native_async_add"
                                    : "native_async_sink";
    std::vector<RCReference<AsyncValue>> out = Call(name, args, 1);
    results.push_back(std::move(out[0]));
  }
  host_.Await(results);
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_TRUE(results[i]->IsConcrete()) << i;
    if (i % 3 != 2) {
      EXPECT_EQ(results[i]->get<int32_t>(), i + 1);
    }
  }
}

}  // namespace
}  // namespace sluice
