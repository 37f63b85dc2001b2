// Variables on real parameter-server processes (sluice_worker tasks of the
// `ps` job on 127.0.0.1): many clients updating at once lose no update,
// Adam matches a reference computed here, placement alternates between two
// parameter servers, and a dead or stopped one gives a retryable error that
// names the task and the variable within the deadline; one bounded by
// --max_variable_bytes refuses variables past it, and bad names.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sluice/coordinator/variables.h"
#include "sluice/support/failure.h"
#include "test/integration/remote_test_util.h"
#include "test/integration/worker_process.h"

namespace sluice::dist::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PsVariablesTest : public ::testing::Test {
 protected:
  // Starts `num_ps` parameter servers, /job:ps/task:i on reserved ports,
  // with `flags` added to the defaults.
  void StartParameterServers(int num_ps,
                             const std::vector<std::string>& flags = {}) {
    std::vector<std::string> quoted;
    for (int i = 0; i < num_ps; ++i) {
      absl::StatusOr<PortReservation> port = PortReservation::Reserve();
      ASSERT_TRUE(port.ok()) << port.status();
      WorkerProcessOptions options;
      options.task_name = TaskName("ps", i);
      options.port = port->port();
      options.flags.insert(options.flags.end(), flags.begin(), flags.end());
      absl::StatusOr<std::unique_ptr<WorkerProcess>> ps =
          WorkerProcess::Start(options);
      ASSERT_TRUE(ps.ok()) << ps.status();
      quoted.push_back(absl::StrCat("\"", port->address(), "\""));
      ports_.push_back(*std::move(port));
      ps_.push_back(*std::move(ps));
    }
    absl::StatusOr<ClusterSpec> spec = ClusterSpec::FromJson(
        absl::StrCat("{\"ps\": [", absl::StrJoin(quoted, ", "), "]}"));
    ASSERT_TRUE(spec.ok()) << spec.status();
    spec_ = *std::move(spec);
  }

  // A client of its own: its host and its channels.
  struct Client {
    std::unique_ptr<HostContext> host;
    std::unique_ptr<VariableClient> variables;
  };
  Client MakeClient(RpcOptions options = RpcOptions()) {
    Client client;
    client.host = MakeClientHost();
    client.variables =
        std::make_unique<VariableClient>(spec_, options, client.host.get());
    return client;
  }

  // For the tests that put hundreds of updates in flight at once: under a
  // sanitizer on two loaded cores a parameter server can leave a liveness
  // ping unanswered for seconds while it works through them, and these
  // tests are about sums, not about silent peers.
  Client MakeLoadTolerantClient() {
    RpcOptions options;
    options.liveness_timeout = absl::Seconds(30);
    return MakeClient(options);
  }

  template <typename T>
  static DenseHostTensor Filled(const Client& client, int64_t n, T value) {
    DenseHostTensor tensor = *DenseHostTensor::Create(
        DTypeOf<T>(), TensorShape({n}), client.host->allocator());
    for (T& element : tensor.mutable_values<T>()) element = value;
    return tensor;
  }

  // The value, or an error saying why there is none (a hung wait counts).
  template <typename T>
  static absl::StatusOr<T> Get(AsyncValueRef<T> value) {
    if (!AwaitFor(value.CopyRCRef())) {
      return absl::DeadlineExceededError("TEST HARNESS: hung");
    }
    if (value.IsError()) return value.GetError();
    return value.get();
  }

  void TearDown() override { ps_.clear(); }

  std::vector<PortReservation> ports_;
  std::vector<std::unique_ptr<WorkerProcess>> ps_;
  ClusterSpec spec_;
};

TEST_F(PsVariablesTest, ConcurrentAssignAddsFromManyClientsSumExactly) {
  ASSERT_NO_FATAL_FAILURE(StartParameterServers(2));
  constexpr int kClients = 4;
  constexpr int kUpdates = 200;
  constexpr int64_t kElements = 4096;
  Client setup = MakeClient();
  // Round robin: one on each parameter server.
  absl::StatusOr<VariableHandle> counts = Get(
      setup.variables->Create("counts", Filled<int64_t>(setup, kElements, 0)));
  ASSERT_TRUE(counts.ok()) << counts.status();
  absl::StatusOr<VariableHandle> sums =
      Get(setup.variables->Create("sums", Filled<float>(setup, kElements, 0)));
  ASSERT_TRUE(sums.ok()) << sums.status();
  EXPECT_NE(counts->task, sums->task);

  std::vector<std::thread> threads;
  std::vector<int> failures(kClients, 0);
  std::vector<std::string> first_errors(kClients);
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      Client client = MakeLoadTolerantClient();
      DenseHostTensor one = Filled<int64_t>(client, kElements, 1);
      DenseHostTensor half = Filled<float>(client, kElements, 0.5f);
      // Every update in flight at once.
      std::vector<RCReference<AsyncValue>> updates;
      for (int i = 0; i < kUpdates; ++i) {
        updates.push_back(
            client.variables->AssignAdd(*counts, one).ReleaseRCRef());
        updates.push_back(
            client.variables->AssignAdd(*sums, half).ReleaseRCRef());
      }
      if (!AwaitFor(updates)) {
        failures[c] = -1;
        return;
      }
      for (const RCReference<AsyncValue>& update : updates) {
        if (!update->IsError()) continue;
        if (++failures[c] == 1) first_errors[c] = update->GetError().ToString();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(failures, ::testing::Each(0))
      << "first errors: " << absl::StrJoin(first_errors, "; ");

  absl::StatusOr<DenseHostTensor> count = Get(setup.variables->Read(*counts));
  ASSERT_TRUE(count.ok()) << count.status();
  for (int64_t element : count->values<int64_t>()) {
    ASSERT_EQ(element, kClients * kUpdates);
  }
  absl::StatusOr<DenseHostTensor> sum = Get(setup.variables->Read(*sums));
  ASSERT_TRUE(sum.ok()) << sum.status();
  for (float element : sum->values<float>()) {
    ASSERT_EQ(element, kClients * kUpdates * 0.5f);  // exact in f32
  }
}

TEST_F(PsVariablesTest, ConcurrentSgdUpdatesAreAllApplied) {
  ASSERT_NO_FATAL_FAILURE(StartParameterServers(1));
  constexpr int kClients = 4;
  constexpr int kUpdates = 150;
  Client setup = MakeClient();
  absl::StatusOr<VariableHandle> w =
      Get(setup.variables->Create("w", Filled<double>(setup, 1000, 3.0)));
  ASSERT_TRUE(w.ok()) << w.status();

  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      Client client = MakeLoadTolerantClient();
      // Each client its own gradient: 1, 2, 3, 4.
      DenseHostTensor gradient = Filled<double>(client, 1000, c + 1.0);
      std::vector<RCReference<AsyncValue>> updates;
      for (int i = 0; i < kUpdates; ++i) {
        updates.push_back(
            client.variables->ApplySgd(*w, gradient, 0.125).ReleaseRCRef());
      }
      if (!AwaitFor(updates)) ++failed;
      for (const auto& update : updates) failed += update->IsError();
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failed.load(), 0);
  absl::StatusOr<DenseHostTensor> value = Get(setup.variables->Read(*w));
  ASSERT_TRUE(value.ok()) << value.status();
  // 3 - 0.125 * 150 * (1 + 2 + 3 + 4): every step exact in f64.
  for (double element : value->values<double>()) {
    ASSERT_EQ(element, 3.0 - 0.125 * kUpdates * 10);
  }
}

TEST_F(PsVariablesTest, AdamMatchesAReferenceComputedHere) {
  ASSERT_NO_FATAL_FAILURE(StartParameterServers(1));
  Client client = MakeClient();
  constexpr int kElements = 5;
  constexpr int kSteps = 25;
  std::vector<float> initial = {0.5f, -1.0f, 2.0f, 0.0f, 10.0f};
  DenseHostTensor start = *DenseHostTensor::FromValues<float>(
      TensorShape({kElements}), initial, client.host->allocator());
  absl::StatusOr<VariableHandle> w = Get(client.variables->Create("w", start));
  ASSERT_TRUE(w.ok()) << w.status();

  AdamOptions options;
  options.learning_rate = 0.05;
  options.beta1 = 0.85;
  options.beta2 = 0.995;
  options.epsilon = 1e-6;
  // Adam (Kingma and Ba, algorithm 1 with the step size folding in the
  // bias corrections), in double precision.
  std::vector<double> var(initial.begin(), initial.end());
  std::vector<double> m(kElements, 0.0), v(kElements, 0.0);
  for (int t = 1; t <= kSteps; ++t) {
    std::vector<float> gradient(kElements);
    for (int i = 0; i < kElements; ++i) {
      gradient[i] = std::sin(0.7f * t + i) * (i + 1);
    }
    DenseHostTensor g = *DenseHostTensor::FromValues<float>(
        TensorShape({kElements}), gradient, client.host->allocator());
    // One step at a time: each waits for the one before.
    absl::StatusOr<Chain> applied =
        Get(client.variables->ApplyAdam(*w, g, options));
    ASSERT_TRUE(applied.ok()) << applied.status();
    const double step_size = options.learning_rate *
                             std::sqrt(1 - std::pow(options.beta2, t)) /
                             (1 - std::pow(options.beta1, t));
    for (int i = 0; i < kElements; ++i) {
      m[i] = options.beta1 * m[i] + (1 - options.beta1) * gradient[i];
      v[i] = options.beta2 * v[i] +
             (1 - options.beta2) * gradient[i] * gradient[i];
      var[i] -= step_size * m[i] / (std::sqrt(v[i]) + options.epsilon);
    }
  }
  absl::StatusOr<VariableState> state = Get(client.variables->ReadState(*w));
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->adam.step, kSteps);
  for (int i = 0; i < kElements; ++i) {
    // f32 on the task against f64 here.
    EXPECT_NEAR(state->value.values<float>()[i], var[i],
                1e-5 * (1 + std::abs(var[i])))
        << "element " << i;
    EXPECT_NEAR(state->adam.m.values<float>()[i], m[i], 1e-5) << i;
    EXPECT_NEAR(state->adam.v.values<float>()[i], v[i], 1e-5) << i;
  }
}

TEST_F(PsVariablesTest, PlacementAlternatesBetweenTwoParameterServers) {
  ASSERT_NO_FATAL_FAILURE(StartParameterServers(2));
  Client client = MakeClient();
  std::vector<std::string> placed;
  for (int i = 0; i < 6; ++i) {
    absl::StatusOr<VariableHandle> handle = Get(client.variables->Create(
        absl::StrCat("layer", i), Filled<float>(client, 8, i)));
    ASSERT_TRUE(handle.ok()) << handle.status();
    placed.push_back(handle->task);
  }
  EXPECT_THAT(placed, ElementsAre("/job:ps/task:0", "/job:ps/task:1",
                                  "/job:ps/task:0", "/job:ps/task:1",
                                  "/job:ps/task:0", "/job:ps/task:1"));
  for (int task = 0; task < 2; ++task) {
    absl::StatusOr<std::vector<VariableHandle>> listed =
        Get(client.variables->List(TaskName("ps", task)));
    ASSERT_TRUE(listed.ok()) << listed.status();
    std::vector<std::string> names;
    for (const VariableHandle& handle : *listed) names.push_back(handle.name);
    if (task == 0) {
      EXPECT_THAT(names, ElementsAre("layer0", "layer2", "layer4"));
    } else {
      EXPECT_THAT(names, ElementsAre("layer1", "layer3", "layer5"));
    }
  }
}

// Checks a failure against a dead or stopped parameter server: retryable,
// naming the task and the variable, and recording the task.
void ExpectRetryable(const absl::Status& error, absl::StatusCode code,
                     std::string_view what, std::string_view task) {
  EXPECT_EQ(error.code(), code) << error;
  EXPECT_EQ(Classify(error), FailureClass::kRetryable) << error;
  EXPECT_THAT(error.message(),
              HasSubstr(absl::StrCat(std::string(what), " on task ",
                                     std::string(task), " failed: ")));
  EXPECT_EQ(GetErrorContext(error).task, task);
}

TEST_F(PsVariablesTest, AKilledParameterServerGivesARetryableError) {
  ASSERT_NO_FATAL_FAILURE(StartParameterServers(2));
  RpcOptions options;
  options.deadline = absl::Seconds(3);
  Client client = MakeClient(options);
  absl::StatusOr<VariableHandle> on_0 =
      Get(client.variables->Create("bias", Filled<float>(client, 4, 1)));
  absl::StatusOr<VariableHandle> on_1 =
      Get(client.variables->Create("weights", Filled<float>(client, 4, 1)));
  ASSERT_TRUE(on_0.ok() && on_1.ok());
  ASSERT_EQ(on_1->task, "/job:ps/task:1");

  ps_[1]->Kill();
  absl::Time start = absl::Now();
  absl::StatusOr<DenseHostTensor> read = Get(client.variables->Read(*on_1));
  ASSERT_FALSE(read.ok());
  ExpectRetryable(read.status(), absl::StatusCode::kUnavailable,
                  "reading variable 'weights'", "/job:ps/task:1");
  absl::StatusOr<Chain> update =
      Get(client.variables->ApplySgd(*on_1, Filled<float>(client, 4, 1), 0.1));
  ASSERT_FALSE(update.ok());
  ExpectRetryable(update.status(), absl::StatusCode::kUnavailable,
                  "applying SGD to variable 'weights'", "/job:ps/task:1");
  EXPECT_LT(absl::Now() - start, options.deadline + kMargin);

  // The other parameter server goes on serving.
  absl::StatusOr<DenseHostTensor> alive = Get(client.variables->Read(*on_0));
  ASSERT_TRUE(alive.ok()) << alive.status();
  EXPECT_THAT(alive->values<float>(), ElementsAre(1, 1, 1, 1));
}

TEST_F(PsVariablesTest, AParameterServerThatStopsAnsweringFailsAtTheDeadline) {
  ASSERT_NO_FATAL_FAILURE(StartParameterServers(1));
  RpcOptions options;
  options.deadline = absl::Milliseconds(800);
  Client client = MakeClient(options);
  absl::StatusOr<VariableHandle> w =
      Get(client.variables->Create("w", Filled<int32_t>(client, 4, 0)));
  ASSERT_TRUE(w.ok()) << w.status();

  ps_[0]->Stop();
  const absl::Time start = absl::Now();
  absl::StatusOr<Chain> added =
      Get(client.variables->AssignAdd(*w, Filled<int32_t>(client, 4, 1)));
  const absl::Duration took = absl::Now() - start;
  ps_[0]->Continue();
  ASSERT_FALSE(added.ok());
  ExpectRetryable(added.status(), absl::StatusCode::kDeadlineExceeded,
                  "assign-adding to variable 'w'", "/job:ps/task:0");
  EXPECT_THAT(added.status().message(), HasSubstr("no answer within 800ms"));
  EXPECT_GE(took, options.deadline - absl::Milliseconds(50));
  EXPECT_LT(took, options.deadline + kMargin);
}

TEST_F(PsVariablesTest, AParameterServerRefusesBytesPastItsBoundAndBadNames) {
  ASSERT_NO_FATAL_FAILURE(
      StartParameterServers(1, {"--max_variable_bytes=65536"}));
  Client client = MakeClient();
  absl::StatusOr<VariableHandle> a =
      Get(client.variables->Create("a", Filled<float>(client, 8192, 1)));
  ASSERT_TRUE(a.ok()) << a.status();

  absl::StatusOr<VariableHandle> b =
      Get(client.variables->Create("b", Filled<double>(client, 8192, 1)));
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(b.status().message(),
              HasSubstr("creating variable 'b' on task /job:ps/task:0: its "
                        "value (f64 [8192]) would take 65536 more bytes, and "
                        "the task's variables already hold 32768 of the 65536 "
                        "bytes it allows them (--max_variable_bytes)"));
  EXPECT_EQ(GetErrorContext(b.status()).task, "/job:ps/task:0");
  // Asking again will not help: the bound stays until a restart.
  EXPECT_EQ(Classify(b.status()), FailureClass::kFatal);

  // Adam's moments would take twice the value: refused, value intact.
  absl::StatusOr<Chain> adam =
      Get(client.variables->ApplyAdam(*a, Filled<float>(client, 8192, 0.5f)));
  ASSERT_FALSE(adam.ok());
  EXPECT_EQ(adam.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(adam.status().message(),
              HasSubstr("its Adam moments would take 65536 more bytes"));

  // A name no variable may have: the client refuses to send it, and a
  // handle made up with it is refused by the task, quoted cut short.
  const std::string huge(4 << 20, 'n');
  absl::StatusOr<VariableHandle> named =
      Get(client.variables->Create(huge, Filled<float>(client, 1, 0)));
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(named.status().message(), HasSubstr("is longer than 256 bytes"));
  VariableHandle forged = *a;
  forged.name = huge;
  absl::StatusOr<DenseHostTensor> forged_read =
      Get(client.variables->Read(forged));
  ASSERT_FALSE(forged_read.ok());
  EXPECT_EQ(forged_read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(forged_read.status().message(),
              HasSubstr("a name no variable can have"));
  EXPECT_LT(forged_read.status().message().size(), 1000u);

  // The parameter server goes on serving what it holds.
  absl::StatusOr<DenseHostTensor> value = Get(client.variables->Read(*a));
  ASSERT_TRUE(value.ok()) << value.status();
  for (float element : value->values<float>()) ASSERT_EQ(element, 1.0f);
}

}  // namespace
}  // namespace sluice::dist::testing
