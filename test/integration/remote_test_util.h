// The client side of the integration tests: a client host, the program the
// workers run, and waits that give up after a bound (a hung call must fail
// the test, not time it out).
#ifndef SLUICE_TEST_INTEGRATION_REMOTE_TEST_UTIL_H_
#define SLUICE_TEST_INTEGRATION_REMOTE_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "sluice/distributed/cluster_spec.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "test/util/wait_until.h"

namespace sluice::dist::testing {

// How late past its deadline a failure may arrive. Sanitizer builds run
// several times slower on the 2-core machines the suite runs on.
#ifdef SLUICE_SANITIZER
inline constexpr absl::Duration kMargin = absl::Seconds(4);
#else
inline constexpr absl::Duration kMargin = absl::Seconds(2);
#endif

// The longest any single wait in a test may take before it counts as hung.
inline constexpr absl::Duration kHangBound = absl::Seconds(60);

// Functions every test worker gets:
//   add(i32, i32) -> i32
//   slow_add(i32, i32) -> i32        2 ms on the worker's blocking pool
//   spin(i32 n) -> i32               n iterations of a 1 ms sleep, each
//                                    printing "Slept for 1000 microseconds";
//                                    checks cancellation every iteration
//   count(i32 n) -> i32              n iterations of a synchronous add: n;
//                                    never waits, checks cancellation
//                                    every iteration
//   echo(!tfrt.string) -> !tfrt.string
//   twice(!tfrt.string) -> !tfrt.string    the string twice over
//   fail() -> i32                    an error made by tfrt_test.fail
inline constexpr char kTestProgramName[] = "integration.mlir";
std::vector<uint8_t> TestProgram();

// A client host with two worker threads: answers resolve there, so a test
// thread can wait with a bound.
std::unique_ptr<HostContext> MakeClientHost();

// {"worker": [addresses...]}: task i listens on addresses[i].
ClusterSpec WorkerCluster(const std::vector<std::string>& addresses);

// Waits until every value is available; false if one is not after
// `timeout`.
bool AwaitFor(absl::Span<const RCReference<AsyncValue>> values,
              absl::Duration timeout = kHangBound);
bool AwaitFor(const RCReference<AsyncValue>& value,
              absl::Duration timeout = kHangBound);

// The tests in this namespace call it unqualified.
using ::sluice::testing::WaitUntil;

// The results of blocking versions of the client calls. A wait past
// kHangBound is reported as an error whose message says so.
absl::StatusOr<TaskStatus> GetStatusNow(
    TaskClient* task, std::optional<absl::Duration> deadline = std::nullopt);
absl::StatusOr<RemoteProgram> RegisterNow(TaskClient* task,
                                          absl::Span<const uint8_t> program);
// Polls the task's status until `condition` holds (or kHangBound passes);
// returns the last status. The worker counts an execution as active until
// gRPC is done with it, a moment after the caller has its answer.
absl::StatusOr<TaskStatus> WaitForStatus(
    TaskClient* task, const std::function<bool(const TaskStatus&)>& condition);
// WaitForStatus until no execution is active.
absl::StatusOr<TaskStatus> WaitForIdle(TaskClient* task);

// The function `name` of the test program, registered on `task`.
absl::StatusOr<RemoteFunction> RegisterTestFunction(TaskClient* task,
                                                    std::string_view name);

// Calls and waits; the results (or, when they hung, errors saying so).
std::vector<RCReference<AsyncValue>> CallNow(
    TaskClient* task, const RemoteFunction& function,
    std::vector<RCReference<AsyncValue>> arguments,
    RequestContext* request = nullptr, const CallOptions& options = {});

// Available argument values.
RCReference<AsyncValue> I32(int32_t value);
RCReference<AsyncValue> String(std::string value);

// Braced lists of move-only references are not possible; this is.
template <typename... Values>
std::vector<RCReference<AsyncValue>> Args(Values... values) {
  std::vector<RCReference<AsyncValue>> out;
  (out.push_back(std::move(values)), ...);
  return out;
}

}  // namespace sluice::dist::testing

#endif  // SLUICE_TEST_INTEGRATION_REMOTE_TEST_UTIL_H_
