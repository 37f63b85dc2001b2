#include "kernels/dist/failure_policy.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sluice/bef/failure_policy.h"
#include "sluice/bef/format.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/host_context/run_when_ready.h"
#include "sluice/support/error_util.h"

namespace sluice {
namespace {

using bef::AttributeType;

// The classes a policy that leaves `classes` out acts on: a retry retries
// what the peer may well do next time; a fallback replaces any result
// somebody still wants.
constexpr uint32_t kDefaultRetryClasses =
    FailurePolicy::ClassBit(FailureClass::kRetryable);
constexpr uint32_t kAllButCancelled =
    FailurePolicy::ClassBit(FailureClass::kRetryable) |
    FailurePolicy::ClassBit(FailureClass::kFatal) |
    FailurePolicy::ClassBit(FailureClass::kStale);

absl::Status BadLayout(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("on_failure is not a failure policy as the compiler writes "
                   "it: ",
                   std::string(what)));
}

bool IsType(const AggregateAttribute& attribute, size_t i, AttributeType type) {
  return attribute.type(i) == static_cast<uint32_t>(type);
}

int64_t ReadI64(const AggregateAttribute& attribute, size_t i) {
  int64_t value;
  std::memcpy(&value, attribute.data(i), sizeof(value));
  return value;
}

// The bits of the classes the policy lists, or `default_classes` when it
// lists none (unit).
absl::StatusOr<uint32_t> ReadClasses(const AggregateAttribute& attribute,
                                     uint32_t default_classes) {
  if (IsType(attribute, bef::kPolicyClasses, AttributeType::kUnit)) {
    return default_classes;
  }
  const uint32_t i32_array =
      static_cast<uint32_t>(AttributeType::kDenseArrayBase) +
      static_cast<uint32_t>(AttributeType::kI32);
  // An empty array may be written as an empty array of attributes.
  if (IsType(attribute, bef::kPolicyClasses, AttributeType::kArray) &&
      ArrayAttribute<uint32_t>(attribute.data(bef::kPolicyClasses)).size() ==
          0) {
    return 0;
  }
  if (attribute.type(bef::kPolicyClasses) != i32_array) {
    return BadLayout("its classes are not an array of i32");
  }
  uint32_t bits = 0;
  for (int32_t code :
       ArrayAttribute<int32_t>(attribute.data(bef::kPolicyClasses))) {
    if (code < 1 || code > static_cast<int32_t>(FailureClass::kStale)) {
      return BadLayout(absl::StrCat("class code ", code, " is no class"));
    }
    bits |= FailurePolicy::ClassBit(static_cast<FailureClass>(code));
  }
  // A cancelled request wants neither another attempt nor a result.
  return bits & ~FailurePolicy::ClassBit(FailureClass::kCancelled);
}

// One run of an op under a policy: the attempts made so far and what the
// last one needs to decide the next step. Shared by the callbacks that
// wait for answers and backoffs.
struct PolicyRun {
  PolicyRun(const FailurePolicy& policy, const ExecutionContext& context,
            StartAttempt start,
            std::vector<RCReference<AsyncValue>> fallback_arguments,
            DeliverResults deliver)
      : policy(policy),
        context(context),
        start(std::move(start)),
        fallback_arguments(std::move(fallback_arguments)),
        deliver(std::move(deliver)) {}

  const FailurePolicy policy;
  const ExecutionContext context;
  StartAttempt start;
  std::vector<RCReference<AsyncValue>> fallback_arguments;
  DeliverResults deliver;
  int64_t attempts = 0;
  // As many as each attempt returns; known once the first has started.
  size_t num_results = 0;
};

// Which of a backoff's two ends (its timer, a cancellation) comes first:
// only that one goes on.
struct Backoff {
  std::shared_ptr<PolicyRun> run;
  TimerQueue::TimerId timer = 0;
  std::atomic<bool> ended{false};
};

void Attempt(std::shared_ptr<PolicyRun> run);

// Callbacks that wait for values hand on copies: a waiter that dropped the
// last reference to the value whose waiters are running would free it
// under them.
std::vector<RCReference<AsyncValue>> CopyAll(
    const std::vector<RCReference<AsyncValue>>& values) {
  std::vector<RCReference<AsyncValue>> copies;
  copies.reserve(values.size());
  for (const RCReference<AsyncValue>& value : values) {
    copies.push_back(value.CopyRef());
  }
  return copies;
}

// Calls `then` with copies of `values` once every one is available.
template <typename Then>
void WhenAllReady(std::vector<RCReference<AsyncValue>> values, Then then) {
  std::vector<AsyncValue*> pending;
  pending.reserve(values.size());
  for (const RCReference<AsyncValue>& value : values) {
    pending.push_back(value.get());
  }
  RunWhenReady(absl::Span<AsyncValue* const>(pending),
               [values = std::move(values), then = std::move(then)]() mutable {
                 std::move(then)(CopyAll(values));
               });
}

// The request's cancellation as a value; null while it is not cancelled.
AsyncValue* Cancellation(const PolicyRun& run) {
  RequestContext* request = run.context.request_context();
  return request != nullptr ? request->GetCancelAsyncValue() : nullptr;
}

void Deliver(PolicyRun& run, std::vector<RCReference<AsyncValue>> results) {
  std::move(run.deliver)(std::move(results));
}

// Every result the same error: what a cancellation leaves.
void DeliverError(PolicyRun& run, const absl::Status& status) {
  std::vector<RCReference<AsyncValue>> results;
  results.reserve(run.num_results);
  for (size_t i = 0; i < run.num_results; ++i) {
    results.push_back(MakeErrorAsyncValueRef(status));
  }
  Deliver(run, std::move(results));
}

void RunFallback(std::shared_ptr<PolicyRun> run) {
  const size_t num_results = run->num_results;
  const Function& fallback = *run->policy.fallback;
  if (fallback.num_arguments() != run->fallback_arguments.size() ||
      fallback.num_results() != num_results) {
    DeliverError(
        *run,
        absl::InvalidArgumentError(absl::StrCat(
            "on_failure falls back on '", fallback.name(), "', which takes ",
            fallback.num_arguments(), " argument(s) and returns ",
            fallback.num_results(), " result(s); the op passes ",
            run->fallback_arguments.size(), " and expects ", num_results)));
    return;
  }
  std::vector<AsyncValue*> arguments;
  arguments.reserve(run->fallback_arguments.size());
  for (const RCReference<AsyncValue>& argument : run->fallback_arguments) {
    arguments.push_back(argument.get());
  }
  std::vector<RCReference<AsyncValue>> results(num_results);
  fallback.Execute(run->context, arguments, absl::MakeSpan(results));
  WhenAllReady(std::move(results),
               [run = std::move(run)](
                   std::vector<RCReference<AsyncValue>> ready) mutable {
                 Deliver(*run, std::move(ready));
               });
}

void WaitAndAttempt(std::shared_ptr<PolicyRun> run) {
  HostContext* host = run->context.host();
  if (run->policy.backoff <= absl::ZeroDuration()) {
    host->EnqueueWork([run = std::move(run)]() mutable { Attempt(run); });
    return;
  }
  RequestContext* request = run->context.request_context();
  auto backoff = std::make_shared<Backoff>();
  backoff->run = std::move(run);
  // The timer holds the backoff; the cancellation callback, which the
  // request keeps until it ends, only a weak reference, so that a finished
  // backoff does not keep the op's values alive.
  backoff->timer = host->timer_queue().ScheduleAt(
      absl::Now() + backoff->run->policy.backoff, [backoff, host]() mutable {
        if (backoff->ended.exchange(true)) return;
        host->EnqueueWork([run = std::move(backoff->run)]() mutable {
          Attempt(std::move(run));
        });
      });
  if (request == nullptr) return;
  request->OnCancel([weak = std::weak_ptr<Backoff>(backoff),
                     host](const absl::Status& status) {
    std::shared_ptr<Backoff> backoff = weak.lock();
    if (backoff == nullptr || backoff->ended.exchange(true)) return;
    host->timer_queue().Cancel(backoff->timer);
    DeliverError(*backoff->run, status);
    backoff->run = nullptr;
  });
}

// Decides what follows an attempt whose results are all available.
void OnAnswer(std::shared_ptr<PolicyRun> run,
              std::vector<RCReference<AsyncValue>> results) {
  const absl::Status* failure = nullptr;
  for (const RCReference<AsyncValue>& result : results) {
    if (result->IsError()) {
      failure = &result->GetError();
      break;
    }
  }
  if (failure == nullptr) {
    Deliver(*run, std::move(results));
    return;
  }
  const FailurePolicy& policy = run->policy;
  const FailureClass failure_class = Classify(*failure);
  // A cancelled failure is never acted on (no policy may list the class).
  const bool acts = failure_class != FailureClass::kCancelled;
  const bool retry = acts && policy.Retries(failure_class) &&
                     run->attempts < policy.max_attempts;
  const bool fall_back = acts && policy.FallsBackOn(failure_class);
  // A request cancelled while the attempt ran makes no more attempts and no
  // fallback: the results are the cancellation, as in a backoff. (The
  // attempt may have failed with an error of another class: the worker
  // went away as the call was dropped.)
  if (AsyncValue* cancelled = Cancellation(*run);
      cancelled != nullptr && (retry || fall_back)) {
    DeliverError(*run, cancelled->GetError());
    return;
  }
  if (retry) {
    WaitAndAttempt(std::move(run));
    return;
  }
  if (fall_back) {
    RunFallback(std::move(run));
    return;
  }
  if (run->attempts > 1) {
    const std::string prefix =
        absl::StrCat("gave up after ", run->attempts, " attempts: ");
    for (RCReference<AsyncValue>& result : results) {
      if (!result->IsError()) continue;
      result =
          MakeErrorAsyncValueRef(WithMessagePrefix(result->GetError(), prefix));
    }
  }
  Deliver(*run, std::move(results));
}

void Attempt(std::shared_ptr<PolicyRun> run) {
  if (AsyncValue* cancelled = Cancellation(*run)) {
    DeliverError(*run, cancelled->GetError());
    return;
  }
  ++run->attempts;
  std::vector<RCReference<AsyncValue>> results = run->start();
  run->num_results = results.size();
  if (results.empty()) {
    Deliver(*run, std::move(results));
    return;
  }
  WhenAllReady(std::move(results),
               [run = std::move(run)](
                   std::vector<RCReference<AsyncValue>> ready) mutable {
                 OnAnswer(std::move(run), std::move(ready));
               });
}

}  // namespace

absl::StatusOr<FailurePolicy> ReadFailurePolicy(AggregateAttribute attribute,
                                                const Function* fallback) {
  if (attribute.size() != bef::kPolicySize) {
    return BadLayout(absl::StrCat("it has ", attribute.size(),
                                  " elements, not ", bef::kPolicySize));
  }
  if (!IsType(attribute, bef::kPolicyTag, AttributeType::kString) ||
      !IsType(attribute, bef::kPolicyMaxAttempts, AttributeType::kI64) ||
      !IsType(attribute, bef::kPolicyBackoffMs, AttributeType::kI64)) {
    return BadLayout("its tag, attempts or backoff have the wrong type");
  }
  const std::string_view tag =
      StringAttribute(attribute.data(bef::kPolicyTag)).get();
  const bool is_retry = tag == bef::kRetryTag;
  if (!is_retry && tag != bef::kFallbackTag) {
    return BadLayout(absl::StrCat("unknown tag '", std::string(tag), "'"));
  }
  const bool names_fallback =
      IsType(attribute, bef::kPolicyFallback, AttributeType::kSymbol);
  if (names_fallback && fallback == nullptr) {
    return BadLayout("it names a fallback function the op was not given");
  }
  absl::StatusOr<uint32_t> classes = ReadClasses(
      attribute, is_retry ? kDefaultRetryClasses : kAllButCancelled);
  if (!classes.ok()) return classes.status();

  FailurePolicy policy;
  if (names_fallback) policy.fallback = fallback;
  if (is_retry) {
    policy.max_attempts = ReadI64(attribute, bef::kPolicyMaxAttempts);
    policy.backoff =
        absl::Milliseconds(ReadI64(attribute, bef::kPolicyBackoffMs));
    policy.retry_classes = *classes;
    // After the attempts, or for a class not retried.
    policy.fallback_classes = kAllButCancelled;
  } else {
    policy.fallback_classes = *classes;
  }
  if (policy.max_attempts < 1) policy.max_attempts = 1;
  return policy;
}

void RunWithFailurePolicy(
    const FailurePolicy& policy, const ExecutionContext& context,
    StartAttempt start, std::vector<RCReference<AsyncValue>> fallback_arguments,
    DeliverResults deliver) {
  Attempt(std::make_shared<PolicyRun>(policy, context, std::move(start),
                                      std::move(fallback_arguments),
                                      std::move(deliver)));
}

}  // namespace sluice
