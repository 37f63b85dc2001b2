// What a worker lets its callers do, tried as an attacker would, against
// real sluice_worker processes on 127.0.0.1: kernels open files only under
// the worker's --data_root, the tfrt_test kernels are served only with
// --enable_test_kernels, each client's calls and blocking-pool threads are
// bounded, and SIGTERM ends the worker within its grace and a second even
// with its blocking pool full of sleeping calls.
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/support/error_util.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;

// Line numbers matter: the errors name them (confinement.mlir:LINE:COL).
constexpr char kCheckpointProgram[] = R"mlir(
func.func @save(%unused: i32) -> !tfrt.chain {
  %c0 = tfrt.new.chain
  %w = tfrt_dht.create_uninitialized_tensor.f32.1 [2 : i64]
  %c1 = tfrt_dht.set_tensor_with_constant_values.f32 %w, %c0 [1.5 : f32, 2.5 : f32]
  %step = tfrt.constant.i64 1
  %c2 = tfrt_ft.save_checkpoint %c1, %step, %step, %w
      {directory = "DIRECTORY", names = ["w"], keep_last = 1 : i32}
  tfrt.return %c2 : !tfrt.chain
}
func.func @restore(%unused: i32) -> i64 {
  %c0 = tfrt.new.chain
  %c1, %step, %epoch, %w = tfrt_ft.restore_checkpoint %c0
      {directory = "DIRECTORY", names = ["w"]} : !t.tensor
  tfrt.return %step : i64
}
)mlir";

constexpr char kSleepProgram[] = R"mlir(
func.func @sleep(%us: i32) -> !tfrt.chain {
  %done = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  tfrt.return %done : !tfrt.chain
}
func.func @sleep_four(%us: i32) -> !tfrt.chain {
  %a = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  %b = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  %c = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  %d = "tfrt_test.blocking.usleep"(%us) : (i32) -> !tfrt.chain
  %all = tfrt.merge.chains %a, %b, %c, %d
      : !tfrt.chain, !tfrt.chain, !tfrt.chain, !tfrt.chain
  tfrt.return %all : !tfrt.chain
}
func.func @add(%a: i32, %b: i32) -> i32 {
  %sum = tfrt.add.i32 %a, %b
  tfrt.return %sum : i32
}
)mlir";

// The save op's line in kCheckpointProgram, and the restore op's.
constexpr int kSaveLine = 7;
constexpr int kRestoreLine = 13;

std::vector<uint8_t> Compile(const std::string& text) {
  absl::StatusOr<std::vector<uint8_t>> compiled =
      CompileProgram(text, "confinement.mlir");
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  return compiled.ok() ? *std::move(compiled) : std::vector<uint8_t>();
}

// A fresh directory under the test's temporary directory, canonical.
std::string MakeTemporaryDirectory(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern =
      absl::StrCat(base != nullptr ? base : "/tmp", "/", name, "_XXXXXX");
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  char real[PATH_MAX];
  EXPECT_NE(realpath(pattern.c_str(), real), nullptr);
  return real;
}

bool Exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

// A call in flight: its argument stays alive with it.
struct PendingCall {
  RCReference<AsyncValue> argument;
  std::vector<RCReference<AsyncValue>> results;
};

PendingCall StartCall(TaskClient* task, const RemoteFunction& function,
                      int32_t argument) {
  PendingCall call;
  call.argument = I32(argument);
  AsyncValue* arguments[] = {call.argument.get()};
  call.results = task->Call(function, arguments, /*request=*/nullptr);
  return call;
}

RemoteFunction Function(const RemoteProgram& program, const char* name) {
  absl::StatusOr<RemoteFunction> function = program.GetFunction(name);
  EXPECT_TRUE(function.ok()) << function.status();
  return *function;
}

class PathConfinementTest : public WorkerFixture {
 protected:
  void SetUp() override {
    base_ = MakeTemporaryDirectory("confinement");
    root_ = base_ + "/root";
    outside_ = base_ + "/outside";
    ASSERT_EQ(mkdir(root_.c_str(), 0755), 0);
    ASSERT_EQ(mkdir(outside_.c_str(), 0755), 0);
    ASSERT_EQ(symlink(outside_.c_str(), (root_ + "/link").c_str()), 0);
    ASSERT_NO_FATAL_FAILURE(StartCluster(
        1, RpcOptions(), /*start_workers=*/true,
        {"--work_queue_type=mstd:2", absl::StrCat("--data_root=", root_)}));
  }

  // Registers the checkpoint program with `directory` and calls `function`.
  RCReference<AsyncValue> CallWithDirectory(const std::string& directory,
                                            const char* function) {
    absl::StatusOr<RemoteProgram> program = RegisterNow(
        task(0), Compile(absl::StrReplaceAll(kCheckpointProgram,
                                             {{"DIRECTORY", directory}})));
    EXPECT_TRUE(program.ok()) << program.status();
    if (!program.ok()) return MakeErrorAsyncValueRef(program.status());
    return std::move(
        CallNow(task(0), Function(*program, function), Args(I32(0)))[0]);
  }

  void ExpectRefused(const std::string& directory, const char* function,
                     const char* op, int line) {
    SCOPED_TRACE(absl::StrCat(function, " in ", directory));
    RCReference<AsyncValue> result = CallWithDirectory(directory, function);
    ASSERT_TRUE(result->IsError());
    const absl::Status& error = result->GetError();
    EXPECT_EQ(error.code(), absl::StatusCode::kPermissionDenied) << error;
    const std::string described = DescribeError(error);
    EXPECT_THAT(described, HasSubstr(absl::StrCat(op, ": checkpoint "
                                                      "directory refused")));
    EXPECT_THAT(described, HasSubstr(absl::StrCat("path '", directory,
                                                  "' is outside the data "
                                                  "root '",
                                                  root_, "'")));
    EXPECT_THAT(described,
                HasSubstr(absl::StrCat("confinement.mlir:", line, ":")));
  }

  std::string base_, root_, outside_;
};

TEST_F(PathConfinementTest, APathInsideTheDataRootWorks) {
  RCReference<AsyncValue> saved = CallWithDirectory("run1/ckpt", "save");
  ASSERT_FALSE(saved->IsError()) << saved->GetError();
  EXPECT_TRUE(Exists(root_ + "/run1/ckpt"));
  RCReference<AsyncValue> step = CallWithDirectory("run1/ckpt", "restore");
  ASSERT_FALSE(step->IsError()) << step->GetError();
  EXPECT_EQ(step->get<int64_t>(), 1);
  // An absolute path inside the root is the same directory.
  step = CallWithDirectory(root_ + "/run1/ckpt", "restore");
  ASSERT_FALSE(step->IsError()) << step->GetError();
}

TEST_F(PathConfinementTest, EscapesAreRefusedNamingOpLocationAndPath) {
  ExpectRefused("../outside/climbed", "save", "tfrt_ft.save_checkpoint",
                kSaveLine);
  ExpectRefused(outside_ + "/absolute", "save", "tfrt_ft.save_checkpoint",
                kSaveLine);
  ExpectRefused("link/through", "save", "tfrt_ft.save_checkpoint",
                kSaveLine);
  ExpectRefused("../outside", "restore", "tfrt_ft.restore_checkpoint",
                kRestoreLine);
  // Nothing was written outside the root.
  EXPECT_FALSE(Exists(outside_ + "/climbed"));
  EXPECT_FALSE(Exists(outside_ + "/absolute"));
  EXPECT_FALSE(Exists(outside_ + "/through"));
}

class TestKernelsTest : public WorkerFixture {};

TEST_F(TestKernelsTest, AreRefusedWithoutTheFlagNamingTheOp) {
  worker_enable_test_kernels_ = false;
  ASSERT_NO_FATAL_FAILURE(StartCluster(1));
  absl::StatusOr<RemoteProgram> program =
      RegisterNow(task(0), Compile(kSleepProgram));
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(program.status().message(),
              HasSubstr("confinement.mlir:3:11: op "
                        "'tfrt_test.blocking.usleep' in function 'sleep' uses "
                        "a kernel this task does not serve"));
  EXPECT_THAT(program.status().message(), HasSubstr("--enable_test_kernels"));
  EXPECT_THAT(program.status().message(), HasSubstr(Name(0)));
  // A program without them is served.
  absl::StatusOr<RemoteProgram> plain = RegisterNow(
      task(0), Compile(absl::StrReplaceAll(kCheckpointProgram,
                                           {{"DIRECTORY", "ckpt"}})));
  EXPECT_TRUE(plain.ok()) << plain.status();
}

TEST_F(TestKernelsTest, AreServedWithTheFlag) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(1));
  absl::StatusOr<RemoteProgram> program =
      RegisterNow(task(0), Compile(kSleepProgram));
  ASSERT_TRUE(program.ok()) << program.status();
  auto done = CallNow(task(0), Function(*program, "sleep"), Args(I32(1000)));
  EXPECT_FALSE(done[0]->IsError()) << done[0]->GetError();
}

class ClientBoundsTest : public WorkerFixture {
 protected:
  void Start(std::vector<std::string> flags) {
    flags.insert(flags.begin(), "--work_queue_type=mstd:2,64");
    ASSERT_NO_FATAL_FAILURE(StartCluster(1, RpcOptions(),
                                         /*start_workers=*/true, flags));
    absl::StatusOr<RemoteProgram> program =
        RegisterNow(task(0), Compile(kSleepProgram));
    ASSERT_TRUE(program.ok()) << program.status();
    program_ = *program;
  }

  // Waits until the worker runs `count` calls.
  void AwaitActive(int count) {
    absl::StatusOr<TaskStatus> status = WaitForStatus(
        task(0), [count](const TaskStatus& status) {
          return status.active_executions == count;
        });
    ASSERT_TRUE(status.ok()) << status.status();
  }

  RemoteProgram program_;
};

TEST_F(ClientBoundsTest, CallsPastTheExecutionBoundAreResourceExhausted) {
  ASSERT_NO_FATAL_FAILURE(Start({"--max_client_executions=2"}));
  const RemoteFunction sleep = Function(program_, "sleep");
  std::vector<PendingCall> sleeping;
  for (int i = 0; i < 2; ++i) sleeping.push_back(StartCall(task(0), sleep, 2000000));
  ASSERT_NO_FATAL_FAILURE(AwaitActive(2));

  auto refused = CallNow(task(0), Function(program_, "add"), Args(I32(1), I32(2)));
  ASSERT_TRUE(refused[0]->IsError());
  EXPECT_EQ(refused[0]->GetError().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused[0]->GetError().message(),
              HasSubstr("refuses a call of 'add' from client ipv4:127.0.0.1: "
                        "it runs 2 calls here already, the most one client "
                        "may (max_client_executions=2)"));

  for (PendingCall& call : sleeping) {
    ASSERT_TRUE(AwaitFor(call.results));
    EXPECT_FALSE(call.results[0]->IsError()) << call.results[0]->GetError();
  }
  auto sum = CallNow(task(0), Function(program_, "add"), Args(I32(1), I32(2)));
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
  EXPECT_EQ(sum[0]->get<int32_t>(), 3);
}

TEST_F(ClientBoundsTest, AClientHoldsAtMostItsShareOfTheBlockingPool) {
  ASSERT_NO_FATAL_FAILURE(Start({"--max_client_blocking_tasks=2"}));
  constexpr absl::Duration kSleep = absl::Seconds(1);
  const absl::Time start = absl::Now();
  // Four sleeps in one call: two hold the client's two threads, two wait.
  PendingCall four = StartCall(task(0), Function(program_, "sleep_four"),
                               absl::ToInt64Microseconds(kSleep));
  ASSERT_NO_FATAL_FAILURE(AwaitActive(1));
  // Meanwhile the client's calls that need no blocking thread run.
  auto meanwhile =
      CallNow(task(0), Function(program_, "add"), Args(I32(1), I32(2)));
  ASSERT_FALSE(meanwhile[0]->IsError()) << meanwhile[0]->GetError();
  EXPECT_LT(absl::Now() - start, kSleep);

  ASSERT_TRUE(AwaitFor(four.results));
  EXPECT_FALSE(four.results[0]->IsError()) << four.results[0]->GetError();
  // Two at a time: the four sleeps took two rounds.
  EXPECT_GE(absl::Now() - start, 2 * kSleep);
  auto sum = CallNow(task(0), Function(program_, "add"), Args(I32(1), I32(2)));
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
}

// Fills the blocking pool of a worker with `blocking_threads` threads
// (0: the default pool) with sleeps of a minute, `calls` of them, then sends
// SIGTERM: the worker must be gone within its grace and a second.
class ShutdownTest : public WorkerFixture {
 protected:
  void FillPoolAndTerminate(int blocking_threads, int calls);
};

TEST_F(ShutdownTest, SigtermEndsAWorkerWhoseBlockingPoolIsFull) {
  FillPoolAndTerminate(/*blocking_threads=*/8, /*calls=*/16);
}

// The report's case: 260 sleeping calls past the default pool of 256.
TEST_F(ShutdownTest, SigtermEndsAWorkerWhoseDefaultPoolIsOverfull) {
  FillPoolAndTerminate(/*blocking_threads=*/0, /*calls=*/260);
}

void ShutdownTest::FillPoolAndTerminate(int blocking_threads, int calls) {
  constexpr absl::Duration kGrace = absl::Seconds(1);
  ASSERT_NO_FATAL_FAILURE(StartCluster(
      1, RpcOptions(), /*start_workers=*/true,
      {blocking_threads > 0
           ? absl::StrCat("--work_queue_type=mstd:2,", blocking_threads)
           : "--work_queue_type=mstd:2",
       absl::StrCat("--shutdown_grace_s=", absl::ToDoubleSeconds(kGrace)),
       // One client fills the pool here, as an attacker without the
       // bounds would.
       "--max_client_blocking_tasks=1024", "--max_client_executions=1024"}));
  absl::StatusOr<RemoteProgram> program =
      RegisterNow(task(0), Compile(kSleepProgram));
  ASSERT_TRUE(program.ok()) << program.status();
  std::vector<PendingCall> sleeping;
  for (int i = 0; i < calls; ++i) {
    sleeping.push_back(
        StartCall(task(0), Function(*program, "sleep"), 60 * 1000 * 1000));
  }
  absl::StatusOr<TaskStatus> busy =
      WaitForStatus(task(0), [calls](const TaskStatus& status) {
        return status.active_executions == calls;
      });
  ASSERT_TRUE(busy.ok()) << busy.status();

  const absl::Time signalled = absl::Now();
  absl::StatusOr<int> exit_code = worker(0).Terminate(absl::Seconds(20));
  const absl::Duration took = absl::Now() - signalled;
  // Exited, killed by no signal; its watchdog's status, as kernels stuck in
  // their sleeps cannot be waited for.
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  std::printf("worker exited with status %d %s after SIGTERM\n", *exit_code,
              absl::FormatDuration(took).c_str());
  // The grace and the watchdog's second, and a little for the process to
  // go (it runs no destructors).
  EXPECT_LE(took, kGrace + absl::Seconds(1) + absl::Milliseconds(500));
  for (PendingCall& call : sleeping) {
    ASSERT_TRUE(AwaitFor(call.results));
    EXPECT_TRUE(call.results[0]->IsError());
  }
}

}  // namespace
}  // namespace sluice::dist::testing
