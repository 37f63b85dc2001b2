// Bad input to a worker process (malformed programs, unknown functions and
// programs, wrong arguments, messages over its size limit) gets a clear
// error naming the task, and the worker goes on serving.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/support/error_util.h"
#include "sluice/support/failure.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kWorkerMaxMessageBytes = 1 << 20;

class BadInputTest : public WorkerFixture {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StartCluster(
        1, RpcOptions(), /*start_workers=*/true,
        {"--work_queue_type=mstd:2",
         absl::StrCat("--max_message_bytes=", kWorkerMaxMessageBytes)}));
    absl::StatusOr<RemoteProgram> program = RegisterNow(task(0), TestProgram());
    ASSERT_TRUE(program.ok()) << program.status();
    program_ = *program;
    add_ = *program_.GetFunction("add");
  }

  // The worker is alive and still answers calls correctly.
  void ExpectStillServing() {
    ASSERT_TRUE(worker(0).IsRunning());
    auto sum = CallNow(task(0), add_, Args(I32(3), I32(4)));
    ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
    EXPECT_EQ(sum[0]->get<int32_t>(), 7);
  }

  static void ExpectCallError(
      const RCReference<AsyncValue>& result, absl::StatusCode code,
      std::string_view what,
      FailureClass failure_class = FailureClass::kFatal) {
    ExpectTaskError(result, code, failure_class, what, Name(0));
  }

  RemoteProgram program_;
  RemoteFunction add_;
};

TEST_F(BadInputTest, MalformedProgramsAreRejected) {
  std::vector<uint8_t> garbage = {'n', 'o', 't', ' ', 's', 'b', 'f'};
  absl::StatusOr<RemoteProgram> bad = RegisterNow(task(0), garbage);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("task /job:worker/task:0 cannot load the program"));
  EXPECT_THAT(bad.status().message(),
              HasSubstr("registering a program on task /job:worker/task:0"));
  EXPECT_EQ(Classify(bad.status()), FailureClass::kFatal);

  bad = RegisterNow(task(0), {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("cannot load the program"));

  // Truncated and corrupted copies of a good program: each is either
  // rejected or loads; none may bring the worker down.
  const std::vector<uint8_t> good = TestProgram();
  std::mt19937 random(20261122);
  for (int i = 0; i < 100; ++i) {
    std::vector<uint8_t> mutant = good;
    if (i % 4 == 0) {
      mutant.resize(random() % mutant.size());
    } else {
      for (int flips = 1 + i % 3; flips > 0; --flips) {
        mutant[random() % mutant.size()] ^= 1 + random() % 255;
      }
    }
    absl::StatusOr<RemoteProgram> registered = RegisterNow(task(0), mutant);
    if (!registered.ok()) {
      EXPECT_THAT(registered.status().message(),
                  HasSubstr("cannot load the program"))
          << "mutant " << i << ": " << registered.status();
    }
    ASSERT_TRUE(worker(0).IsRunning()) << "mutant " << i;
  }
  ExpectStillServing();
}

TEST_F(BadInputTest, UnknownFunctionsAndProgramsAreNotFound) {
  RemoteFunction missing = add_;
  missing.name = "missing";
  auto results = CallNow(task(0), missing, Args(I32(1), I32(2)));
  ExpectCallError(results[0], absl::StatusCode::kNotFound,
                  "remote call of 'missing'");
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr("has no function 'missing'"));

  RemoteFunction stale = add_;
  stale.program_id ^= 1;
  results = CallNow(task(0), stale, Args(I32(1), I32(2)));
  // Registering the program again and repeating the call would succeed.
  ExpectCallError(results[0], absl::StatusCode::kFailedPrecondition,
                  "register the program first", FailureClass::kRetryable);
  ExpectStillServing();
}

TEST_F(BadInputTest, WrongArgumentsAreInvalid) {
  auto results = CallNow(task(0), add_, Args(I32(1)));
  ExpectCallError(results[0], absl::StatusCode::kInvalidArgument,
                  "takes 2 argument(s) (i32, i32), the call passed 1");

  results = CallNow(task(0), add_, Args(I32(1), I32(2), I32(3)));
  ExpectCallError(results[0], absl::StatusCode::kInvalidArgument,
                  "the call passed 3");

  results = CallNow(task(0), add_, Args(I32(1), String("two")));
  ExpectCallError(results[0], absl::StatusCode::kInvalidArgument,
                  "argument 1 of function 'add' on task /job:worker/task:0 "
                  "must be i32, the call passed !tfrt.string");
  ExpectStillServing();
}

TEST_F(BadInputTest, AWorkerErrorNamesTheTask) {
  auto results = CallNow(task(0), *program_.GetFunction("fail"), Args());
  ASSERT_TRUE(results[0]->IsError());
  ErrorContext context = GetErrorContext(results[0]->GetError());
  EXPECT_EQ(context.task, Name(0));
  EXPECT_EQ(context.kernel, "tfrt_test.fail");
  EXPECT_EQ(context.location, "integration.mlir:45:10");
  absl::StatusOr<TaskStatus> status = GetStatusNow(task(0));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(context.incarnation, status->incarnation);
  // The program is wrong: running it elsewhere fails the same way.
  EXPECT_EQ(Classify(results[0]->GetError()), FailureClass::kFatal);
  ExpectStillServing();
}

TEST_F(BadInputTest, ARequestOverTheWorkersLimitIsRejected) {
  RemoteFunction echo = *program_.GetFunction("echo");
  auto results =
      CallNow(task(0), echo, Args(String(std::string(2 << 20, 'x'))));
  ExpectCallError(results[0], absl::StatusCode::kResourceExhausted,
                  "remote call of 'echo'");
  ExpectStillServing();

  // Just under the limit goes through.
  const std::string fits(kWorkerMaxMessageBytes - 1024, 'y');
  results = CallNow(task(0), echo, Args(String(fits)));
  ASSERT_FALSE(results[0]->IsError()) << results[0]->GetError();
  EXPECT_EQ(results[0]->get<std::string>(), fits);
}

TEST_F(BadInputTest, AnAnswerOverTheWorkersLimitIsAnError) {
  // 768 KiB in, 1.5 MiB out: only the answer is too large.
  RemoteFunction twice = *program_.GetFunction("twice");
  auto results =
      CallNow(task(0), twice, Args(String(std::string(768 << 10, 'z'))));
  ExpectCallError(results[0], absl::StatusCode::kResourceExhausted,
                  "remote call of 'twice'");
  // The worker says how large the answer is, not only gRPC that it is
  // too large.
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr(absl::StrCat("the answer of 'twice' on task ", Name(0),
                                     " is ")));
  EXPECT_THAT(results[0]->GetError().message(),
              HasSubstr(absl::StrCat("bytes, over the limit of ",
                                     kWorkerMaxMessageBytes,
                                     " bytes (max_message_bytes); result 0 "
                                     "takes ")));
  ExpectStillServing();
  absl::StatusOr<TaskStatus> status = WaitForIdle(task(0));
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->active_executions, 0);
}

}  // namespace
}  // namespace sluice::dist::testing
