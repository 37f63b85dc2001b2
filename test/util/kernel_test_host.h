// What kernel unit tests need to call kernels by hand, the way the executor
// calls them: a host whose diagnostics are collected, a request, frames, and
// a Function whose body is a lambda.
//
//   class FooKernelsTest : public ::testing::Test {
//    protected:
//     FooKernelsTest() : host_("s", DecodedLocation{"prog.mlir", 1, 1}) {
//       RegisterFooKernels(&host_.registry());
//     }
//     test_util::KernelTestHost host_;
//   };
//
//   TEST_F(FooKernelsTest, Adds) {
//     KernelFrameBuilder frame = host_.Frame("foo.add");
//     frame.AddAvailableArg<int32_t>(1).AddAvailableArg<int32_t>(2);
//     frame.SetNumResults(1);
//     host_.Invoke(frame, "foo.add");
//     host_.Await(frame.results());
//     EXPECT_EQ(frame.result(0)->get<int32_t>(), 3);
//     EXPECT_THAT(host_.diagnostics(), IsEmpty());
//   }

#ifndef SLUICE_TEST_UTIL_KERNEL_TEST_HOST_H_
#define SLUICE_TEST_UTIL_KERNEL_TEST_HOST_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/diagnostic.h"
#include "sluice/host_context/execution_context.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/function.h"
#include "sluice/kernel/kernel_frame_builder.h"
#include "sluice/kernel/kernel_registry.h"
#include "sluice/support/ref_count.h"

namespace sluice {
// Not `testing`: inside namespace sluice that name would hide ::testing.
namespace test_util {

// A HostContext with an empty kernel registry, the malloc allocator and the
// work queue a spec names, that collects the diagnostics it is given; and a
// request on it. Register the kernels under test through registry().
class KernelTestHost {
 public:
  // `queue_spec` is what CreateWorkQueue() understands ("s", "mstd:4,2");
  // frames from Frame() and NewFrame(name) get `location`.
  explicit KernelTestHost(
      std::string_view queue_spec = "s",
      std::optional<DecodedLocation> location = std::nullopt);
  KernelTestHost(const KernelTestHost&) = delete;
  KernelTestHost& operator=(const KernelTestHost&) = delete;

  HostContext* host_context() const { return host_.get(); }
  KernelRegistry& registry() const;

  // The request every frame runs in unless told otherwise.
  const RCReference<RequestContext>& request() const { return request_; }
  // Another request on the same host.
  RCReference<RequestContext> NewRequest() const;
  // An execution context for request().
  ExecutionContext Context() const;

  // A frame for `kernel` in request(), at the host's location or the one
  // given. KernelFrameBuilder can be neither copied nor moved: keep the
  // result where it is made (`KernelFrameBuilder frame = host.Frame(...)`),
  // or use NewFrame() for one that must travel.
  KernelFrameBuilder Frame(std::string kernel) const;
  KernelFrameBuilder Frame(std::string kernel,
                           std::optional<DecodedLocation> location) const;
  std::unique_ptr<KernelFrameBuilder> NewFrame(std::string kernel) const;
  std::unique_ptr<KernelFrameBuilder> NewFrame(
      std::string kernel, std::optional<DecodedLocation> location) const;

  // The implementation of kernel `name`, whatever its strictness; a test
  // failure and nullptr if it is not registered.
  KernelImplementation Kernel(std::string_view name) const;

  // Calls the strict kernel `name` on `frame`; does not wait. A test failure
  // if `name` is not registered or not strict.
  void Invoke(KernelFrameBuilder& frame, std::string_view name) const;

  // Like Invoke(), and returns what the kernel printed to stdout. Every
  // result must be available when the kernel returns.
  std::string InvokeCapturingStdout(KernelFrameBuilder& frame,
                                    std::string_view name) const;

  void Await(absl::Span<const RCReference<AsyncValue>> values) const {
    host_->Await(values);
  }
  void Await(const RCReference<AsyncValue>& value) const {
    host_->Await(value);
  }
  void Quiesce() const { host_->Quiesce(); }

  // The diagnostics emitted so far, as DecodedDiagnostic::ToString() wrote
  // them; safe to call while other threads emit more.
  std::vector<std::string> diagnostics() const;
  void ClearDiagnostics();

 private:
  const std::optional<DecodedLocation> location_;
  mutable std::mutex mu_;
  std::vector<std::string> diagnostics_;  // Guarded by mu_.
  // Declared after what its diagnostic handler uses: destroying the host
  // finishes its work, which may still emit diagnostics.
  std::unique_ptr<HostContext> host_;
  RCReference<RequestContext> request_;
};

// A Function whose body is a lambda; counts the calls made to it, from any
// thread.
class LambdaFunction : public Function {
 public:
  using Body =
      std::function<void(const ExecutionContext&, absl::Span<AsyncValue* const>,
                         absl::Span<RCReference<AsyncValue>>)>;

  LambdaFunction(std::string name, size_t num_arguments, size_t num_results,
                 Body body);
  // One without a name.
  LambdaFunction(size_t num_arguments, size_t num_results, Body body);

  void Execute(const ExecutionContext& context,
               absl::Span<AsyncValue* const> arguments,
               absl::Span<RCReference<AsyncValue>> results) const override;

  int calls() const { return calls_.load(); }

 private:
  Body body_;
  mutable std::atomic<int> calls_{0};
};

// (i32, i32) -> i32: the sum of its arguments, which must be available.
LambdaFunction I32Adder(std::string name = "");

}  // namespace test_util
}  // namespace sluice

#endif  // SLUICE_TEST_UTIL_KERNEL_TEST_HOST_H_
