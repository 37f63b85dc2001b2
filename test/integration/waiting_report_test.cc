// SLUICE_RPC_FAIL_FAST=false: an RPC that waits for a worker says, through
// RpcOptions::on_waiting, which task it waits for, at what address, for
// which RPC and why, about once a second, and once more when it gets
// through or gives up. A fail-fast RPC says nothing.
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/distributed/remote_client.h"
#include "sluice/distributed/rpc_options.h"
#include "sluice/host_context/request_context.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_fixture.h"

namespace sluice::dist::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// What the client reported, shared with its reporter, which may outlive the
// fixture's client by a moment.
struct Reports {
  std::mutex mu;
  std::vector<std::string> lines;

  std::vector<std::string> Get() {
    std::lock_guard<std::mutex> lock(mu);
    return lines;
  }
  int Count(const std::string& text) {
    int found = 0;
    for (const std::string& line : Get()) {
      if (line.find(text) != std::string::npos) ++found;
    }
    return found;
  }
  bool WaitFor(const std::string& text, int count) {
    return WaitUntil([&] { return Count(text) >= count; }, kHangBound);
  }
};

class WaitingReportTest : public WorkerFixture {
 protected:
  void SetUp() override {
    // The policy comes from the environment, as in sluice_run.
    options_.fail_fast = WaitForReadyPolicyFromEnvironment();
    options_.deadline = absl::Seconds(30);
    options_.on_waiting = [reports = reports_](const std::string& line) {
      std::lock_guard<std::mutex> lock(reports->mu);
      reports->lines.push_back(line);
    };
  }
  void TearDown() override {
    // A stopped worker is continued so that the order of events stays
    // obvious; SIGKILL would work regardless.
    if (!workers_.empty() && workers_[0] != nullptr) worker(0).Continue();
    WorkerFixture::TearDown();
  }

  // "task /job:worker/task:0 at 127.0.0.1:PORT", as the reports name it.
  std::string TaskAt() const {
    return absl::StrCat("task /job:worker/task:0 at ", ports_[0].address());
  }

  RpcOptions options_;
  std::shared_ptr<Reports> reports_ = std::make_shared<Reports>();
};

TEST_F(WaitingReportTest, ARegistrationReportsAnAbsentWorkerUntilItComesUp) {
  ASSERT_NO_FATAL_FAILURE(StartCluster(1, options_, /*start_workers=*/false));
  std::vector<uint8_t> program = TestProgram();
  AsyncValueRef<RemoteProgram> registered = task(0)->RegisterProgram(program);
  const std::string waiting =
      absl::StrCat("waiting for ", TaskAt(), " for registering a program");
  ASSERT_TRUE(reports_->WaitFor(waiting, 2));
  EXPECT_TRUE(registered.IsUnavailable());
  EXPECT_THAT(
      reports_->Get()[0],
      MatchesRegex(waiting + ": connection refused \\([12]s of 30s\\)"));

  ASSERT_NO_FATAL_FAILURE(StartWorker(0));
  ASSERT_TRUE(AwaitFor(registered.CopyRCRef()));
  ASSERT_FALSE(registered.IsError()) << registered.GetError();
  const std::string answered =
      absl::StrCat(TaskAt(), " answered registering a program after");
  ASSERT_TRUE(reports_->WaitFor(answered, 1));
  EXPECT_THAT(reports_->Get().back(),
              MatchesRegex("task .* answered registering a program after "
                           "[0-9.]+s"));

  // A call answered within the first second says nothing. (Sanitizer
  // builds on a busy machine may take longer over it; it is then reported.)
  absl::StatusOr<RemoteFunction> add = registered->GetFunction("add");
  ASSERT_TRUE(add.ok()) << add.status();
  const size_t before = reports_->Get().size();
  const absl::Time started = absl::Now();
  auto sum = CallNow(task(0), *add, Args(I32(20), I32(22)));
  const absl::Duration took = absl::Now() - started;
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
  EXPECT_EQ(sum[0]->get<int32_t>(), 42);
  absl::SleepFor(absl::Milliseconds(1500));
  if (took < absl::Milliseconds(900)) {
    EXPECT_EQ(reports_->Get().size(), before)
        << ::testing::PrintToString(reports_->Get());
  }
}

TEST_F(WaitingReportTest, ACallReportsAStoppedWorkerUntilItIsContinued) {
  // A stopped worker answers no liveness ping: within the default timeout
  // its calls would fail as a connection gone silent (stopped_worker_test)
  // before the reports below are all made.
  options_.liveness_timeout = absl::Seconds(60);
  ASSERT_NO_FATAL_FAILURE(StartCluster(1, options_));
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  worker(0).Stop();

  // One that gives up says why.
  CallOptions short_deadline;
  short_deadline.deadline = absl::Milliseconds(2500);
  auto lost =
      CallNow(task(0), *add, Args(I32(1), I32(2)), nullptr, short_deadline);
  ASSERT_TRUE(lost[0]->IsError());
  EXPECT_EQ(lost[0]->GetError().code(), absl::StatusCode::kDeadlineExceeded);
  const std::string gave_up = absl::StrCat("gave up waiting for ", TaskAt(),
                                           " for remote call of 'add' after ");
  ASSERT_TRUE(reports_->WaitFor(gave_up, 1));
  EXPECT_THAT(reports_->Get(),
              Contains(MatchesRegex(
                  "waiting for " + TaskAt() +
                  " for remote call of 'add': connected, no answer yet "
                  "\\([12]s of 2.5s\\)")));
  EXPECT_THAT(reports_->Get().back(),
              MatchesRegex(gave_up + "[0-9.]+s: no answer within 2.5s "
                                     "\\(deadline exceeded\\)"));

  // One cancelled while it waits says so.
  RCReference<RequestContext> request = RequestContext::Create(host_.get());
  auto cancelled_arguments = Args(I32(3), I32(4));
  std::vector<AsyncValue*> cancelled_pointers = {cancelled_arguments[0].get(),
                                                 cancelled_arguments[1].get()};
  std::vector<RCReference<AsyncValue>> cancelled =
      task(0)->Call(*add, cancelled_pointers, request.get());
  const std::string waiting =
      absl::StrCat("waiting for ", TaskAt(), " for remote call of 'add'");
  const int before_cancel = reports_->Count(waiting);
  ASSERT_TRUE(reports_->WaitFor(waiting, before_cancel + 1));
  request->Cancel();
  ASSERT_TRUE(AwaitFor(cancelled));
  ASSERT_TRUE(cancelled[0]->IsError());
  EXPECT_EQ(cancelled[0]->GetError().code(), absl::StatusCode::kCancelled);
  ASSERT_TRUE(reports_->WaitFor(gave_up, 2));
  EXPECT_THAT(reports_->Get().back(),
              MatchesRegex(gave_up + "[0-9.]+s: cancelled by the caller"));

  // One that waits long enough gets its answer once the worker goes on.
  auto arguments = Args(I32(20), I32(22));
  std::vector<AsyncValue*> pointers = {arguments[0].get(), arguments[1].get()};
  std::vector<RCReference<AsyncValue>> sum =
      task(0)->Call(*add, pointers, nullptr);
  const int earlier = reports_->Count(waiting);
  ASSERT_TRUE(reports_->WaitFor(waiting, earlier + 2));
  EXPECT_TRUE(sum[0]->IsUnavailable());
  worker(0).Continue();
  ASSERT_TRUE(AwaitFor(sum));
  ASSERT_FALSE(sum[0]->IsError()) << sum[0]->GetError();
  EXPECT_EQ(sum[0]->get<int32_t>(), 42);
  ASSERT_TRUE(reports_->WaitFor(
      absl::StrCat(TaskAt(), " answered remote call of 'add' after"), 1));
  EXPECT_THAT(reports_->Get().back(),
              MatchesRegex("task .* answered remote call of 'add' after "
                           "[0-9.]+s"));
}

// The default policy: a call to a worker that is gone fails at once, with
// nothing reported.
TEST_F(WaitingReportTest, AFailFastCallSaysNothing) {
  options_.fail_fast = FailFastPolicy::kUseCaller;
  ASSERT_NO_FATAL_FAILURE(StartCluster(1, options_));
  absl::StatusOr<RemoteFunction> add = RegisterTestFunction(task(0), "add");
  ASSERT_TRUE(add.ok()) << add.status();
  worker(0).Kill();
  auto sum = CallNow(task(0), *add, Args(I32(1), I32(2)));
  ExpectTaskError(sum[0], absl::StatusCode::kUnavailable,
                  FailureClass::kRetryable, "remote call of 'add'", Name(0));
  absl::SleepFor(absl::Milliseconds(1500));
  EXPECT_THAT(reports_->Get(), ::testing::IsEmpty());
}

}  // namespace
}  // namespace sluice::dist::testing
