// The code shown in docs/async_values.md. Each `[START name]` region appears
// verbatim in the guide (doc_snippets_test keeps the two in step); the tests
// around the regions check that what the guide claims is what happens.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/host_context/async_value.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/concurrent_work_queue.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/resource_context.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/support/error_util.h"
#include "sluice/support/logging.h"

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// [START create_host]
std::unique_ptr<HostContext> CreateHost(std::string_view work_queue_spec) {
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> work_queue =
      CreateWorkQueue(work_queue_spec);
  SLUICE_CHECK(work_queue.ok()) << work_queue.status();
  return std::make_unique<HostContext>(
      [](const DecodedDiagnostic& diagnostic) {
        SLUICE_LOG(ERROR) << diagnostic.ToString();
      },
      std::make_unique<LeakCheckAllocator>(CreateMallocAllocator()),
      *std::move(work_queue));
}
// [END create_host]

TEST(AsyncValueExample, States) {
  // [START states]
  AsyncValueRef<int32_t> answer = MakeAvailableAsyncValueRef<int32_t>(42);
  EXPECT_TRUE(answer.IsConcrete());
  EXPECT_EQ(*answer, 42);

  AsyncValueRef<std::string> greeting =
      MakeUnconstructedAsyncValueRef<std::string>();
  EXPECT_EQ(greeting.GetAsyncValue()->state(),
            AsyncValue::State::kUnconstructed);
  greeting.emplace("hello");
  EXPECT_EQ(*greeting, "hello");

  AsyncValueRef<std::vector<int>> buffer =
      MakeConstructedAsyncValueRef<std::vector<int>>(3, 0);
  EXPECT_TRUE(buffer.IsUnavailable());
  (*buffer)[1] = 7;  // The producer may still write the payload in place.
  buffer.SetStateConcrete();
  EXPECT_THAT(*buffer, ElementsAre(0, 7, 0));

  AsyncValueRef<int32_t> missing = MakeUnconstructedAsyncValueRef<int32_t>();
  missing.SetError(absl::NotFoundError("no such key"));
  EXPECT_TRUE(missing.IsError());
  EXPECT_EQ(missing.GetError().code(), absl::StatusCode::kNotFound);

  // Untyped errors convert to any AsyncValueRef<T>.
  AsyncValueRef<double> failed(
      MakeErrorAsyncValueRef(absl::InternalError("sensor offline")));
  EXPECT_EQ(failed.GetError().message(), "sensor offline");
  // [END states]
}

TEST(AsyncValueExample, IndirectValueForwards) {
  // [START indirect]
  RCReference<IndirectAsyncValue> placeholder = MakeIndirectAsyncValue();
  AsyncValueRef<int32_t> result(placeholder.CopyRef());
  int32_t seen = 0;
  result.AndThen([&seen, result = result.CopyRef()] { seen = *result; });

  AsyncValueRef<int32_t> actual = MakeUnconstructedAsyncValueRef<int32_t>();
  placeholder->ForwardTo(actual.CopyRCRef());
  EXPECT_TRUE(result.IsUnavailable());  // The target is still pending.
  actual.emplace(5);
  EXPECT_EQ(seen, 5);
  EXPECT_EQ(*result, 5);
  // [END indirect]
}

// [START connection]
// Counts open connections so the example can watch one close.
class Connection {
 public:
  explicit Connection(int* open) : open_(open) { ++*open_; }
  ~Connection() { --*open_; }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

 private:
  int* open_;
};
// [END connection]

TEST(AsyncValueExample, LastReferenceFreesThePayload) {
  // [START lifetime]
  int open = 0;
  AsyncValueRef<std::unique_ptr<Connection>> connection =
      MakeAvailableAsyncValueRef<std::unique_ptr<Connection>>(
          std::make_unique<Connection>(&open));
  AsyncValueRef<std::unique_ptr<Connection>> copy = connection.CopyRef();
  EXPECT_EQ(connection.GetAsyncValue()->NumRef(), 2u);

  connection = nullptr;
  EXPECT_EQ(open, 1);
  copy = nullptr;  // The last reference: the payload is destroyed now.
  EXPECT_EQ(open, 0);
  // [END lifetime]
}

TEST(AsyncValueExample, UnresolvedValueDropsItsWaiters) {
  // [START dropped_waiters]
  int open = 0;
  bool ran = false;
  {
    AsyncValueRef<int32_t> never = MakeUnconstructedAsyncValueRef<int32_t>();
    never.AndThen([connection = std::make_unique<Connection>(&open), &ran] {
      ran = true;
    });
    EXPECT_EQ(open, 1);
  }
  EXPECT_FALSE(ran);
  EXPECT_EQ(open, 0);
  // [END dropped_waiters]
}

TEST(AsyncValueExample, WaitersRunOnceInOrder) {
  // [START and_then]
  AsyncValueRef<int32_t> value = MakeUnconstructedAsyncValueRef<int32_t>();
  std::vector<std::string> log;
  value.AndThen([&log] { log.push_back("first"); });
  value.AndThen([&log] { log.push_back("second"); });
  value.emplace(1);
  value.AndThen([&log] { log.push_back("third, at once"); });
  EXPECT_THAT(log, ElementsAre("first", "second", "third, at once"));
  // [END and_then]
}

TEST(AsyncValueExample, LongChainsRunInConstantStackDepth) {
  // [START chain]
  constexpr int kLength = 100000;
  std::vector<AsyncValueRef<int32_t>> chain;
  for (int i = 0; i < kLength; ++i) {
    chain.push_back(MakeUnconstructedAsyncValueRef<int32_t>());
  }
  uintptr_t lowest_frame = UINTPTR_MAX;
  uintptr_t highest_frame = 0;
  for (int i = 0; i + 1 < kLength; ++i) {
    chain[i].AndThen([&, i] {
      auto frame = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
      lowest_frame = std::min(lowest_frame, frame);
      highest_frame = std::max(highest_frame, frame);
      chain[i + 1].emplace(*chain[i] + 1);
    });
  }
  chain[0].emplace(0);
  EXPECT_EQ(*chain.back(), kLength - 1);
  EXPECT_LT(highest_frame - lowest_frame, 1024u);
  // [END chain]
}

// [START propagate]
AsyncValueRef<int64_t> Twice(const AsyncValueRef<int64_t>& input) {
  AsyncValueRef<int64_t> output = MakeUnconstructedAsyncValueRef<int64_t>();
  input.AndThen([input = input.CopyRef(), output = output.CopyRef()] {
    if (input.IsError()) {
      output.SetError(input.GetError());
    } else {
      output.emplace(*input * 2);
    }
  });
  return output;
}
// [END propagate]

TEST(AsyncValueExample, ErrorsAreValues) {
  // [START errors]
  AsyncValueRef<int64_t> size = MakeUnconstructedAsyncValueRef<int64_t>();
  AsyncValueRef<int64_t> quadrupled = Twice(Twice(size));

  ErrorContext where;
  where.kernel = "my.parse_size";
  where.location = "prog.mlir:7:3";
  size.SetError(
      AddErrorContext(absl::InvalidArgumentError("negative size -3"), where));

  ASSERT_TRUE(quadrupled.IsError());
  const absl::Status& error = quadrupled.GetError();
  EXPECT_EQ(error.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(error.message(), "negative size -3");
  EXPECT_EQ(GetErrorContext(error).kernel, "my.parse_size");
  EXPECT_EQ(DescribeError(error),
            "negative size -3 (kernel my.parse_size at prog.mlir:7:3)");
  // [END errors]
}

TEST(AsyncValueExample, FirstProducerKeepsTheContext) {
  // [START first_context_wins]
  ErrorContext producer;
  producer.kernel = "my.read";
  ErrorContext forwarder;
  forwarder.kernel = "my.print";
  absl::Status status =
      AddErrorContext(absl::DataLossError("bad checksum"), producer);
  status = AddErrorContext(status, forwarder);
  EXPECT_EQ(GetErrorContext(status).kernel, "my.read");
  // [END first_context_wins]
}

TEST(AsyncValueExample, RunWhenReadyJoinsValues) {
  // [START run_when_ready]
  std::vector<AsyncValueRef<int64_t>> parts;
  std::vector<RCReference<AsyncValue>> waiting_on;
  for (int i = 0; i < 3; ++i) {
    parts.push_back(MakeUnconstructedAsyncValueRef<int64_t>());
    waiting_on.push_back(parts.back().CopyRCRef());
  }
  int64_t total = -1;
  RunWhenReady(waiting_on, [&] {
    total = 0;
    for (const auto& part : parts) total += part.IsError() ? 0 : *part;
  });
  parts[2].emplace(30);
  parts[0].emplace(10);
  EXPECT_EQ(total, -1);  // parts[1] is still pending.
  parts[1].SetError(absl::UnavailableError("shard 1 is down"));
  EXPECT_EQ(total, 40);
  // [END run_when_ready]
}

TEST(AsyncValueExample, AwaitFromAHostThread) {
  // [START await]
  std::unique_ptr<HostContext> host = CreateHost("mstd:2,4");
  std::vector<RCReference<AsyncValue>> squares;
  for (int64_t i = 1; i <= 4; ++i) {
    squares.push_back(
        EnqueueWork(host.get(), [i] { return i * i; }).ReleaseRCRef());
  }
  host->Await(squares);
  EXPECT_EQ(squares[3]->get<int64_t>(), 16);
  // [END await]
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(squares[i]->get<int64_t>(), (i + 1) * (i + 1));
  }
}

TEST(AsyncValueExample, EnqueueWorkMayFail) {
  // [START enqueue_status_or]
  std::unique_ptr<HostContext> host = CreateHost("mstd:2,4");
  AsyncValueRef<double> ratio =
      EnqueueWork(host.get(), []() -> absl::StatusOr<double> {
        return absl::FailedPreconditionError("no samples yet");
      });
  host->Await(ratio.CopyRCRef());
  EXPECT_EQ(ratio.GetError().message(), "no samples yet");
  // [END enqueue_status_or]
}

TEST(AsyncValueExample, SingleThreadedQueueRunsTasksWhenSomeoneWaits) {
  // [START single_threaded]
  std::unique_ptr<HostContext> host = CreateHost("s");
  int ran = 0;
  host->EnqueueWork([&ran] { ++ran; });
  host->EnqueueBlockingWork([&ran] { ++ran; });
  EXPECT_EQ(ran, 0);  // Nothing runs until a thread waits.
  host->Quiesce();
  EXPECT_EQ(ran, 2);
  // [END single_threaded]
}

TEST(AsyncValueExample, BlockingWorkOnTheMultiThreadedQueue) {
  // [START blocking]
  std::unique_ptr<HostContext> host = CreateHost("mstd:2,4");
  EXPECT_EQ(host->work_queue().name(), "mstd:2,4");
  EXPECT_EQ(host->work_queue().GetParallelismLevel(), 2);
  std::atomic<int> finished{0};
  for (int i = 0; i < 4; ++i) {
    host->EnqueueBlockingWork([&finished] {
      absl::SleepFor(absl::Milliseconds(5));  // Stands in for a slow read.
      finished.fetch_add(1);
    });
  }
  host->Quiesce();
  EXPECT_EQ(finished.load(), 4);
  // [END blocking]
}

TEST(AsyncValueExample, BadWorkQueueSpec) {
  // [START bad_spec]
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateWorkQueue("mstd:two");
  EXPECT_EQ(queue.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(queue.status().message(),
            "invalid work queue spec 'mstd:two': expected s, mstd, mstd:N or "
            "mstd:N,M");
  // [END bad_spec]
}

TEST(AsyncValueExample, CancelARequest) {
  std::unique_ptr<HostContext> host = CreateHost("s");
  // [START cancel]
  RCReference<RequestContext> request = RequestContext::Create(host.get());
  std::vector<std::string> log;
  request->OnCancel([&log](const absl::Status& status) {
    log.push_back(std::string(status.message()));
  });
  EXPECT_FALSE(request->IsCancelled());
  EXPECT_EQ(request->GetCancelAsyncValue(), nullptr);

  request->Cancel(absl::CancelledError("user pressed stop"));
  request->Cancel(absl::CancelledError("too late: only the first one counts"));
  EXPECT_TRUE(request->IsCancelled());
  EXPECT_EQ(request->GetCancelAsyncValue()->GetError().message(),
            "user pressed stop");
  EXPECT_THAT(log, ElementsAre("user pressed stop"));

  // Registered after the fact: runs at once.
  request->OnCancel([&log](const absl::Status&) { log.push_back("late"); });
  EXPECT_THAT(log, ElementsAre("user pressed stop", "late"));
  // [END cancel]
}

TEST(AsyncValueExample, DeadlineCancelsWithDeadlineExceeded) {
  std::unique_ptr<HostContext> host = CreateHost("s");
  // [START deadline]
  RCReference<RequestContext> request =
      RequestContext::Create(host.get(), absl::Now() + absl::Milliseconds(20));
  std::promise<absl::Status> cancelled;
  request->OnCancel([&cancelled](const absl::Status& status) {
    cancelled.set_value(status);
  });
  absl::Status status = cancelled.get_future().get();  // The timer fires.
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(request->IsCancelled());
  // [END deadline]
}

// [START tokenizer]
struct Tokenizer {
  explicit Tokenizer(std::string language) : language(std::move(language)) {}
  std::string language;
};
// [END tokenizer]

TEST(AsyncValueExample, RequestResources) {
  std::unique_ptr<HostContext> host = CreateHost("s");
  // [START resources]
  RCReference<RequestContext> request = RequestContext::Create(host.get());
  ResourceContext& resources = request->resources();
  Tokenizer* tokenizer = resources.GetOrCreateResource<Tokenizer>(
      "tokenizer", [] { return std::make_unique<Tokenizer>("en"); });
  // Found, so the factory does not run.
  EXPECT_EQ(resources.GetOrCreateResource<Tokenizer>(
                "tokenizer", [] { return std::make_unique<Tokenizer>("de"); }),
            tokenizer);
  EXPECT_EQ(resources.GetResource<Tokenizer>("tokenizer")->language, "en");
  EXPECT_EQ(resources.GetResource<int>("tokenizer"), nullptr);  // Wrong type.
  EXPECT_EQ(resources.GetResource<Tokenizer>("parser"), nullptr);
  // [END resources]
}

// [START shared_context_type]
// One per host: built on first use with the HostContext it belongs to.
class ProgramCache {
 public:
  explicit ProgramCache(HostContext* host) : host_(host) {}

  HostContext* host() const { return host_; }
  int Lookup(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    return ++hits_[key];
  }

 private:
  HostContext* const host_;
  std::mutex mu_;
  std::map<std::string, int> hits_;
};
// [END shared_context_type]

TEST(AsyncValueExample, SharedContextPerHost) {
  // [START shared_context]
  std::unique_ptr<HostContext> host = CreateHost("s");
  ProgramCache& cache = host->GetOrCreateSharedContext<ProgramCache>();
  EXPECT_EQ(&host->GetOrCreateSharedContext<ProgramCache>(), &cache);
  EXPECT_EQ(cache.host(), host.get());
  cache.Lookup("main");
  EXPECT_EQ(cache.Lookup("main"), 2);
  // [END shared_context]
}

TEST(AsyncValueExample, LeakCheckAllocator) {
  // [START allocator]
  auto leak_check =
      std::make_unique<LeakCheckAllocator>(CreateMallocAllocator());
  LeakCheckAllocator* leaks = leak_check.get();
  HostContext host([](const DecodedDiagnostic&) {}, std::move(leak_check),
                   CreateSingleThreadedWorkQueue());

  HostAllocator* allocator = host.allocator();
  double* samples = allocator->Allocate<double>(16);
  std::string* name = allocator->New<std::string>("sensor-7");
  EXPECT_EQ(leaks->num_alive_allocations(), 2);
  EXPECT_EQ(leaks->num_alive_bytes(),
            static_cast<int64_t>(16 * sizeof(double) + sizeof(std::string)));

  allocator->Delete(name);
  allocator->Deallocate(samples, 16);
  EXPECT_EQ(leaks->LeakReport(), "");
  // [END allocator]
}

TEST(AsyncValueExample, BoundedAndProfiledAllocators) {
  // [START budget]
  auto budget = std::make_unique<FixedBudgetAllocator>(1024);
  FixedBudgetAllocator* raw_budget = budget.get();
  ProfilingAllocator profile(std::move(budget), "example");

  void* first = profile.AllocateBytes(1000, 8);
  EXPECT_NE(first, nullptr);
  EXPECT_EQ(profile.AllocateBytes(100, 8), nullptr);  // Over the budget.
  EXPECT_EQ(raw_budget->bytes_in_use(), 1000u);
  profile.DeallocateBytes(first, 1000);

  ProfilingAllocator::Stats stats = profile.stats();
  EXPECT_EQ(stats.num_allocations, 1);
  EXPECT_EQ(stats.peak_bytes, 1000);
  EXPECT_EQ(stats.current_bytes, 0);
  // [END budget]
}

// [START log_sink]
class CollectingSink : public LogSink {
 public:
  void Send(LogSeverity severity, std::string_view line) override {
    lines.emplace_back(line);
  }
  std::vector<std::string> lines;
};
// [END log_sink]

TEST(AsyncValueExample, Logging) {
  // [START logging]
  CollectingSink sink;
  LogSink* previous_sink = SetLogSink(&sink);
  LogSeverity previous_level = MinLogLevel();

  SLUICE_LOG(INFO) << "loaded " << 3 << " functions";
  SetMinLogLevel(LogSeverity::kWarning);
  SLUICE_LOG(INFO) << "dropped: below the minimum level";
  SLUICE_LOG_IF(WARNING, 5 > 3) << "slow peer /job:w/task:1";

  SetMinLogLevel(previous_level);
  SetLogSink(previous_sink);
  ASSERT_EQ(sink.lines.size(), 2u);
  EXPECT_THAT(sink.lines[0], StartsWith("I"));
  EXPECT_THAT(sink.lines[0], EndsWith("] loaded 3 functions"));
  EXPECT_THAT(sink.lines[1], StartsWith("W"));
  EXPECT_THAT(sink.lines[1], HasSubstr("async_values_example.cc:"));
  // [END logging]
}

}  // namespace
}  // namespace sluice
