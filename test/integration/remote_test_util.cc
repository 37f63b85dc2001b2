#include "test/integration/remote_test_util.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/run_when_ready.h"

namespace sluice::dist::testing {
namespace {

constexpr char kTestProgram[] = R"mlir(
func.func @add(%a: i32, %b: i32) -> i32 {
  %c = tfrt.add.i32 %a, %b
  tfrt.return %c : i32
}

func.func @slow_add(%a: i32, %b: i32) -> i32 {
  %late = "tfrt_test.async_copy.with_delay.i32"(%a) : (i32) -> i32
  %c = tfrt.add.i32 %late, %b
  tfrt.return %c : i32
}

func.func @spin(%n: i32) -> i32 {
  %zero = tfrt.constant.i32 0
  %ch0 = tfrt.new.chain
  %x, %ch1 = tfrt.repeat.i32 %n, %zero, %ch0 : i32, !tfrt.chain {
    %us = tfrt.constant.i32 1000
    %ch2 = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
    tfrt.return %zero, %ch2 : i32, !tfrt.chain
  }
  tfrt.return %x : i32
}

func.func @count(%n: i32) -> i32 {
  %zero = tfrt.constant.i32 0
  %x = tfrt.repeat.i32 %n, %zero : i32 {
    %one = tfrt.constant.i32 1
    %next = tfrt.add.i32 %zero, %one
    tfrt.return %next : i32
  }
  tfrt.return %x : i32
}

func.func @echo(%s: !tfrt.string) -> !tfrt.string {
  tfrt.return %s : !tfrt.string
}

func.func @twice(%s: !tfrt.string) -> !tfrt.string {
  %t = "tfrt_test.append_string"(%s, %s)
      : (!tfrt.string, !tfrt.string) -> !tfrt.string
  tfrt.return %t : !tfrt.string
}

func.func @fail() -> i32 {
  %bad = "tfrt_test.fail"() : () -> i32
  tfrt.return %bad : i32
}

func.func @blocked(%us: i32) -> !tfrt.chain {
  %slept = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  tfrt.return %slept : !tfrt.chain
}
)mlir";

absl::Status Hung(std::string_view what) {
  return absl::DeadlineExceededError(
      absl::StrCat("TEST HARNESS: ", std::string(what), " did not resolve in ",
                   absl::FormatDuration(kHangBound), " (hung)"));
}

}  // namespace

std::vector<uint8_t> TestProgram() {
  static const std::vector<uint8_t>* const program = [] {
    absl::StatusOr<std::vector<uint8_t>> compiled =
        CompileProgram(kTestProgram, kTestProgramName);
    if (!compiled.ok()) {
      std::fprintf(stderr, "cannot compile the test program: %s\n",
                   std::string(compiled.status().message()).c_str());
      std::abort();
    }
    return new std::vector<uint8_t>(*std::move(compiled));
  }();
  return *program;
}

std::unique_ptr<HostContext> MakeClientHost() {
  return std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                       CreateMallocAllocator(),
                                       *CreateWorkQueue("mstd:2"));
}

ClusterSpec WorkerCluster(const std::vector<std::string>& addresses) {
  std::vector<std::string> quoted;
  for (const std::string& address : addresses) {
    quoted.push_back(absl::StrCat("\"", address, "\""));
  }
  absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(
      absl::StrCat("{\"worker\": [", absl::StrJoin(quoted, ", "), "]}"));
  if (!spec.ok()) std::abort();
  return *std::move(spec);
}

bool AwaitFor(absl::Span<const RCReference<AsyncValue>> values,
              absl::Duration timeout) {
  // Shared: the callback may run after a timed-out wait has returned.
  auto done = std::make_shared<absl::Notification>();
  std::vector<AsyncValue*> pointers;
  pointers.reserve(values.size());
  for (const RCReference<AsyncValue>& value : values) {
    pointers.push_back(value.get());
  }
  RunWhenReady(pointers, [done] { done->Notify(); });
  return done->WaitForNotificationWithTimeout(timeout);
}

bool AwaitFor(const RCReference<AsyncValue>& value, absl::Duration timeout) {
  return AwaitFor(absl::MakeConstSpan(&value, 1), timeout);
}

absl::StatusOr<TaskStatus> GetStatusNow(
    TaskClient* task, std::optional<absl::Duration> deadline) {
  AsyncValueRef<TaskStatus> status = task->GetStatus(deadline);
  if (!AwaitFor(status.CopyRCRef())) return Hung("GetStatus");
  if (status.IsError()) return status.GetError();
  return status.get();
}

absl::StatusOr<TaskStatus> WaitForStatus(
    TaskClient* task, const std::function<bool(const TaskStatus&)>& condition) {
  absl::StatusOr<TaskStatus> status;
  WaitUntil(
      [&] {
        status = GetStatusNow(task);
        return status.ok() && condition(*status);
      },
      kHangBound);
  return status;
}

absl::StatusOr<TaskStatus> WaitForIdle(TaskClient* task) {
  return WaitForStatus(task, [](const TaskStatus& status) {
    return status.active_executions == 0;
  });
}

absl::StatusOr<RemoteProgram> RegisterNow(TaskClient* task,
                                          absl::Span<const uint8_t> program) {
  AsyncValueRef<RemoteProgram> registered = task->RegisterProgram(program);
  if (!AwaitFor(registered.CopyRCRef())) return Hung("RegisterProgram");
  if (registered.IsError()) return registered.GetError();
  return registered.get();
}

absl::StatusOr<RemoteFunction> RegisterTestFunction(TaskClient* task,
                                                    std::string_view name) {
  absl::StatusOr<RemoteProgram> program = RegisterNow(task, TestProgram());
  if (!program.ok()) return program.status();
  return program->GetFunction(name);
}

std::vector<RCReference<AsyncValue>> CallNow(
    TaskClient* task, const RemoteFunction& function,
    std::vector<RCReference<AsyncValue>> arguments, RequestContext* request,
    const CallOptions& options) {
  std::vector<AsyncValue*> pointers;
  for (const RCReference<AsyncValue>& argument : arguments) {
    pointers.push_back(argument.get());
  }
  std::vector<RCReference<AsyncValue>> results =
      task->Call(function, pointers, request, options);
  if (!AwaitFor(results)) {
    std::vector<RCReference<AsyncValue>> hung;
    for (size_t i = 0; i < results.size(); ++i) {
      hung.push_back(MakeErrorAsyncValueRef(
          Hung(absl::StrCat("the call of '", function.name, "'"))));
    }
    return hung;
  }
  return results;
}

RCReference<AsyncValue> I32(int32_t value) {
  return MakeAvailableAsyncValueRef<int32_t>(value).ReleaseRCRef();
}

RCReference<AsyncValue> String(std::string value) {
  return MakeAvailableAsyncValueRef<std::string>(std::move(value))
      .ReleaseRCRef();
}

}  // namespace sluice::dist::testing
