#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/bef/sbf_writer.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/error_util.h"
#include "test/unit/executor/program_builder.h"
#include "test/unit/executor/run_program.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_util::ProgramBuilder;

// --- Test kernels
// --------------------------------------------------------------

std::vector<std::string>* trace = nullptr;  // what test.record saw, in order

int32_t MixExpected(int32_t a, int32_t b) {
  return static_cast<int32_t>(
      (static_cast<uint32_t>(a) * 31u + static_cast<uint32_t>(b)) % 1000003u);
}

int32_t Constant(Attribute<int32_t> value) { return *value; }
int32_t Add(int32_t a, int32_t b) { return a + b; }
// Mixes two values without overflowing, and notes which thread ran it. It
// takes a few microseconds, as kernels worth handing to a worker do: the
// executor keeps cheaper ones on one thread.
std::mutex mix_mu;
std::set<std::thread::id>* mix_threads = nullptr;
int32_t MixValues(int32_t a, int32_t b) {
  {
    std::lock_guard<std::mutex> lock(mix_mu);
    if (mix_threads != nullptr) mix_threads->insert(std::this_thread::get_id());
  }
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::microseconds(2);
  while (std::chrono::steady_clock::now() < until) {
  }
  return MixExpected(a, b);
}
Chain Record(int32_t value) {
  trace->push_back(std::to_string(value));
  return Chain{};
}
absl::StatusOr<int32_t> Fail() {
  return absl::InternalError("something bad happened");
}
AsyncValueRef<int32_t> AsyncIncrement(int32_t x, HostContext* host) {
  return EnqueueWork(host, [x] { return x + 1; });
}
// Its operand plus one, made once the test opens the gate (OpenGate).
struct Gate {
  std::mutex mu;
  std::vector<std::pair<AsyncValueRef<int32_t>, int32_t>> waiting;
};
Gate gate;
AsyncValueRef<int32_t> GatedIncrement(int32_t x) {
  AsyncValueRef<int32_t> value = MakeUnconstructedAsyncValueRef<int32_t>();
  std::lock_guard<std::mutex> lock(gate.mu);
  gate.waiting.push_back({value.CopyRef(), x + 1});
  return value;
}
void OpenGate() {
  std::lock_guard<std::mutex> lock(gate.mu);
  for (auto& [value, made] : gate.waiting) value.emplace(made);
  gate.waiting.clear();
}
// Cancels the current request once its operand is available.
Chain CancelRequest(int32_t, const ExecutionContext& context) {
  context.request_context()->Cancel();
  return Chain{};
}
// Keeps its operand and reads it later on the work queue: the value
// escapes the frame that made it.
AsyncValueRef<int32_t> LaterCopy(Argument<int32_t> x, HostContext* host) {
  RCReference<AsyncValue> kept = x.ValueRef();
  return EnqueueWork(host,
                     [kept = std::move(kept)] { return kept->get<int32_t>(); });
}
// Its operand plus one, written over the operand's own payload when the
// frame says no one else can see it (the contract of kernels that reuse
// their inputs), into a new value otherwise. A shared value taken for
// unique shows up as a changed value where another reader looks.
std::atomic<int> reused{0};
void IncrementInPlace(RemainingArguments operands, RemainingResults results,
                      KernelFrame* frame) {
  if (frame->IsArgUnique(0)) {
    ++operands[0]->get<int32_t>();
    results.SetAt(0, FormRef(operands[0]));
    reused.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  results.EmplaceAt<int32_t>(0, operands[0]->get<int32_t>() + 1);
}
// Calls functions[0] with all its operands (like tfrt.call).
void Call(RemainingArguments arguments, RemainingResults results,
          RemainingFunctions functions, const ExecutionContext& context) {
  std::vector<RCReference<AsyncValue>> out(results.size());
  functions[0]->Execute(context, arguments.values(), absl::MakeSpan(out));
  for (size_t i = 0; i < out.size(); ++i) results.SetAt(i, std::move(out[i]));
}

absl::Status RegisterTestKernels(KernelRegistry* registry) {
  return registry->AddKernels({
      {"test.constant.i32", SLUICE_KERNEL(Constant)},
      {"test.add.i32", SLUICE_KERNEL(Add)},
      {"test.mix.i32", SLUICE_KERNEL(MixValues)},
      {"test.record", SLUICE_KERNEL(Record)},
      {"test.fail", SLUICE_KERNEL(Fail)},
      {"test.async_increment", SLUICE_KERNEL(AsyncIncrement)},
      {"test.gated_increment", SLUICE_KERNEL(GatedIncrement)},
      {"test.later_copy", SLUICE_KERNEL(LaterCopy)},
      {"test.cancel", SLUICE_KERNEL(CancelRequest)},
      {"test.call", SLUICE_KERNEL(Call), Strictness::kNonStrict},
      {"test.increment_in_place", SLUICE_KERNEL(IncrementInPlace)},
  });
}

class ExecutorTest : public ::testing::TestWithParam<const char*> {
 protected:
  ExecutorTest()
      : host_(
            [this](const DecodedDiagnostic& d) {
              std::lock_guard<std::mutex> lock(mu_);
              diagnostics_.push_back(d.ToString());
            },
            CreateMallocAllocator(), *CreateWorkQueue(GetParam())) {
    EXPECT_TRUE(RegisterTestKernels(&GetKernelRegistry(&host_)).ok());
    trace = &trace_;
  }
  ~ExecutorTest() override { trace = nullptr; }

  std::unique_ptr<Program> Load(const std::vector<uint8_t>& bytes) {
    return testing_util::LoadProgram(host_, bytes);
  }

  std::vector<RCReference<AsyncValue>> Run(
      const Program& program, std::string_view name,
      RCReference<RequestContext> request = nullptr) {
    return testing_util::RunToEnd(host_, program, name, std::move(request));
  }

  std::vector<std::string> diagnostics() {
    std::lock_guard<std::mutex> lock(mu_);
    return diagnostics_;
  }

  std::mutex mu_;
  std::vector<std::string> diagnostics_;
  std::vector<std::string> trace_;
  HostContext host_;
};

TEST_P(ExecutorTest, ChainOfAdds) {
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 1);
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t sum = b.Constant(0);
  for (int i = 0; i < 1000; ++i) sum = b.Kernel("test.add.i32", {sum, one});
  b.End(f, {sum});
  auto program = Load(b.Finish());
  auto results = Run(*program, "main");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]->get<int32_t>(), 1000);
}

TEST_P(ExecutorTest, LongChainRunsInConstantStack) {
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 1);
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t sum = b.Constant(0);
  for (int i = 0; i < 200000; ++i) sum = b.Kernel("test.add.i32", {sum, one});
  b.End(f, {sum});
  auto program = Load(b.Finish());
  EXPECT_EQ(Run(*program, "main")[0]->get<int32_t>(), 200000);
}

// A grid where each value adds the one above and the one to the left (the
// wave benchmark's shape), fed by values that arrive from the work queue
// while the frame runs: the first inputs of a kernel are counted while the
// frame is the caller's alone, the last ones after a waiter shares it.
TEST_P(ExecutorTest, WaveWithInputsArrivingMidFrame) {
  // Sums grow like binomial coefficients: 12 keeps them within int32.
  constexpr int kSide = 12;
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 1);
  b.Begin(0);
  uint32_t zero = b.Constant(0);
  std::vector<uint32_t> above(kSide);
  for (int j = 0; j < kSide; ++j) {
    // Every third column starts from a pending value (0 + 1).
    above[j] = j % 3 == 0 ? b.Kernel("test.async_increment", {zero}) : zero;
  }
  for (int i = 0; i < kSide; ++i) {
    uint32_t left =
        i % 4 == 0 ? b.Kernel("test.async_increment", {zero}) : zero;
    for (int j = 0; j < kSide; ++j) {
      left = b.Kernel("test.add.i32", {above[j], left});
      above[j] = left;
    }
  }
  b.End(f, {above[kSide - 1]});
  auto program = Load(b.Finish());

  // The same sums, computed directly.
  std::vector<int64_t> row(kSide);
  for (int j = 0; j < kSide; ++j) row[j] = j % 3 == 0 ? 1 : 0;
  for (int i = 0; i < kSide; ++i) {
    int64_t left = i % 4 == 0 ? 1 : 0;
    for (int j = 0; j < kSide; ++j) {
      left = row[j] + left;
      row[j] = left;
    }
  }
  for (int run = 0; run < 5; ++run) {
    auto results = Run(*program, "main");
    ASSERT_TRUE(results[0]->IsConcrete());
    EXPECT_EQ(results[0]->get<int32_t>(), row.back());
  }
}

// A wave wide enough that the thread running it hands kernels to idle
// workers: the multi-threaded queue runs one frame's kernels on several
// threads, and the values, an error in the middle and the one diagnostic
// for it come out as on one thread.
TEST_P(ExecutorTest, WideWaveSharedWithIdleWorkers) {
  constexpr int kSide = 96;
  ProgramBuilder b;
  uint32_t clean = b.Declare("clean", 0, 1);
  uint32_t failing = b.Declare("failing", 0, 1);
  for (bool fail : {false, true}) {
    b.Begin(0);
    uint32_t seed = b.Constant(7);
    std::vector<uint32_t> above(kSide, seed);
    for (int i = 0; i < kSide; ++i) {
      uint32_t left = seed;
      for (int j = 0; j < kSide; ++j) {
        left = fail && i == kSide / 2 && j == kSide / 2
                   ? b.Kernel("test.fail", {})
                   : b.Kernel("test.mix.i32", {above[j], left});
        above[j] = left;
      }
    }
    b.End(fail ? failing : clean, {above[kSide - 1]});
  }
  auto program = Load(b.Finish());

  std::vector<int32_t> row(kSide, 7);
  for (int i = 0; i < kSide; ++i) {
    int32_t left = 7;
    for (int j = 0; j < kSide; ++j) row[j] = left = MixExpected(row[j], left);
  }
  std::set<std::thread::id> threads;
  mix_threads = &threads;
  for (int run = 0; run < 5; ++run) {
    auto results = Run(*program, "clean");
    ASSERT_TRUE(results[0]->IsConcrete());
    EXPECT_EQ(results[0]->get<int32_t>(), row.back());
  }
  mix_threads = nullptr;
  if (std::string(GetParam()) == "s") {
    EXPECT_EQ(threads.size(), 1u);
  } else {
    EXPECT_GE(threads.size(), 2u) << "no kernel was shared with a worker";
  }

  auto failed = Run(*program, "failing");
  ASSERT_TRUE(failed[0]->IsError());
  EXPECT_EQ(failed[0]->GetError().message(), "something bad happened");
  EXPECT_EQ(diagnostics().size(), 1u);
}

// A returned register written after Execute() returned (its producer waits
// on a pending value) and one written before; both are also read by later
// kernels of the frame.
TEST_P(ExecutorTest, ReturnedRegistersWrittenBeforeAndAfterReturn) {
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 4);
  b.Begin(0);
  uint32_t two = b.Constant(2);
  uint32_t early = b.Kernel("test.add.i32", {two, two});
  uint32_t pending = b.Kernel("test.async_increment", {early});
  uint32_t late = b.Kernel("test.add.i32", {pending, early});
  uint32_t after_late = b.Kernel("test.add.i32", {late, late});
  uint32_t after_early = b.Kernel("test.add.i32", {early, two});
  b.End(f, {early, late, after_late, after_early});
  auto program = Load(b.Finish());
  for (int run = 0; run < 10; ++run) {
    auto results = Run(*program, "main");
    EXPECT_EQ(results[0]->get<int32_t>(), 4);
    EXPECT_EQ(results[1]->get<int32_t>(), 9);
    EXPECT_EQ(results[2]->get<int32_t>(), 18);
    EXPECT_EQ(results[3]->get<int32_t>(), 6);
  }
}

// Values that kernels keep and read after the frame dropped them: their
// memory must not serve the values made meanwhile.
TEST_P(ExecutorTest, ValuesKeptByKernelsOutliveTheirRegisters) {
  constexpr int kLength = 2000;
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 1);
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t x = b.Constant(0);
  uint32_t total = b.Constant(0);
  for (int i = 0; i < kLength; ++i) {
    x = b.Kernel("test.add.i32", {x, one});
    uint32_t copy = b.Kernel("test.later_copy", {x});
    total = b.Kernel("test.add.i32", {total, copy});
  }
  b.End(f, {total});
  auto program = Load(b.Finish());
  auto results = Run(*program, "main");
  EXPECT_EQ(results[0]->get<int32_t>(), kLength * (kLength + 1) / 2);
}

// An error in the middle of a long chain reaches its end as that one error
// value, with one diagnostic; cancelling in the middle of another skips the
// rest with the cancellation error.
TEST_P(ExecutorTest, ErrorAndCancellationInLongChains) {
  ProgramBuilder b;
  uint32_t failing_chain = b.Declare("failing", 0, 1);
  uint32_t cancelled_chain = b.Declare("cancelled", 0, 1);
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t failing = b.Constant(0);
  for (int i = 0; i < 5000; ++i) {
    failing = i == 2500 ? b.Kernel("test.fail", {})
                        : b.Kernel("test.add.i32", {failing, one});
  }
  b.End(failing_chain, {failing});
  b.Begin(0);
  one = b.Constant(1);
  uint32_t cancelled = b.Constant(0);
  for (int i = 0; i < 5000; ++i) {
    cancelled = b.Kernel("test.add.i32", {cancelled, one});
    if (i == 1000) b.Kernel("test.cancel", {cancelled});
  }
  b.End(cancelled_chain, {cancelled});
  auto program = Load(b.Finish());

  auto failed = Run(*program, "failing");
  ASSERT_TRUE(failed[0]->IsError());
  EXPECT_EQ(failed[0]->GetError().message(), "something bad happened");
  EXPECT_EQ(diagnostics().size(), 1u);

  auto skipped = Run(*program, "cancelled");
  ASSERT_TRUE(skipped[0]->IsError());
  EXPECT_EQ(skipped[0]->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(diagnostics().size(), 1u);
}

// Every value a run makes is freed once its results are dropped (counted
// in builds with assertions).
TEST_P(ExecutorTest, RunsLeaveNoValuesBehind) {
  if (!AsyncValue::kCountsInstances) {
    GTEST_SKIP() << "values are counted only in builds with assertions";
  }
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 1);
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t x = b.Kernel("test.async_increment", {one});
  for (int i = 0; i < 100; ++i) x = b.Kernel("test.add.i32", {x, one});
  uint32_t bad = b.Kernel("test.fail", {});
  uint32_t y = b.Kernel("test.add.i32", {bad, x});
  b.Kernel("test.later_copy", {x});
  b.End(f, {y});
  auto program = Load(b.Finish());
  const int64_t before = AsyncValue::NumLiveInstances();
  {
    auto results = Run(*program, "main");
    EXPECT_TRUE(results[0]->IsError());
  }
  EXPECT_EQ(AsyncValue::NumLiveInstances(), before);
}

TEST_P(ExecutorTest, StrictKernelForwardsErrorWithOneDiagnostic) {
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 2);
  b.Begin(0);
  uint32_t bad = b.Kernel("test.fail", {});
  uint32_t one = b.Constant(1);
  uint32_t sum = b.Kernel("test.add.i32", {bad, one});
  uint32_t sum2 = b.Kernel("test.add.i32", {sum, one});
  b.End(f, {sum2, one});
  auto program = Load(b.Finish());
  auto results = Run(*program, "main");
  ASSERT_TRUE(results[0]->IsError());
  EXPECT_EQ(results[0]->GetError().message(), "something bad happened");
  EXPECT_EQ(GetErrorContext(results[0]->GetError()).kernel, "test.fail");
  EXPECT_EQ(results[1]->get<int32_t>(), 1);
  EXPECT_THAT(diagnostics(), ElementsAre("prog.mlir:1:5: error: runtime error: "
                                         "something bad happened"));
}

TEST_P(ExecutorTest, UnusedErrorIsIgnored) {
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 1);
  b.Begin(0);
  b.Kernel("test.fail", {});
  uint32_t two = b.Constant(2);
  b.End(f, {two});
  auto program = Load(b.Finish());
  auto results = Run(*program, "main");
  EXPECT_EQ(results[0]->get<int32_t>(), 2);
  EXPECT_EQ(diagnostics().size(), 1u);  // reported, but nothing failed
}

TEST_P(ExecutorTest, AsyncResultsAndArguments) {
  ProgramBuilder b;
  uint32_t inc = b.Declare("inc_twice", 1, 1);
  uint32_t main = b.Declare("main", 0, 2);
  b.Begin(1);
  uint32_t x = b.Kernel("test.async_increment", {0});
  uint32_t y = b.Kernel("test.async_increment", {x});
  b.End(inc, {y});
  b.Begin(0);
  uint32_t c = b.Constant(40);
  uint32_t pending = b.Kernel("test.async_increment", {c});
  uint32_t r = b.Kernel("test.call", {pending}, 1, {}, {inc});
  b.End(main, {r, pending});
  auto program = Load(b.Finish());
  auto results = Run(*program, "main");
  EXPECT_EQ(results[0]->get<int32_t>(), 43);
  EXPECT_EQ(results[1]->get<int32_t>(), 41);
}

TEST_P(ExecutorTest, FunctionReturnsItsArgumentAndOneValueTwice) {
  ProgramBuilder b;
  uint32_t id = b.Declare("id", 1, 3);
  uint32_t main = b.Declare("main", 0, 3);
  b.Begin(1);
  uint32_t twice = b.Kernel("test.add.i32", {0, 0});
  b.End(id, {0, twice, twice});
  b.Begin(0);
  uint32_t seven = b.Constant(7);
  uint32_t r = b.Kernel("test.call", {seven}, 3, {}, {id});
  b.End(main, {r, r + 1, r + 2});
  auto program = Load(b.Finish());
  auto results = Run(*program, "main");
  EXPECT_EQ(results[0]->get<int32_t>(), 7);
  EXPECT_EQ(results[1]->get<int32_t>(), 14);
  EXPECT_EQ(results[2]->get<int32_t>(), 14);
}

TEST_P(ExecutorTest, ReadyKernelsRunInProgramOrder) {
  if (std::string(GetParam()) != "s")
    GTEST_SKIP() << "order is fixed on s only";
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 0);
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t two = b.Constant(2);
  b.Kernel("test.record", {two});
  b.Kernel("test.record", {one});
  uint32_t three = b.Kernel("test.add.i32", {one, two});
  b.Kernel("test.record", {three});
  b.End(f, {});
  auto program = Load(b.Finish());
  Run(*program, "main");
  // First in, first out: `1` made record(one) ready before `2` made
  // record(two) and the add ready.
  EXPECT_THAT(trace_, ElementsAre("1", "2", "3"));
}

// A call runs its kernels one after another until one leaves a pending
// value; the rest then runs as dataflow. The order must be the worklist's
// all along: the kernels that were ready before the pending one keep their
// places, and its user runs once it resolves.
TEST_P(ExecutorTest, PendingValueMidCallKeepsTheWorklistOrder) {
  if (std::string(GetParam()) != "s")
    GTEST_SKIP() << "order is fixed on s only";
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 1);
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t two = b.Constant(2);
  b.Kernel("test.record", {two});
  uint32_t later = b.Kernel("test.async_increment", {one});
  b.Kernel("test.record", {one});
  uint32_t three = b.Kernel("test.add.i32", {one, two});
  b.Kernel("test.record", {three});
  uint32_t sum = b.Kernel("test.add.i32", {later, three});
  b.Kernel("test.record", {sum});
  b.End(f, {sum});
  auto program = Load(b.Finish());
  for (int run = 0; run < 2; ++run) {
    trace_.clear();
    auto results = Run(*program, "main");
    ASSERT_TRUE(results[0]->IsConcrete());
    EXPECT_EQ(results[0]->get<int32_t>(), 5);
    // `1` readied the increment, record(one) and half the add; `2` then
    // record(two) and the add. The increment is pending when it returns.
    EXPECT_THAT(trace_, ElementsAre("1", "2", "3", "5"));
  }
}

TEST_P(ExecutorTest, CancelledRequestSkipsPendingKernels) {
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 2);
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t before = b.Kernel("test.add.i32", {one, one});
  b.Kernel("test.cancel", {before});
  // Made only after the call returned: the cancellation ran by then.
  uint32_t pending = b.Kernel("test.gated_increment", {one});
  uint32_t after = b.Kernel("test.add.i32", {pending, one});
  b.End(f, {before, after});
  auto program = Load(b.Finish());
  auto results =
      CallFunction(*program->GetFunction("main"),
                   ExecutionContext(RequestContext::Create(&host_)), {});
  OpenGate();
  host_.Await(results);
  host_.Quiesce();
  EXPECT_EQ(results[0]->get<int32_t>(), 2);
  ASSERT_TRUE(results[1]->IsError());
  EXPECT_EQ(results[1]->GetError().code(), absl::StatusCode::kCancelled);
}

TEST_P(ExecutorTest, UnknownKernelIsALoadErrorWithItsLocation) {
  ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 0);
  b.Begin(0);
  b.Constant(1);
  b.Kernel("test.no_such_kernel", {});
  b.End(f, {});
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::Load(b.Finish(), GetKernelRegistry(&host_));
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().message(),
            "unknown kernel name 'test.no_such_kernel'");
  EXPECT_EQ(GetErrorContext(program.status()).location, "prog.mlir:2:5");
}

TEST_P(ExecutorTest, ListsNamedFunctionsInOrder) {
  ProgramBuilder b;
  uint32_t g = b.Declare("g", 0, 0);
  uint32_t f = b.Declare("f", 0, 0);
  b.Begin(0);
  b.End(g, {});
  b.Begin(0);
  b.End(f, {});
  auto program = Load(b.Finish());
  std::vector<std::string> names;
  for (const Function* function : program->ListFunctions()) {
    names.push_back(function->name());
  }
  EXPECT_THAT(names, ElementsAre("g", "f"));
  EXPECT_EQ(program->GetFunction("h"), nullptr);
}

// Registers hold one reference for all of a value's readers, so a count of
// one does not make a value unique: only its last reader may reuse it, and
// never a value the caller passed in, one returned, or one read by the same
// kernel twice.
TEST_P(ExecutorTest, OnlyTheLastReaderMayReuseAValue) {
  ProgramBuilder b;
  uint32_t bump = b.Declare("bump", 1, 1);
  uint32_t main = b.Declare("main", 0, 6);
  b.Begin(1);
  uint32_t bumped = b.Kernel("test.increment_in_place", {0});
  b.End(bump, {bumped});
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t two = b.Kernel("test.add.i32", {one, one});
  // `two` is read again below: copied.
  uint32_t three = b.Kernel("test.increment_in_place", {two});
  uint32_t five = b.Kernel("test.add.i32", {two, three});
  // The last of three readers: reused.
  uint32_t ten = b.Kernel("test.add.i32", {five, five});
  uint32_t six = b.Kernel("test.increment_in_place", {five});
  // The constant is kept for its other readers: copied.
  uint32_t constant_plus_one = b.Kernel("test.increment_in_place", {one});
  // An argument is the caller's: copied, and `ten` is still ten after it.
  uint32_t eleven = b.Kernel("test.call", {ten}, 1, {}, {bump});
  uint32_t twenty = b.Kernel("test.add.i32", {ten, ten});
  // Returned as well as read: copied.
  uint32_t twenty_one = b.Kernel("test.increment_in_place", {twenty});
  b.End(main, {three, six, constant_plus_one, eleven, twenty, twenty_one});
  auto program = Load(b.Finish());
  reused.store(0);
  auto results = Run(*program, "main");
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results[0]->get<int32_t>(), 3);
  EXPECT_EQ(results[1]->get<int32_t>(), 6);
  EXPECT_EQ(results[2]->get<int32_t>(), 2);
  EXPECT_EQ(results[3]->get<int32_t>(), 11);
  EXPECT_EQ(results[4]->get<int32_t>(), 20);
  EXPECT_EQ(results[5]->get<int32_t>(), 21);
  // With workers, `five`'s readers may run at once: then none of them is
  // the last while the others read, and the value is copied.
  if (std::string(GetParam()) == "s") {
    EXPECT_EQ(reused.load(), 1);
  } else {
    EXPECT_LE(reused.load(), 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Queues, ExecutorTest,
                         ::testing::Values("s", "mstd:2,2"),
                         [](const auto& info) {
                           return std::string(info.param) == "s" ? "single"
                                                                 : "multi";
                         });

}  // namespace
}  // namespace sluice
