// tfrt.parallel_for.i32 and tfrt.parallel_call.i32, called through
// KernelFrameBuilder with hand-written bodies, on a single-threaded host and
// on one with two workers.
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/basic/basic_kernels_internal.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

using test_util::LambdaFunction;

RCReference<AsyncValue> I32(int32_t value) {
  return MakeAvailableAsyncValueRef<int32_t>(value).ReleaseRCRef();
}

// The chain is a placeholder forwarded to `error`: the same error value, not
// a copy of its status.
void ExpectSameError(const RCReference<AsyncValue>& chain,
                     const RCReference<AsyncValue>& error) {
  ASSERT_TRUE(chain->IsError());
  EXPECT_EQ(&chain->GetError(), &error->GetError());
}

// Parameterized by the work queue spec.
class ParallelKernelsTest : public ::testing::TestWithParam<std::string> {
 protected:
  ParallelKernelsTest() : host_(GetParam()) {
    EXPECT_TRUE(basic_kernels::RegisterParallelKernels(&host_.registry()).ok());
  }

  // Runs `kernel` on (start, end, block) and `extras` with `body`, waits for
  // the chain and returns it.
  RCReference<AsyncValue> Run(
      std::string_view kernel, const Function& body,
      RCReference<AsyncValue> start, RCReference<AsyncValue> end,
      RCReference<AsyncValue> block,
      std::vector<RCReference<AsyncValue>> extras = {}) {
    KernelFrameBuilder frame(host_.Context(), std::string(kernel));
    frame.AddArg(std::move(start))
        .AddArg(std::move(end))
        .AddArg(std::move(block));
    for (RCReference<AsyncValue>& extra : extras)
      frame.AddArg(std::move(extra));
    frame.AddFunction(&body).SetNumResults(1);
    frame.Invoke(host_.Kernel(kernel));
    host_.Await(frame.results());
    return frame.result(0).CopyRef();
  }

  test_util::KernelTestHost host_;
};

// Counts how often each index of [start, end) is visited, and records the
// blocks.
class Coverage {
 public:
  Coverage(int32_t start, int32_t end)
      : start_(start), hits_(static_cast<size_t>(end - start)) {}

  LambdaFunction Body() {
    return LambdaFunction(
        "block", 2, 1,
        [this](const ExecutionContext&, absl::Span<AsyncValue* const> args,
               absl::Span<RCReference<AsyncValue>> results) {
          const int32_t block_start = args[0]->get<int32_t>();
          const int32_t block_end = args[1]->get<int32_t>();
          for (int32_t i = block_start; i < block_end; ++i) {
            hits_[static_cast<size_t>(i - start_)].fetch_add(1);
          }
          {
            std::lock_guard<std::mutex> lock(mu_);
            blocks_.emplace(block_start, block_end);
          }
          results[0] = MakeReadyChain().ReleaseRCRef();
        });
  }

  bool EveryIndexOnce() const {
    for (const std::atomic<int>& hit : hits_) {
      if (hit.load() != 1) return false;
    }
    return true;
  }

  std::set<std::pair<int32_t, int32_t>> blocks() {
    std::lock_guard<std::mutex> lock(mu_);
    return blocks_;
  }

 private:
  const int32_t start_;
  std::vector<std::atomic<int>> hits_;
  std::mutex mu_;
  std::set<std::pair<int32_t, int32_t>> blocks_;
};

TEST_P(ParallelKernelsTest, KernelsAreRegisteredNonStrict) {
  for (const char* name : {"tfrt.parallel_for.i32", "tfrt.parallel_call.i32"}) {
    const RegisteredKernel* kernel = host_.registry().GetKernel(name);
    ASSERT_NE(kernel, nullptr) << name;
    EXPECT_EQ(kernel->strictness, Strictness::kNonStrict) << name;
  }
}

TEST_P(ParallelKernelsTest, CoversEveryIndexExactlyOnce) {
  const std::vector<std::tuple<int32_t, int32_t, int32_t>> ranges = {
      {0, 10, 3},  {0, 10, 5},   {0, 10, 1}, {-7, 20, 4},
      {3, 4, 100}, {0, 1000, 7}, {0, 10, 10}};
  for (const auto& [start, end, block] : ranges) {
    Coverage coverage(start, end);
    LambdaFunction body = coverage.Body();
    RCReference<AsyncValue> done =
        Run("tfrt.parallel_for.i32", body, I32(start), I32(end), I32(block));
    ASSERT_TRUE(done->IsConcrete()) << start << ".." << end << " by " << block;
    EXPECT_TRUE(coverage.EveryIndexOnce())
        << start << ".." << end << " by " << block;
    const int expected_blocks = (end - start + block - 1) / block;
    EXPECT_EQ(body.calls(), expected_blocks);
    EXPECT_THAT(coverage.blocks(), SizeIs(expected_blocks));
  }
}

TEST_P(ParallelKernelsTest, CutsTheRangeIntoBlocksWithAShortLastOne) {
  Coverage coverage(0, 10);
  LambdaFunction body = coverage.Body();
  Run("tfrt.parallel_for.i32", body, I32(0), I32(10), I32(3));
  EXPECT_THAT(coverage.blocks(),
              ElementsAre(std::pair(0, 3), std::pair(3, 6), std::pair(6, 9),
                          std::pair(9, 10)));
}

TEST_P(ParallelKernelsTest, AnEmptyRangeRunsNoBlock) {
  for (const auto& [start, end] :
       std::vector<std::pair<int32_t, int32_t>>{{5, 5}, {7, 3}, {0, -10}}) {
    Coverage coverage(0, 0);
    LambdaFunction body = coverage.Body();
    RCReference<AsyncValue> done =
        Run("tfrt.parallel_for.i32", body, I32(start), I32(end), I32(2));
    ASSERT_TRUE(done->IsConcrete());
    EXPECT_EQ(body.calls(), 0);
  }
}

TEST_P(ParallelKernelsTest, TheRangeMayReachTheEndsOfInt32) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  Coverage coverage(kMax - 10, kMax);
  LambdaFunction body = coverage.Body();
  RCReference<AsyncValue> done =
      Run("tfrt.parallel_for.i32", body, I32(kMax - 10), I32(kMax), I32(4));
  ASSERT_TRUE(done->IsConcrete());
  EXPECT_TRUE(coverage.EveryIndexOnce());
  EXPECT_EQ(body.calls(), 3);
}

TEST_P(ParallelKernelsTest, EveryBlockGetsTheExtraValues) {
  std::atomic<int64_t> sum{0};
  LambdaFunction body(
      "block", 4, 0,
      [&sum](const ExecutionContext&, absl::Span<AsyncValue* const> args,
             absl::Span<RCReference<AsyncValue>>) {
        const int32_t scale = args[2]->get<int32_t>();
        EXPECT_EQ(args[3]->get<std::string>(), "extra");
        for (int32_t i = args[0]->get<int32_t>(); i < args[1]->get<int32_t>();
             ++i) {
          sum.fetch_add(static_cast<int64_t>(i) * scale);
        }
      });
  std::vector<RCReference<AsyncValue>> extras;
  extras.push_back(I32(3));
  extras.push_back(
      MakeAvailableAsyncValueRef<std::string>("extra").ReleaseRCRef());
  RCReference<AsyncValue> done = Run("tfrt.parallel_for.i32", body, I32(0),
                                     I32(100), I32(9), std::move(extras));
  ASSERT_TRUE(done->IsConcrete());
  EXPECT_EQ(sum.load(), 3 * 4950);
  EXPECT_EQ(body.calls(), 12);
}

TEST_P(ParallelKernelsTest, TheChainWaitsForEveryBlocksResults) {
  std::mutex mu;
  std::vector<AsyncValueRef<Chain>> pending;
  LambdaFunction body(
      "block", 2, 1,
      [&](const ExecutionContext&, absl::Span<AsyncValue* const>,
          absl::Span<RCReference<AsyncValue>> results) {
        AsyncValueRef<Chain> chain = MakeUnconstructedAsyncValueRef<Chain>();
        results[0] = chain.CopyRCRef();
        std::lock_guard<std::mutex> lock(mu);
        pending.push_back(std::move(chain));
      });
  KernelFrameBuilder frame(host_.Context(), "tfrt.parallel_for.i32");
  frame.AddArg(I32(0))
      .AddArg(I32(4))
      .AddArg(I32(1))
      .AddFunction(&body)
      .SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.parallel_for.i32"));
  host_.Quiesce();
  ASSERT_EQ(body.calls(), 4);
  std::lock_guard<std::mutex> lock(mu);
  for (size_t i = 0; i < pending.size(); ++i) {
    EXPECT_TRUE(frame.result(0)->IsUnavailable()) << i;
    pending[i].emplace();
  }
  host_.Await(frame.results());
  EXPECT_TRUE(frame.result(0)->IsConcrete());
}

TEST_P(ParallelKernelsTest, AnErrorInABlockBecomesTheChain) {
  RCReference<AsyncValue> error =
      MakeErrorAsyncValueRef(absl::InternalError("block 4 failed"));
  LambdaFunction body(
      "block", 2, 1,
      [&error](const ExecutionContext&, absl::Span<AsyncValue* const> args,
               absl::Span<RCReference<AsyncValue>> results) {
        results[0] = args[0]->get<int32_t>() == 4
                         ? error.CopyRef()
                         : MakeReadyChain().ReleaseRCRef();
      });
  RCReference<AsyncValue> done =
      Run("tfrt.parallel_for.i32", body, I32(0), I32(8), I32(2));
  ExpectSameError(done, error);
  EXPECT_EQ(body.calls(), 4);  // The other blocks still ran.
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_P(ParallelKernelsTest, ABodyWithoutResults) {
  std::atomic<int> visited{0};
  LambdaFunction body(
      "block", 2, 0,
      [&visited](const ExecutionContext&, absl::Span<AsyncValue* const> args,
                 absl::Span<RCReference<AsyncValue>>) {
        visited.fetch_add(args[1]->get<int32_t>() - args[0]->get<int32_t>());
      });
  RCReference<AsyncValue> done =
      Run("tfrt.parallel_for.i32", body, I32(0), I32(33), I32(8));
  ASSERT_TRUE(done->IsConcrete());
  EXPECT_EQ(visited.load(), 33);
}

TEST_P(ParallelKernelsTest, WaitsForPendingBounds) {
  Coverage coverage(0, 6);
  LambdaFunction body = coverage.Body();
  AsyncValueRef<int32_t> end = MakeUnconstructedAsyncValueRef<int32_t>();
  KernelFrameBuilder frame(host_.Context(), "tfrt.parallel_for.i32");
  frame.AddArg(I32(0))
      .AddArg(end.CopyRCRef())
      .AddArg(I32(4))
      .AddFunction(&body)
      .SetNumResults(1);
  frame.Invoke(host_.Kernel("tfrt.parallel_for.i32"));
  EXPECT_TRUE(frame.result(0)->IsUnavailable());
  end.emplace(6);
  host_.Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsConcrete());
  EXPECT_TRUE(coverage.EveryIndexOnce());
  EXPECT_EQ(body.calls(), 2);
}

TEST_P(ParallelKernelsTest, AnErrorBoundBecomesTheChain) {
  Coverage coverage(0, 0);
  LambdaFunction body = coverage.Body();
  RCReference<AsyncValue> error =
      MakeErrorAsyncValueRef(absl::InternalError("no start"));
  RCReference<AsyncValue> done =
      Run("tfrt.parallel_for.i32", body, error.CopyRef(), I32(10), I32(2));
  ExpectSameError(done, error);
  EXPECT_EQ(body.calls(), 0);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_P(ParallelKernelsTest, ANonPositiveBlockSizeIsAnError) {
  for (int32_t block : {0, -2}) {
    Coverage coverage(0, 0);
    LambdaFunction body = coverage.Body();
    RCReference<AsyncValue> done =
        Run("tfrt.parallel_for.i32", body, I32(0), I32(10), I32(block));
    ASSERT_TRUE(done->IsError());
    EXPECT_EQ(done->GetError().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(
        done->GetError().message(),
        HasSubstr("block size must be positive, got " + std::to_string(block)));
    EXPECT_EQ(body.calls(), 0);
  }
  EXPECT_THAT(host_.diagnostics(), SizeIs(2));
}

TEST_P(ParallelKernelsTest, ACancelledRequestRunsNoBlock) {
  Coverage coverage(0, 0);
  LambdaFunction body = coverage.Body();
  host_.request()->Cancel();
  RCReference<AsyncValue> done =
      Run("tfrt.parallel_for.i32", body, I32(0), I32(10), I32(2));
  ExpectSameError(done, FormRef(host_.request()->GetCancelAsyncValue()));
  EXPECT_EQ(done->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(body.calls(), 0);
}

TEST_P(ParallelKernelsTest, ParallelCallRunsTheCalleePerBlock) {
  Coverage coverage(10, 31);
  LambdaFunction callee = coverage.Body();
  RCReference<AsyncValue> done =
      Run("tfrt.parallel_call.i32", callee, I32(10), I32(31), I32(5));
  ASSERT_TRUE(done->IsConcrete());
  EXPECT_TRUE(coverage.EveryIndexOnce());
  EXPECT_EQ(callee.calls(), 5);
}

TEST_P(ParallelKernelsTest, ReportsABodyThatCannotTakeTheBlockBounds) {
  LambdaFunction body("one_arg", 1, 0,
                      [](const ExecutionContext&, absl::Span<AsyncValue* const>,
                         absl::Span<RCReference<AsyncValue>>) {});
  RCReference<AsyncValue> done =
      Run("tfrt.parallel_for.i32", body, I32(0), I32(10), I32(2));
  ASSERT_TRUE(done->IsError());
  EXPECT_THAT(done->GetError().message(), HasSubstr("'one_arg' takes 1"));
  EXPECT_EQ(body.calls(), 0);
}

INSTANTIATE_TEST_SUITE_P(WorkQueues, ParallelKernelsTest,
                         ::testing::Values("s", "mstd:2,2"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "s" ? std::string("Single")
                                                    : std::string("Multi");
                         });

}  // namespace
}  // namespace sluice
