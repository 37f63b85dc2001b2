// Calls split between two threads (SplitPlan): which functions get a plan,
// and that a split call gives the values, errors and cancellation a call on
// one thread gives, however late the helper starts.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lib/executor/executable_function.h"
#include "lib/executor/split_plan.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "test/unit/executor/program_builder.h"
#include "test/unit/executor/run_program.h"

namespace sluice {
namespace {

using executor_internal::ExecutableFunction;
using executor_internal::SplitPlan;
using testing_util::ProgramBuilder;

constexpr int64_t kModulus = 1000003;

int32_t Constant(Attribute<int32_t> value) { return *value; }
// Wraps nowhere (no overflow to worry about) and depends on operand order.
int32_t Mix(int32_t up, int32_t left) {
  return static_cast<int32_t>((3 * int64_t{up} + left) % kModulus);
}

// What the slow mix kernel records: the threads it ran on, and when to
// cancel which request.
struct SlowMixState {
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::atomic<int> calls{0};
  int cancel_at = -1;
  RequestContext* request = nullptr;
};
SlowMixState* slow_mix_state = nullptr;

// Mix, taking about a microsecond, so that a helper surely joins a call.
int32_t SlowMix(int32_t up, int32_t left) {
  SlowMixState& state = *slow_mix_state;
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::microseconds(1);
  while (std::chrono::steady_clock::now() < until) {
  }
  const int call = state.calls.fetch_add(1) + 1;
  {
    std::lock_guard<std::mutex> lock(state.mu);
    state.threads.insert(std::this_thread::get_id());
    if (call == state.cancel_at) state.request->Cancel();
  }
  return Mix(up, left);
}
// Reads its operand as an AsyncValue: not direct.
int32_t Copy(Argument<int32_t> x) { return *x; }

class SplitCallTest : public ::testing::TestWithParam<const char*> {
 protected:
  SplitCallTest()
      : host_([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
              *CreateWorkQueue(GetParam())) {
    slow_mix_state = &slow_mix_;
    EXPECT_TRUE(GetKernelRegistry(&host_)
                    .AddKernels({
                        {"test.constant.i32", SLUICE_KERNEL(Constant)},
                        {"test.mix.i32", SLUICE_KERNEL(Mix)},
                        {"test.slow_mix.i32", SLUICE_KERNEL(SlowMix)},
                        {"test.copy.i32", SLUICE_KERNEL(Copy)},
                    })
                    .ok());
  }
  ~SplitCallTest() override { slow_mix_state = nullptr; }

  // A rows × columns wavefront of `kernel`: cell (i, j) mixes the cell
  // above and the cell to the left; the edges read `edge`, a constant or
  // the function's argument. Returns the last cell.
  static std::vector<uint8_t> Wave(int rows, int columns,
                                   const char* kernel = "test.mix.i32",
                                   bool edge_is_argument = false,
                                   const char* odd_kernel = nullptr) {
    ProgramBuilder b;
    const uint32_t f = b.Declare("wave", edge_is_argument ? 1 : 0, 1);
    b.Begin(edge_is_argument ? 1 : 0);
    const uint32_t edge = edge_is_argument ? 0 : b.Constant(7);
    std::vector<uint32_t> above(columns, edge);
    for (int i = 0; i < rows; ++i) {
      uint32_t left = edge;
      for (int j = 0; j < columns; ++j) {
        const bool odd = odd_kernel != nullptr && i == rows / 2 && j == 0;
        left = odd ? b.Kernel(odd_kernel, {above[j]})
                   : b.Kernel(kernel, {above[j], left});
        above[j] = left;
      }
    }
    b.End(f, {above[columns - 1]});
    return b.Finish();
  }

  // What Wave computes, with `edge` at the edges.
  static int32_t ExpectedWave(int rows, int columns, int32_t edge) {
    std::vector<int32_t> above(columns, edge);
    for (int i = 0; i < rows; ++i) {
      int32_t left = edge;
      for (int j = 0; j < columns; ++j) left = above[j] = Mix(above[j], left);
    }
    return above[columns - 1];
  }

  static const SplitPlan* PlanOf(const Program& program) {
    return static_cast<const ExecutableFunction*>(program.GetFunction("wave"))
        ->split.get();
  }

  SlowMixState slow_mix_;
  HostContext host_;
};

TEST_P(SplitCallTest, PlansOnlyLargeWideFunctionsOfDirectKernels) {
  auto wide = testing_util::LoadProgram(host_, Wave(150, 150));
  const SplitPlan* plan = PlanOf(*wide);
  ASSERT_NE(plan, nullptr);
  ASSERT_EQ(plan->bands.size(), executor_internal::kSplitBands);
  EXPECT_EQ(plan->records.size(), 150u * 150u + 1);
  // Each band but the first waits for the bands before it where it reads
  // their values: the row above it (split at most once by a band's end),
  // and the constant.
  EXPECT_EQ(plan->bands[0].end_wait, plan->bands[0].first_wait);
  for (uint32_t b = 1; b < plan->bands.size(); ++b) {
    const SplitPlan::Band& band = plan->bands[b];
    EXPECT_GT(band.end_wait, band.first_wait) << "band " << b;
    EXPECT_LE(band.end_wait - band.first_wait, 2 * 150u + 1) << "band " << b;
    for (uint32_t w = band.first_wait; w < band.end_wait; ++w) {
      EXPECT_LT(plan->waits[w].band, b);
    }
  }

  // Too small; a chain (no two threads run it faster); a kernel that is
  // not direct.
  EXPECT_EQ(PlanOf(*testing_util::LoadProgram(host_, Wave(100, 100))), nullptr);
  EXPECT_EQ(PlanOf(*testing_util::LoadProgram(host_, Wave(20000, 1))), nullptr);
  EXPECT_EQ(PlanOf(*testing_util::LoadProgram(
                host_, Wave(150, 150, "test.mix.i32", false, "test.copy.i32"))),
            nullptr);
}

// Fast kernels: the helper often starts late, or after the call is over.
TEST_P(SplitCallTest, GivesTheValueOneThreadGives) {
  auto program = testing_util::LoadProgram(host_, Wave(130, 130));
  ASSERT_NE(PlanOf(*program), nullptr);
  for (int run = 0; run < 20; ++run) {
    auto results = testing_util::RunToEnd(host_, *program, "wave");
    ASSERT_TRUE(results[0]->IsConcrete()) << "run " << run;
    EXPECT_EQ(results[0]->get<int32_t>(), ExpectedWave(130, 130, 7))
        << "run " << run;
  }
}

TEST_P(SplitCallTest, SlowKernelsRunOnTwoThreadsWhereTheQueueHasTwo) {
  auto program =
      testing_util::LoadProgram(host_, Wave(130, 130, "test.slow_mix.i32"));
  auto results = testing_util::RunToEnd(host_, *program, "wave");
  ASSERT_TRUE(results[0]->IsConcrete());
  EXPECT_EQ(results[0]->get<int32_t>(), ExpectedWave(130, 130, 7));
  EXPECT_EQ(slow_mix_.calls.load(), 130 * 130);
  std::lock_guard<std::mutex> lock(slow_mix_.mu);
  EXPECT_EQ(slow_mix_.threads.size(),
            host_.work_queue().GetParallelismLevel() >= 2 ? 2u : 1u);
}

TEST_P(SplitCallTest, ErrorArgumentReachesTheResultThroughEveryBand) {
  auto program = testing_util::LoadProgram(
      host_, Wave(130, 130, "test.mix.i32", /*edge_is_argument=*/true));
  ASSERT_NE(PlanOf(*program), nullptr);
  for (int run = 0; run < 5; ++run) {
    auto error = MakeErrorAsyncValueRef(absl::DataLossError("bad edge"));
    AsyncValue* arguments[] = {error.get()};
    auto results =
        testing_util::RunToEnd(host_, *program, "wave", nullptr, arguments);
    ASSERT_TRUE(results[0]->IsError());
    EXPECT_EQ(results[0]->GetError(), absl::DataLossError("bad edge"));
  }
  auto edge = MakeAvailableAsyncValueRef<int32_t>(11);
  AsyncValue* arguments[] = {edge.GetAsyncValue()};
  auto results =
      testing_util::RunToEnd(host_, *program, "wave", nullptr, arguments);
  ASSERT_TRUE(results[0]->IsConcrete());
  EXPECT_EQ(results[0]->get<int32_t>(), ExpectedWave(130, 130, 11));
}

TEST_P(SplitCallTest, CancellationMidCallReachesTheResult) {
  auto program =
      testing_util::LoadProgram(host_, Wave(130, 130, "test.slow_mix.i32"));
  RCReference<RequestContext> request = RequestContext::Create(&host_);
  slow_mix_.request = request.get();
  slow_mix_.cancel_at = 5000;
  auto results =
      testing_util::RunToEnd(host_, *program, "wave", request.CopyRef());
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().code(), absl::StatusCode::kCancelled);
  // Every kernel after the cancellation was skipped.
  EXPECT_LT(slow_mix_.calls.load(), 130 * 130);
}

INSTANTIATE_TEST_SUITE_P(Queues, SplitCallTest,
                         ::testing::Values("s", "mstd:2,2"));

}  // namespace
}  // namespace sluice
