// A worker keeps at most --max_programs programs (and --max_program_bytes
// of them) loaded: registering more evicts the least recently used ones
// that no call runs, and a client calling an evicted program registers it
// again without the caller seeing an error.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/distributed/remote_client.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kMaxPrograms = 3;

// A program of its own for each `k`: value() returns k.
std::vector<uint8_t> ProgramReturning(int k) {
  absl::StatusOr<std::vector<uint8_t>> program = CompileProgram(
      absl::StrCat("func.func @value() -> i32 {\n  %k = tfrt.constant.i32 ", k,
                   "\n  tfrt.return %k : i32\n}\n"),
      absl::StrCat("value", k, ".mlir"));
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *program : std::vector<uint8_t>();
}

class ProgramLimitTest : public WorkerFixture {
 protected:
  void StartWithFlags(std::vector<std::string> flags) {
    flags.push_back("--work_queue_type=mstd:2");
    ASSERT_NO_FATAL_FAILURE(StartCluster(1, RpcOptions(), true, flags));
  }

  absl::StatusOr<RemoteFunction> RegisterValue(int k) {
    absl::StatusOr<RemoteProgram> program =
        RegisterNow(task(0), ProgramReturning(k));
    if (!program.ok()) return program.status();
    return program->GetFunction("value");
  }

  void ExpectValue(const RemoteFunction& function, int k) {
    auto results = CallNow(task(0), function, {});
    ASSERT_FALSE(results[0]->IsError()) << results[0]->GetError();
    EXPECT_EQ(results[0]->get<int32_t>(), k);
  }

  TaskStatus Status() {
    absl::StatusOr<TaskStatus> status = GetStatusNow(task(0));
    EXPECT_TRUE(status.ok()) << status.status();
    return status.ok() ? *status : TaskStatus();
  }
};

TEST_F(ProgramLimitTest, EvictedProgramsAreRegisteredAgainOnTheirNextCall) {
  ASSERT_NO_FATAL_FAILURE(
      StartWithFlags({absl::StrCat("--max_programs=", kMaxPrograms)}));
  constexpr int kPrograms = 2 * kMaxPrograms;
  std::vector<RemoteFunction> functions;
  for (int k = 0; k < kPrograms; ++k) {
    absl::StatusOr<RemoteFunction> function = RegisterValue(k);
    ASSERT_TRUE(function.ok()) << function.status();
    functions.push_back(*function);
    EXPECT_LE(Status().registered_programs, kMaxPrograms) << "after " << k;
  }
  TaskStatus status = Status();
  EXPECT_EQ(status.registered_programs, kMaxPrograms);
  EXPECT_EQ(status.evicted_programs, kPrograms - kMaxPrograms);

  // The oldest programs are gone from the worker; their calls still work,
  // each putting its program back and evicting another.
  for (int k = 0; k < kPrograms; ++k) {
    ASSERT_NO_FATAL_FAILURE(ExpectValue(functions[k], k)) << "program " << k;
  }
  status = Status();
  EXPECT_EQ(status.registered_programs, kMaxPrograms);
  EXPECT_GT(status.evicted_programs, kPrograms - kMaxPrograms);
}

TEST_F(ProgramLimitTest, ARecentlyCalledProgramStays) {
  ASSERT_NO_FATAL_FAILURE(
      StartWithFlags({absl::StrCat("--max_programs=", kMaxPrograms)}));
  absl::StatusOr<RemoteFunction> kept = RegisterValue(100);
  ASSERT_TRUE(kept.ok()) << kept.status();
  for (int k = 0; k < 2 * kMaxPrograms; ++k) {
    // Calling it makes it the most recently used.
    ASSERT_NO_FATAL_FAILURE(ExpectValue(*kept, 100));
    ASSERT_TRUE(RegisterValue(k).ok());
  }
  const int64_t evicted = Status().evicted_programs;
  ASSERT_NO_FATAL_FAILURE(ExpectValue(*kept, 100));
  // Its call found it there: nothing was evicted to make room for it.
  EXPECT_EQ(Status().evicted_programs, evicted);
}

TEST_F(ProgramLimitTest, ARunningProgramIsNotEvicted) {
  ASSERT_NO_FATAL_FAILURE(StartWithFlags({"--max_programs=1"}));
  absl::StatusOr<RemoteFunction> spin = RegisterTestFunction(task(0), "spin");
  ASSERT_TRUE(spin.ok()) << spin.status();
  RCReference<AsyncValue> iterations = I32(300);  // about 300 ms
  AsyncValue* arguments[] = {iterations.get()};
  std::vector<RCReference<AsyncValue>> running =
      task(0)->Call(*spin, arguments, nullptr);
  ASSERT_TRUE(WaitForStatus(task(0), [](const TaskStatus& status) {
                return status.active_executions == 1;
              }).ok());

  // The running program stays, over the limit, while the newcomer pushes
  // out nothing else.
  absl::StatusOr<RemoteFunction> other = RegisterValue(7);
  ASSERT_TRUE(other.ok()) << other.status();
  TaskStatus status = Status();
  if (status.active_executions == 1) {
    EXPECT_EQ(status.registered_programs, 2);
    EXPECT_EQ(status.evicted_programs, 0);
  }

  ASSERT_TRUE(AwaitFor(running));
  ASSERT_FALSE(running[0]->IsError()) << running[0]->GetError();
  // Once the call is done the limit holds again.
  absl::StatusOr<TaskStatus> settled =
      WaitForStatus(task(0), [](const TaskStatus& status) {
        return status.active_executions == 0 && status.registered_programs == 1;
      });
  ASSERT_TRUE(settled.ok()) << settled.status();
  EXPECT_EQ(settled->registered_programs, 1);
  ASSERT_NO_FATAL_FAILURE(ExpectValue(*other, 7));
}

TEST_F(ProgramLimitTest, TheByteLimitEvictsAndRefusesTooLargePrograms) {
  const std::vector<uint8_t> one = ProgramReturning(1);
  // Room for two programs of this size, not three.
  const size_t limit = one.size() * 5 / 2;
  ASSERT_NO_FATAL_FAILURE(
      StartWithFlags({absl::StrCat("--max_program_bytes=", limit)}));
  std::vector<RemoteFunction> functions;
  for (int k = 0; k < 4; ++k) {
    absl::StatusOr<RemoteFunction> function = RegisterValue(k);
    ASSERT_TRUE(function.ok()) << function.status();
    functions.push_back(*function);
  }
  EXPECT_LE(Status().registered_programs, 2);
  ASSERT_NO_FATAL_FAILURE(ExpectValue(functions[0], 0));

  const std::vector<uint8_t> large = TestProgram();
  ASSERT_GT(large.size(), limit);
  absl::StatusOr<RemoteProgram> refused = RegisterNow(task(0), large);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(),
              HasSubstr(absl::StrCat("task /job:worker/task:0 cannot hold a "
                                     "program of ",
                                     large.size(), " bytes")));
}

}  // namespace
}  // namespace sluice::dist::testing
