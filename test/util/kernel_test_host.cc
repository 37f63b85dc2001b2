#include "test/util/kernel_test_host.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/ref_count.h"

namespace sluice {
namespace test_util {
namespace {

// The queue `spec` names; a test failure and a single-threaded queue if it
// names none.
std::unique_ptr<ConcurrentWorkQueue> CreateQueue(std::string_view spec) {
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateWorkQueue(spec);
  EXPECT_TRUE(queue.ok()) << queue.status();
  if (!queue.ok()) return CreateSingleThreadedWorkQueue();
  return *std::move(queue);
}

}  // namespace

KernelTestHost::KernelTestHost(std::string_view queue_spec,
                               std::optional<DecodedLocation> location)
    : location_(std::move(location)),
      host_(std::make_unique<HostContext>(
          [this](const DecodedDiagnostic& diagnostic) {
            std::lock_guard<std::mutex> lock(mu_);
            diagnostics_.push_back(diagnostic.ToString());
          },
          CreateMallocAllocator(), CreateQueue(queue_spec))),
      request_(RequestContext::Create(host_.get())) {}

KernelRegistry& KernelTestHost::registry() const {
  return GetKernelRegistry(host_.get());
}

RCReference<RequestContext> KernelTestHost::NewRequest() const {
  return RequestContext::Create(host_.get());
}

ExecutionContext KernelTestHost::Context() const {
  return ExecutionContext(request_.CopyRef());
}

KernelFrameBuilder KernelTestHost::Frame(std::string kernel) const {
  return Frame(std::move(kernel), location_);
}

KernelFrameBuilder KernelTestHost::Frame(
    std::string kernel, std::optional<DecodedLocation> location) const {
  return KernelFrameBuilder(Context(), std::move(kernel), std::move(location));
}

std::unique_ptr<KernelFrameBuilder> KernelTestHost::NewFrame(
    std::string kernel) const {
  return NewFrame(std::move(kernel), location_);
}

std::unique_ptr<KernelFrameBuilder> KernelTestHost::NewFrame(
    std::string kernel, std::optional<DecodedLocation> location) const {
  return std::make_unique<KernelFrameBuilder>(Context(), std::move(kernel),
                                              std::move(location));
}

KernelImplementation KernelTestHost::Kernel(std::string_view name) const {
  const RegisteredKernel* kernel = registry().GetKernel(name);
  if (kernel == nullptr) {
    ADD_FAILURE() << name << " is not registered";
    return nullptr;
  }
  return kernel->implementation;
}

void KernelTestHost::Invoke(KernelFrameBuilder& frame,
                            std::string_view name) const {
  const RegisteredKernel* kernel = registry().GetKernel(name);
  ASSERT_NE(kernel, nullptr) << name << " is not registered";
  EXPECT_EQ(kernel->strictness, Strictness::kStrict) << name;
  frame.Invoke(kernel->implementation);
}

std::string KernelTestHost::InvokeCapturingStdout(KernelFrameBuilder& frame,
                                                  std::string_view name) const {
  const RegisteredKernel* kernel = registry().GetKernel(name);
  if (kernel == nullptr) {
    ADD_FAILURE() << name << " is not registered";
    return "";
  }
  EXPECT_EQ(kernel->strictness, Strictness::kStrict) << name;
  testing::internal::CaptureStdout();
  frame.Invoke(kernel->implementation);
  std::string printed = testing::internal::GetCapturedStdout();
  for (const RCReference<AsyncValue>& result : frame.results()) {
    EXPECT_TRUE(result && result->IsConcrete()) << name;
  }
  return printed;
}

std::vector<std::string> KernelTestHost::diagnostics() const {
  std::lock_guard<std::mutex> lock(mu_);
  return diagnostics_;
}

void KernelTestHost::ClearDiagnostics() {
  std::lock_guard<std::mutex> lock(mu_);
  diagnostics_.clear();
}

LambdaFunction::LambdaFunction(std::string name, size_t num_arguments,
                               size_t num_results, Body body)
    : Function(std::move(name), num_arguments, num_results),
      body_(std::move(body)) {}

LambdaFunction::LambdaFunction(size_t num_arguments, size_t num_results,
                               Body body)
    : LambdaFunction("", num_arguments, num_results, std::move(body)) {}

void LambdaFunction::Execute(
    const ExecutionContext& context, absl::Span<AsyncValue* const> arguments,
    absl::Span<RCReference<AsyncValue>> results) const {
  calls_.fetch_add(1);
  body_(context, arguments, results);
}

LambdaFunction I32Adder(std::string name) {
  return LambdaFunction(
      std::move(name), 2, 1,
      [](const ExecutionContext&, absl::Span<AsyncValue* const> arguments,
         absl::Span<RCReference<AsyncValue>> results) {
        results[0] =
            MakeAvailableAsyncValueRef<int32_t>(arguments[0]->get<int32_t>() +
                                                arguments[1]->get<int32_t>())
                .ReleaseRCRef();
      });
}

}  // namespace test_util
}  // namespace sluice
