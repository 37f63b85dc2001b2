// Strings, prints, count3, test_cost, logging, print_debug_info,
// get_thread_id and memory_leak_one_int32: exact output and values.
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/kernels/test_kernels.h"
#include "sluice/support/logging.h"
#include "test/util/kernel_test_host.h"

namespace sluice {
namespace {

using ::testing::EndsWith;
using ::testing::IsEmpty;
using ::testing::StartsWith;

class ValueKernelsTest : public ::testing::Test {
 protected:
  ValueKernelsTest() : host_("s", DecodedLocation{"prog.mlir", 1, 1}) {
    EXPECT_TRUE(RegisterTestKernels(&host_.registry()).ok());
  }

  test_util::KernelTestHost host_;
};

TEST_F(ValueKernelsTest, PrintHello) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.print_hello");
  frame.AddAvailableArg<Chain>().SetNumResults(1);
  EXPECT_EQ(host_.InvokeCapturingStdout(frame, "tfrt_test.print_hello"),
            "hello host executor!\n");
  (void)frame.result(0)->get<Chain>();
}

TEST_F(ValueKernelsTest, PrintBool) {
  for (bool value : {true, false}) {
    KernelFrameBuilder frame = host_.Frame("tfrt_test.print_bool");
    frame.AddAvailableArg<Chain>().AddAvailableArg<bool>(value).SetNumResults(
        1);
    EXPECT_EQ(host_.InvokeCapturingStdout(frame, "tfrt_test.print_bool"),
              value ? "true\n" : "false\n");
    (void)frame.result(0)->get<Chain>();
  }
}

TEST_F(ValueKernelsTest, GetStringCopiesTheAttribute) {
  std::unique_ptr<KernelFrameBuilder> frame =
      host_.NewFrame("tfrt_test.get_string", std::nullopt);
  frame->AddAttribute(frame->attribute_buffer().AddString("bark"))
      .SetNumResults(1);
  EXPECT_EQ(host_.InvokeCapturingStdout(*frame, "tfrt_test.get_string"), "");
  RCReference<AsyncValue> value = frame->result(0).CopyRef();
  // The payload owns its bytes: it outlives the attribute's storage.
  frame.reset();
  EXPECT_EQ(value->get<std::string>(), "bark");
}

TEST_F(ValueKernelsTest, PrintString) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.print_string");
  frame.AddAvailableArg<std::string>("hello world")
      .AddAvailableArg<Chain>()
      .SetNumResults(1);
  EXPECT_EQ(host_.InvokeCapturingStdout(frame, "tfrt_test.print_string"),
            "string = hello world\n");
  (void)frame.result(0)->get<Chain>();
}

TEST_F(ValueKernelsTest, AppendString) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.append_string");
  frame.AddAvailableArg<std::string>("hello ")
      .AddAvailableArg<std::string>("world")
      .SetNumResults(1);
  EXPECT_EQ(host_.InvokeCapturingStdout(frame, "tfrt_test.append_string"), "");
  EXPECT_EQ(frame.result(0)->get<std::string>(), "hello world");
}

TEST_F(ValueKernelsTest, Count3) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.count3.i32");
  frame.AddAvailableArg<int32_t>(10).SetNumResults(3);
  host_.InvokeCapturingStdout(frame, "tfrt_test.count3.i32");
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 11);
  EXPECT_EQ(frame.result(1)->get<int32_t>(), 12);
  EXPECT_EQ(frame.result(2)->get<int32_t>(), 13);
}

TEST_F(ValueKernelsTest, Count3WrapsAround) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  KernelFrameBuilder frame = host_.Frame("tfrt_test.count3.i32");
  frame.AddAvailableArg<int32_t>(kMax - 1).SetNumResults(3);
  host_.InvokeCapturingStdout(frame, "tfrt_test.count3.i32");
  EXPECT_EQ(frame.result(0)->get<int32_t>(), kMax);
  EXPECT_EQ(frame.result(1)->get<int32_t>(),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(frame.result(2)->get<int32_t>(),
            std::numeric_limits<int32_t>::min() + 1);
}

TEST_F(ValueKernelsTest, TestCostPrintsItsIdAndReturnsZero) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.test_cost");
  frame.AddAvailableArg<int32_t>(5)
      .AddAttribute(frame.attribute_buffer().AddScalar<int64_t>(7))
      .SetNumResults(1);
  EXPECT_EQ(host_.InvokeCapturingStdout(frame, "tfrt_test.test_cost"),
            "id: 7\n");
  EXPECT_EQ(frame.result(0)->get<int32_t>(), 0);
}

class CollectingSink : public LogSink {
 public:
  void Send(LogSeverity severity, std::string_view line) override {
    lines.emplace_back(severity, std::string(line));
  }
  std::vector<std::pair<LogSeverity, std::string>> lines;
};

TEST_F(ValueKernelsTest, LoggingLogsSixLines) {
  CollectingSink sink;
  LogSink* previous_sink = SetLogSink(&sink);
  const LogSeverity previous_level = MinLogLevel();
  SetMinLogLevel(LogSeverity::kInfo);

  KernelFrameBuilder frame = host_.Frame("tfrt_test.logging");
  frame.AddAvailableArg<std::string>("hi")
      .AddAvailableArg<Chain>()
      .SetNumResults(1);
  const std::string printed =
      host_.InvokeCapturingStdout(frame, "tfrt_test.logging");

  SetMinLogLevel(previous_level);
  SetLogSink(previous_sink);
  EXPECT_EQ(printed, "");  // Logs are not program output.
  (void)frame.result(0)->get<Chain>();
  const std::pair<LogSeverity, const char*> kExpected[] = {
      {LogSeverity::kInfo, "] from TFRT_LOG(INFO): hi"},
      {LogSeverity::kWarning, "] from TFRT_LOG(WARNING): hi"},
      {LogSeverity::kError, "] from TFRT_LOG(ERROR): hi"},
      {LogSeverity::kInfo, "] from TFRT_LOG_IF(INFO, true): hi"},
      {LogSeverity::kWarning, "] from TFRT_LOG_IF(WARNING, true): hi"},
      {LogSeverity::kError, "] from TFRT_LOG_IF(ERROR, true): hi"},
  };
  ASSERT_EQ(sink.lines.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(sink.lines[i].first, kExpected[i].first) << i;
    EXPECT_THAT(sink.lines[i].second, EndsWith(kExpected[i].second));
    EXPECT_THAT(sink.lines[i].second,
                StartsWith(std::string(
                    1, "IWE"[static_cast<int>(kExpected[i].first)])));
  }
}

// KernelFrameBuilder sets no debug name, so these build the frame by hand,
// the way the executor does.
std::string PrintDebugInfo(HostContext* host,
                           const RCReference<RequestContext>& request,
                           std::optional<std::string_view> debug_name) {
  ExecutionContext context(request.CopyRef());
  KernelDebugInfo info;
  info.name = "tfrt_test.print_debug_info";
  info.location = KernelLocation{"prog.mlir", 1, 1};
  info.debug_name = debug_name;
  RCReference<AsyncValue> chain = MakeReadyChain().ReleaseRCRef();
  AsyncValue* arguments[] = {chain.get()};
  RCReference<AsyncValue> results[1];
  KernelFrame frame(&context, &info);
  frame.Reset(arguments, {}, absl::MakeSpan(results));
  testing::internal::CaptureStdout();
  GetKernelRegistry(host)
      .GetKernel("tfrt_test.print_debug_info")
      ->implementation(&frame);
  std::string printed = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(results[0] && results[0]->IsConcrete());
  return printed;
}

TEST_F(ValueKernelsTest, PrintDebugInfoPrintsTheDebugName) {
  EXPECT_EQ(PrintDebugInfo(host_.host_context(), host_.request(), "foo"),
            "foo\n");
  EXPECT_EQ(PrintDebugInfo(host_.host_context(), host_.request(), "foo, bar"),
            "foo, bar\n");
}

TEST_F(ValueKernelsTest, PrintDebugInfoWithoutADebugName) {
  EXPECT_EQ(PrintDebugInfo(host_.host_context(), host_.request(), std::nullopt),
            "Kernel has no debug info\n");
  KernelFrameBuilder frame = host_.Frame("tfrt_test.print_debug_info");
  frame.AddAvailableArg<Chain>().SetNumResults(1);
  EXPECT_EQ(host_.InvokeCapturingStdout(frame, "tfrt_test.print_debug_info"),
            "Kernel has no debug info\n");
}

// The only test in this binary that asks for thread ids, so the main
// thread asks first and gets 0.
TEST_F(ValueKernelsTest, GetThreadIdIsDensePerThread) {
  auto thread_id = [this] {
    KernelFrameBuilder frame = host_.Frame("tfrt_test.get_thread_id");
    frame.AddAvailableArg<Chain>().SetNumResults(1);
    host_.Invoke(frame, "tfrt_test.get_thread_id");
    return frame.result(0)->get<int32_t>();
  };
  EXPECT_EQ(thread_id(), 0);
  EXPECT_EQ(thread_id(), 0);
  int32_t other = -1;
  int32_t other_again = -1;
  std::thread([&] {
    other = thread_id();
    other_again = thread_id();
  }).join();
  EXPECT_EQ(other, 1);
  EXPECT_EQ(other_again, 1);
  int32_t third = -1;
  std::thread([&] { third = thread_id(); }).join();
  EXPECT_EQ(third, 2);
  EXPECT_EQ(thread_id(), 0);
}

// Frees whatever is still allocated when destroyed, so that the leak the
// kernel makes on purpose does not trip LeakSanitizer.
class FreeOnDestroyAllocator : public HostAllocator {
 public:
  ~FreeOnDestroyAllocator() override {
    for (const auto& [pointer, size] : alive_) {
      base_->DeallocateBytes(pointer, size);
    }
  }
  void* AllocateBytes(size_t size, size_t alignment) override {
    void* pointer = base_->AllocateBytes(size, alignment);
    std::lock_guard<std::mutex> lock(mu_);
    alive_[pointer] = size;
    return pointer;
  }
  void DeallocateBytes(void* pointer, size_t size) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      alive_.erase(pointer);
    }
    base_->DeallocateBytes(pointer, size);
  }

 private:
  std::unique_ptr<HostAllocator> base_ = CreateMallocAllocator();
  std::mutex mu_;
  std::map<void*, size_t> alive_;
};

TEST(MemoryLeakTest, LeaksOneInt32FromTheHostAllocator) {
  auto leak_check = std::make_unique<LeakCheckAllocator>(
      std::make_unique<FreeOnDestroyAllocator>());
  LeakCheckAllocator* leaks = leak_check.get();
  // The leak check logs the leak when the host goes; keep it off stderr.
  CollectingSink sink;
  LogSink* previous_sink = SetLogSink(&sink);
  {
    HostContext host([](const DecodedDiagnostic&) {}, std::move(leak_check),
                     CreateSingleThreadedWorkQueue());
    EXPECT_TRUE(RegisterTestKernels(&GetKernelRegistry(&host)).ok());
    RCReference<RequestContext> request = RequestContext::Create(&host);
    KernelFrameBuilder frame(ExecutionContext(request.CopyRef()),
                             "tfrt_test.memory_leak_one_int32",
                             DecodedLocation{"prog.mlir", 1, 1});
    frame.SetNumResults(0);
    frame.Invoke(GetKernelRegistry(&host)
                     .GetKernel("tfrt_test.memory_leak_one_int32")
                     ->implementation);
    EXPECT_EQ(leaks->num_alive_allocations(), 1);
    EXPECT_EQ(leaks->num_alive_bytes(), 4);
    EXPECT_NE(leaks->LeakReport(), "");
  }
  SetLogSink(previous_sink);
}

TEST_F(ValueKernelsTest, NoDiagnostics) {
  KernelFrameBuilder frame = host_.Frame("tfrt_test.print_hello");
  frame.AddAvailableArg<Chain>().SetNumResults(1);
  host_.InvokeCapturingStdout(frame, "tfrt_test.print_hello");
  EXPECT_THAT(host_.diagnostics(), IsEmpty());
}

}  // namespace
}  // namespace sluice
