// tfrt_test.benchmark, called through KernelFrameBuilder with hand-written
// bodies the way the executor calls them: the runs it makes and its report.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/attribute_buffer.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernels/test_kernels.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::IsEmpty;

using test_util::I32Adder;
using test_util::LambdaFunction;

RCReference<AsyncValue> I32(int32_t value) {
  return MakeAvailableAsyncValueRef<int32_t>(value).ReleaseRCRef();
}

class BenchmarkFixture : public ::testing::Test {
 protected:
  explicit BenchmarkFixture(std::string_view spec = "s")
      : host_(spec, DecodedLocation{"prog.mlir", 5, 3}) {
    EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok());
  }

  test_util::KernelTestHost host_;
};

// --- tfrt_test.benchmark -----------------------------------------------------

struct BenchmarkAttributes {
  int64_t duration_secs = 100;
  int64_t max_count = 5;
  std::string name = "BM_test";
  std::optional<int64_t> num_warmup_runs;
};

// In the order the kernel names its attributes: name, duration_secs,
// max_count, num_warmup_runs (null when left out, as loading passes it).
void AddBenchmarkAttributes(KernelFrameBuilder& frame,
                            const BenchmarkAttributes& attributes) {
  AttributeBuffer& buffer = frame.attribute_buffer();
  auto add_int = [&](int64_t value) {
    frame.AddAttribute(buffer.AddScalar<int32_t>(static_cast<int32_t>(value)));
  };
  frame.AddAttribute(buffer.AddString(attributes.name));
  add_int(attributes.duration_secs);
  add_int(attributes.max_count);
  if (attributes.num_warmup_runs) {
    add_int(*attributes.num_warmup_runs);
  } else {
    frame.AddAttribute(nullptr);
  }
}

bool IsDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
}

// %e of a non-negative number: "d.dddddde+dd".
bool IsExponentForm(std::string_view text) {
  return text.size() == 12 && IsDigits(text.substr(0, 1)) && text[1] == '.' &&
         IsDigits(text.substr(2, 6)) && text[8] == 'e' &&
         (text[9] == '+' || text[9] == '-') && IsDigits(text.substr(10));
}

// The report's lines, in order, with integers replaced by N and the
// utilization by X; `count` gets the reported run count.
std::vector<std::string> ReportShape(const std::string& output,
                                     std::string* count) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.rfind(": ");
    if (colon != std::string::npos) {
      const std::string value = line.substr(colon + 2);
      const std::string label = line.substr(0, colon + 2);
      if (IsDigits(value)) {
        if (label == "BM:BM_test:Count: ") *count = value;
        line = label + "N";
      } else if (IsExponentForm(value)) {
        line = label + "X";
      }
    }
    lines.push_back(line);
  }
  return lines;
}

const std::vector<std::string>& ExpectedShape() {
  static const auto* const shape = new std::vector<std::string>{
      "BM:BM_test:Duration(ns): N",
      "BM:BM_test:Count: N",
      "BM:BM_test:Time Min(ns): N",
      "BM:BM_test:Time 50%(ns): N",
      "BM:BM_test:Time 95%(ns): N",
      "BM:BM_test:Time 99%(ns): N",
      "BM:BM_test:CPU Min(ns): N",
      "BM:BM_test:CPU 50%(ns): N",
      "BM:BM_test:CPU 95%(ns): N",
      "BM:BM_test:CPU 99%(ns): N",
      "BM:BM_test:CPU utilization(percent): X",
  };
  return *shape;
}

class BenchmarkTest : public BenchmarkFixture {
 protected:
  // Runs a benchmark of `body` and returns its output; `count` gets the
  // reported run count.
  std::string Run(const BenchmarkAttributes& attributes,
                  const LambdaFunction& body, std::string* count) {
    KernelFrameBuilder frame = host_.Frame("tfrt_test.benchmark");
    frame.AddArg(I32(1)).AddArg(I32(2)).AddFunction(&body).SetNumResults(1);
    AddBenchmarkAttributes(frame, attributes);
    testing::internal::CaptureStdout();
    host_.Invoke(frame, "tfrt_test.benchmark");
    host_.Await(frame.results());
    host_.Quiesce();
    std::string output = testing::internal::GetCapturedStdout();
    EXPECT_TRUE(frame.result(0)->IsConcrete());
    EXPECT_EQ(ReportShape(output, count), ExpectedShape()) << output;
    return output;
  }
};

TEST_F(BenchmarkTest, RunsWarmUpThenMaxCount) {
  LambdaFunction body = I32Adder();
  BenchmarkAttributes attributes;
  attributes.max_count = 5;
  attributes.num_warmup_runs = 2;
  std::string count;
  Run(attributes, body, &count);
  EXPECT_EQ(count, "5");
  EXPECT_EQ(body.calls(), 7);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(BenchmarkTest, OneWarmUpRunByDefault) {
  LambdaFunction body = I32Adder();
  BenchmarkAttributes attributes;
  attributes.max_count = 3;
  std::string count;
  Run(attributes, body, &count);
  EXPECT_EQ(count, "3");
  EXPECT_EQ(body.calls(), 4);
}

// With no time to spare, the benchmark stops after its first measured run.
TEST_F(BenchmarkTest, StopsWhenTheDurationHasPassed) {
  LambdaFunction body = I32Adder();
  BenchmarkAttributes attributes;
  attributes.duration_secs = 0;
  attributes.max_count = 1000000;
  std::string count;
  Run(attributes, body, &count);
  EXPECT_EQ(count, "1");
  EXPECT_EQ(body.calls(), 2);
}

TEST_F(BenchmarkTest, ZeroMaxCountRunsOnlyTheWarmUp) {
  LambdaFunction body = I32Adder();
  BenchmarkAttributes attributes;
  attributes.max_count = 0;
  attributes.num_warmup_runs = 3;
  std::string count;
  const std::string output = Run(attributes, body, &count);
  EXPECT_EQ(count, "0");
  EXPECT_EQ(body.calls(), 3);
  EXPECT_NE(output.find("BM:BM_test:Duration(ns): 0\n"), std::string::npos);
}

TEST_F(BenchmarkTest, ReportsMonotonePercentiles) {
  LambdaFunction body = I32Adder();
  BenchmarkAttributes attributes;
  attributes.max_count = 50;
  std::string count;
  const std::string output = Run(attributes, body, &count);
  auto value = [&output](const std::string& label) {
    const std::string key = "BM:BM_test:" + label + ": ";
    const size_t at = output.find(key);
    EXPECT_NE(at, std::string::npos) << label;
    return std::stoll(output.substr(at + key.size()));
  };
  EXPECT_LE(value("Time Min(ns)"), value("Time 50%(ns)"));
  EXPECT_LE(value("Time 50%(ns)"), value("Time 95%(ns)"));
  EXPECT_LE(value("Time 95%(ns)"), value("Time 99%(ns)"));
  EXPECT_LE(value("CPU Min(ns)"), value("CPU 50%(ns)"));
  EXPECT_LE(value("CPU 50%(ns)"), value("CPU 95%(ns)"));
  EXPECT_LE(value("CPU 95%(ns)"), value("CPU 99%(ns)"));
  EXPECT_LE(value("Time 99%(ns)"), value("Duration(ns)"));
}

// Body results that arrive from the queue: each run starts only after the
// previous one finished.
TEST_F(BenchmarkTest, RunsAsynchronousBodiesOneAtATime) {
  std::atomic<int> in_flight{0};
  std::atomic<int> max_in_flight{0};
  HostContext* host = host_.host_context();
  LambdaFunction body(
      2, 1,
      [&, host](const ExecutionContext&, absl::Span<AsyncValue* const>,
                absl::Span<RCReference<AsyncValue>> results) {
        const int now = in_flight.fetch_add(1) + 1;
        int seen = max_in_flight.load();
        while (now > seen && !max_in_flight.compare_exchange_weak(seen, now)) {
        }
        AsyncValueRef<int32_t> result =
            MakeUnconstructedAsyncValueRef<int32_t>();
        results[0] = result.CopyRCRef();
        host->EnqueueWork([&in_flight, result = std::move(result)] {
          in_flight.fetch_sub(1);
          result.emplace(1);
        });
      });
  BenchmarkAttributes attributes;
  attributes.max_count = 20;
  std::string count;
  Run(attributes, body, &count);
  EXPECT_EQ(count, "20");
  EXPECT_EQ(body.calls(), 21);
  EXPECT_EQ(max_in_flight.load(), 1);
}

TEST_F(BenchmarkTest, AFailedRunFailsTheChainSilently) {
  LambdaFunction body(2, 1,
                      [](const ExecutionContext&, absl::Span<AsyncValue* const>,
                         absl::Span<RCReference<AsyncValue>> results) {
                        results[0] =
                            MakeErrorAsyncValueRef(absl::InternalError("boom"));
                      });
  KernelFrameBuilder frame = host_.Frame("tfrt_test.benchmark");
  frame.AddArg(I32(1)).AddArg(I32(2)).AddFunction(&body).SetNumResults(1);
  AddBenchmarkAttributes(frame, BenchmarkAttributes());
  testing::internal::CaptureStdout();
  host_.Invoke(frame, "tfrt_test.benchmark");
  host_.Await(frame.results());
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().message(), "boom");
  EXPECT_EQ(body.calls(), 1);
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

TEST_F(BenchmarkTest, ACancelledRequestStopsTheBenchmark) {
  LambdaFunction body = I32Adder();
  KernelFrameBuilder frame = host_.Frame("tfrt_test.benchmark");
  frame.AddArg(I32(1)).AddArg(I32(2)).AddFunction(&body).SetNumResults(1);
  AddBenchmarkAttributes(frame, BenchmarkAttributes());
  host_.Invoke(frame, "tfrt_test.benchmark");
  host_.request()->Cancel();
  host_.Await(frame.results());
  ASSERT_TRUE(frame.result(0)->IsError());
  EXPECT_EQ(frame.result(0)->GetError().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(body.calls(), 0);
}

class BenchmarkMultiThreadedTest : public BenchmarkFixture {
 protected:
  BenchmarkMultiThreadedTest() : BenchmarkFixture("mstd:4,2") {}
};

TEST_F(BenchmarkMultiThreadedTest, BenchmarkWithAsyncBody) {
  HostContext* host = host_.host_context();
  LambdaFunction body(
      2, 1,
      [host](const ExecutionContext&, absl::Span<AsyncValue* const>,
             absl::Span<RCReference<AsyncValue>> results) {
        results[0] = EnqueueWork(host, [] { return 1; }).ReleaseRCRef();
      });
  KernelFrameBuilder frame = host_.Frame("tfrt_test.benchmark");
  frame.AddArg(I32(1)).AddArg(I32(2)).AddFunction(&body).SetNumResults(1);
  BenchmarkAttributes attributes;
  attributes.max_count = 100;
  AddBenchmarkAttributes(frame, attributes);
  testing::internal::CaptureStdout();
  host_.Invoke(frame, "tfrt_test.benchmark");
  host_.Await(frame.results());
  host_.Quiesce();
  std::string count;
  const std::string output = testing::internal::GetCapturedStdout();
  EXPECT_EQ(ReportShape(output, &count), ExpectedShape());
  EXPECT_EQ(count, "100");
  EXPECT_EQ(body.calls(), 101);
}

}  // namespace
}  // namespace sluice
