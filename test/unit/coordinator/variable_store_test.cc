// The variables of one parameter server, without the wire: creation and its
// idempotence, reads, every update's arithmetic and checks, Adam's state,
// listing, and atomicity under concurrent updates.
#include "lib/coordinator/variable_store.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/coordinator/variable_math.h"
#include "lib/distributed/tensor_codec.h"
#include "sluice/coordinator/variables.h"
#include "sluice/host_context/host_allocator.h"
#include "sluice/tensor/dense_host_tensor.h"

namespace sluice::dist {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kTask[] = "/job:ps/task:0";

class VariableStoreTest : public ::testing::Test {
 protected:
  template <typename T>
  proto::Tensor Wire(TensorShape shape, std::initializer_list<T> values) {
    absl::StatusOr<DenseHostTensor> tensor = DenseHostTensor::FromValues<T>(
        std::move(shape), absl::Span<const T>(values.begin(), values.size()),
        &allocator_);
    EXPECT_TRUE(tensor.ok()) << tensor.status();
    proto::Tensor wire;
    EXPECT_TRUE(EncodeTensor(*tensor, &wire).ok());
    return wire;
  }

  // `n` zeros of T.
  template <typename T>
  proto::Tensor Filled(int64_t n) {
    std::vector<T> zeros(n, T{0});
    absl::StatusOr<DenseHostTensor> tensor =
        DenseHostTensor::FromValues<T>(TensorShape({n}), zeros, &allocator_);
    EXPECT_TRUE(tensor.ok()) << tensor.status();
    proto::Tensor wire;
    EXPECT_TRUE(EncodeTensor(*tensor, &wire).ok());
    return wire;
  }

  absl::StatusOr<bool> Create(const std::string& name, proto::Tensor initial) {
    return CreateIn(store_, name, std::move(initial));
  }
  absl::StatusOr<bool> CreateIn(VariableStore& store, const std::string& name,
                                proto::Tensor initial) {
    proto::CreateVariableRequest request;
    request.set_name(name);
    *request.mutable_initial_value() = std::move(initial);
    proto::CreateVariableResponse response;
    absl::Status created = store.Create(request, &response);
    if (!created.ok()) return created;
    return response.created();
  }

  template <typename T>
  std::vector<T> Read(const std::string& name) {
    proto::ReadVariableRequest request;
    request.set_name(name);
    proto::ReadVariableResponse response;
    absl::Status read = store_.Read(request, &response);
    EXPECT_TRUE(read.ok()) << read;
    absl::StatusOr<DenseHostTensor> value =
        DecodeTensor(response.value(), &allocator_);
    EXPECT_TRUE(value.ok()) << value.status();
    if (!value.ok() || value->dtype() != DTypeOf<T>()) return {};
    auto values = value->values<T>();
    return std::vector<T>(values.begin(), values.end());
  }

  absl::Status Update(
      const std::string& name,
      const std::function<void(proto::UpdateVariableRequest&)>& fill) {
    return UpdateIn(store_, name, fill);
  }
  absl::Status UpdateIn(
      VariableStore& store, const std::string& name,
      const std::function<void(proto::UpdateVariableRequest&)>& fill) {
    proto::UpdateVariableRequest request;
    request.set_name(name);
    fill(request);
    return store.Update(request);
  }

  // The variable's Adam state, or none when no step has run.
  std::optional<proto::AdamState> AdamStateOf(const std::string& name) {
    proto::ReadVariableRequest request;
    request.set_name(name);
    request.set_with_optimizer_state(true);
    proto::ReadVariableResponse response;
    absl::Status read = store_.Read(request, &response);
    EXPECT_TRUE(read.ok()) << read;
    if (!response.has_adam()) return std::nullopt;
    return response.adam();
  }

  absl::Status RestoreAdam(const std::string& name, int64_t step,
                           proto::Tensor m, proto::Tensor v) {
    return Update(name, [&](proto::UpdateVariableRequest& request) {
      proto::AdamState* state = request.mutable_set_adam_state();
      state->set_step(step);
      *state->mutable_m() = m;
      *state->mutable_v() = v;
    });
  }

  absl::Status AssignAdd(const std::string& name, proto::Tensor delta) {
    return Update(name, [&](proto::UpdateVariableRequest& request) {
      *request.mutable_assign_add() = delta;
    });
  }

  absl::Status Adam(const std::string& name, proto::Tensor gradient,
                    double learning_rate = 0.1, double beta1 = 0.9,
                    double beta2 = 0.999, double epsilon = 1e-7) {
    return Update(name, [&](proto::UpdateVariableRequest& request) {
      proto::AdamUpdate* adam = request.mutable_adam();
      adam->set_learning_rate(learning_rate);
      adam->set_beta1(beta1);
      adam->set_beta2(beta2);
      adam->set_epsilon(epsilon);
      *adam->mutable_gradient() = gradient;
    });
  }

  LeakCheckAllocator allocator_{CreateMallocAllocator()};
  VariableStore store_{kTask, &allocator_};
};

TEST_F(VariableStoreTest, ACreatedVariableReadsBackItsInitialValue) {
  absl::StatusOr<bool> created = Create("w", Wire<float>({2}, {1.5f, -2}));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(*created);
  EXPECT_THAT(Read<float>("w"), ElementsAre(1.5f, -2.0f));
}

TEST_F(VariableStoreTest, CreatingAgainWithTheSameDTypeAndShapeKeepsTheValue) {
  ASSERT_TRUE(Create("w", Wire<int32_t>({2}, {1, 2})).ok());
  absl::StatusOr<bool> again = Create("w", Wire<int32_t>({2}, {7, 7}));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(*again);
  EXPECT_THAT(Read<int32_t>("w"), ElementsAre(1, 2));

  absl::StatusOr<bool> other = Create("w", Wire<int32_t>({3}, {1, 2, 3}));
  EXPECT_EQ(other.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(other.status().message(),
              HasSubstr("creating variable 'w' on task /job:ps/task:0: it "
                        "exists as i32 [2], not as i32 [3]"));
  EXPECT_EQ(Create("w", Wire<float>({2}, {1, 2})).status().code(),
            absl::StatusCode::kAlreadyExists);
}

TEST_F(VariableStoreTest, BadCreationsAreRefused) {
  EXPECT_THAT(Create("", Wire<int32_t>({}, {1})).status().message(),
              HasSubstr("the name is empty"));
  proto::Tensor corrupt = Wire<int32_t>({2}, {1, 2});
  corrupt.set_dtype(77);
  absl::StatusOr<bool> refused = Create("w", corrupt);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("creating variable 'w' on task /job:ps/task:0: the "
                        "initial value: tensor message has unknown dtype 77"));
}

TEST_F(VariableStoreTest, UnknownVariablesAreNotFound) {
  proto::ReadVariableRequest read;
  read.set_name("nope");
  proto::ReadVariableResponse response;
  absl::Status status = store_.Read(read, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "task /job:ps/task:0 has no variable 'nope'");
  EXPECT_EQ(AssignAdd("nope", Wire<int32_t>({}, {1})).code(),
            absl::StatusCode::kNotFound);
}

TEST_F(VariableStoreTest, AssignReplacesTheValueOfTheSameShapeOnly) {
  ASSERT_TRUE(Create("w", Wire<double>({2}, {1, 2})).ok());
  EXPECT_TRUE(Update("w", [&](proto::UpdateVariableRequest& r) {
                *r.mutable_assign() = Wire<double>({2}, {-3, 4.5});
              }).ok());
  EXPECT_THAT(Read<double>("w"), ElementsAre(-3, 4.5));

  absl::Status wrong = Update("w", [&](proto::UpdateVariableRequest& r) {
    *r.mutable_assign() = Wire<double>({1, 2}, {0, 0});
  });
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      wrong.message(),
      HasSubstr("assigning variable 'w' (f64 [2]) on task "
                "/job:ps/task:0: the value is f64 [1, 2], not f64 [2]"));
  EXPECT_THAT(Read<double>("w"), ElementsAre(-3, 4.5));
}

TEST_F(VariableStoreTest, AssignAddAddsAndIntegersWrapAround) {
  ASSERT_TRUE(
      Create("i", Wire<int32_t>({2}, {std::numeric_limits<int32_t>::max(), 5}))
          .ok());
  ASSERT_TRUE(AssignAdd("i", Wire<int32_t>({2}, {1, -7})).ok());
  EXPECT_THAT(Read<int32_t>("i"),
              ElementsAre(std::numeric_limits<int32_t>::min(), -2));

  ASSERT_TRUE(Create("f", Wire<float>({3}, {0.5f, 1, 2})).ok());
  ASSERT_TRUE(AssignAdd("f", Wire<float>({3}, {0.25f, -1, 8})).ok());
  EXPECT_THAT(Read<float>("f"), ElementsAre(0.75f, 0.0f, 10.0f));

  ASSERT_TRUE(Create("b", Wire<bool>({1}, {true})).ok());
  EXPECT_THAT(AssignAdd("b", Wire<bool>({1}, {true})).message(),
              HasSubstr("i1 variables do not add"));
  EXPECT_THAT(AssignAdd("f", Wire<double>({3}, {1, 1, 1})).message(),
              HasSubstr("the value is f64 [3], not f32 [3]"));
}

TEST_F(VariableStoreTest, SgdSubtractsTheScaledGradient) {
  ASSERT_TRUE(Create("w", Wire<double>({2}, {1, 2})).ok());
  ASSERT_TRUE(
      Update("w", [&](proto::UpdateVariableRequest& r) {
        r.mutable_sgd()->set_learning_rate(0.5);
        *r.mutable_sgd()->mutable_gradient() = Wire<double>({2}, {4, -2});
      }).ok());
  EXPECT_THAT(Read<double>("w"), ElementsAre(-1, 3));

  absl::Status nan = Update("w", [&](proto::UpdateVariableRequest& r) {
    r.mutable_sgd()->set_learning_rate(std::nan(""));
    *r.mutable_sgd()->mutable_gradient() = Wire<double>({2}, {1, 1});
  });
  EXPECT_THAT(nan.message(), HasSubstr("the learning rate is nan"));

  ASSERT_TRUE(Create("i", Wire<int64_t>({1}, {3})).ok());
  absl::Status integer = Update("i", [&](proto::UpdateVariableRequest& r) {
    r.mutable_sgd()->set_learning_rate(1);
    *r.mutable_sgd()->mutable_gradient() = Wire<int64_t>({1}, {1});
  });
  EXPECT_EQ(integer.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(integer.message(),
              HasSubstr("applying SGD to variable 'i' (i64 [1]) on task "
                        "/job:ps/task:0: only f32 and f64 variables"));
}

// Adam as Kingma and Ba write it, in double precision, step by step.
struct ReferenceAdam {
  double lr, beta1, beta2, epsilon;
  std::vector<double> var, m, v;
  int t = 0;

  void Step(const std::vector<double>& gradient) {
    ++t;
    for (size_t i = 0; i < var.size(); ++i) {
      m[i] = beta1 * m[i] + (1 - beta1) * gradient[i];
      v[i] = beta2 * v[i] + (1 - beta2) * gradient[i] * gradient[i];
      const double corrected =
          lr * std::sqrt(1 - std::pow(beta2, t)) / (1 - std::pow(beta1, t));
      var[i] -= corrected * m[i] / (std::sqrt(v[i]) + epsilon);
    }
  }
};

TEST_F(VariableStoreTest, AdamMatchesTheReference) {
  ASSERT_TRUE(Create("w", Wire<double>({3}, {1, -2, 0.5})).ok());
  ReferenceAdam reference{0.01,         0.8,       0.99,     1e-6,
                          {1, -2, 0.5}, {0, 0, 0}, {0, 0, 0}};
  const std::vector<std::vector<double>> gradients = {
      {0.1, -0.3, 2}, {0.5, 0.5, -1}, {-0.2, 0, 3}, {1, 1, 1}};
  for (const std::vector<double>& g : gradients) {
    ASSERT_TRUE(
        Adam("w", Wire<double>({3}, {g[0], g[1], g[2]}), 0.01, 0.8, 0.99, 1e-6)
            .ok());
    reference.Step(g);
  }
  std::vector<double> got = Read<double>("w");
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], reference.var[i], 1e-12) << i;
  }
}

TEST_F(VariableStoreTest, BadAdamHyperparametersAreRefusedAndChangeNothing) {
  ASSERT_TRUE(Create("w", Wire<float>({1}, {1})).ok());
  EXPECT_THAT(Adam("w", Wire<float>({1}, {1}), 0.1, 1.0).message(),
              HasSubstr("beta1 is 1, not in [0, 1)"));
  EXPECT_THAT(Adam("w", Wire<float>({1}, {1}), 0.1, 0.9, -0.5).message(),
              HasSubstr("beta2 is -0.5, not in [0, 1)"));
  EXPECT_THAT(Adam("w", Wire<float>({1}, {1}), 0.1, 0.9, 0.99, 0).message(),
              HasSubstr("epsilon is 0, not positive"));
  EXPECT_THAT(Read<float>("w"), ElementsAre(1.0f));

  proto::ReadVariableRequest request;
  request.set_name("w");
  request.set_with_optimizer_state(true);
  proto::ReadVariableResponse response;
  ASSERT_TRUE(store_.Read(request, &response).ok());
  EXPECT_FALSE(response.has_adam());
}

TEST_F(VariableStoreTest, AdamStateSavedAndRestoredContinuesTheSameRun) {
  const std::vector<proto::Tensor> gradients = {
      Wire<float>({2}, {0.5f, -1}), Wire<float>({2}, {2, 0.25f}),
      Wire<float>({2}, {-1, -1}), Wire<float>({2}, {0.125f, 3})};
  // One run of four steps.
  ASSERT_TRUE(Create("straight", Wire<float>({2}, {1, 2})).ok());
  for (const proto::Tensor& g : gradients)
    ASSERT_TRUE(Adam("straight", g).ok());

  // Two steps, a save, a restore into a fresh store, two more steps.
  ASSERT_TRUE(Create("w", Wire<float>({2}, {1, 2})).ok());
  ASSERT_TRUE(Adam("w", gradients[0]).ok());
  ASSERT_TRUE(Adam("w", gradients[1]).ok());
  proto::ReadVariableRequest read;
  read.set_name("w");
  read.set_with_optimizer_state(true);
  proto::ReadVariableResponse saved;
  ASSERT_TRUE(store_.Read(read, &saved).ok());
  ASSERT_TRUE(saved.has_adam());
  EXPECT_EQ(saved.adam().step(), 2);

  VariableStore restored(kTask, &allocator_);
  proto::CreateVariableRequest create;
  create.set_name("w");
  *create.mutable_initial_value() = saved.value();
  proto::CreateVariableResponse created;
  ASSERT_TRUE(restored.Create(create, &created).ok());
  proto::UpdateVariableRequest restore;
  restore.set_name("w");
  *restore.mutable_set_adam_state() = saved.adam();
  ASSERT_TRUE(restored.Update(restore).ok());
  for (int i = 2; i < 4; ++i) {
    proto::UpdateVariableRequest step;
    step.set_name("w");
    proto::AdamUpdate* adam = step.mutable_adam();
    adam->set_learning_rate(0.1);
    adam->set_beta1(0.9);
    adam->set_beta2(0.999);
    adam->set_epsilon(1e-7);
    *adam->mutable_gradient() = gradients[i];
    ASSERT_TRUE(restored.Update(step).ok());
  }
  proto::ReadVariableRequest read_restored;
  read_restored.set_name("w");
  proto::ReadVariableResponse after;
  ASSERT_TRUE(restored.Read(read_restored, &after).ok());
  proto::ReadVariableRequest read_straight;
  read_straight.set_name("straight");
  proto::ReadVariableResponse straight;
  ASSERT_TRUE(store_.Read(read_straight, &straight).ok());
  // Bit for bit: the same arithmetic in the same order.
  EXPECT_EQ(after.value().data(), straight.value().data());

  proto::UpdateVariableRequest bad;
  bad.set_name("w");
  *bad.mutable_set_adam_state() = saved.adam();
  bad.mutable_set_adam_state()->set_step(0);
  EXPECT_THAT(restored.Update(bad).message(), HasSubstr("the step is 0"));
}

TEST_F(VariableStoreTest, RequestsWithoutAnUpdateOrWithACorruptTensorFail) {
  ASSERT_TRUE(Create("w", Wire<float>({1}, {1})).ok());
  EXPECT_THAT(Update("w", [](proto::UpdateVariableRequest&) {}).message(),
              HasSubstr("the request names no update"));
  proto::Tensor corrupt = Wire<float>({1}, {1});
  corrupt.mutable_data()->push_back('x');
  absl::Status refused = AssignAdd("w", corrupt);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("carries 5 bytes"));
  EXPECT_THAT(Read<float>("w"), ElementsAre(1.0f));
}

TEST_F(VariableStoreTest, ListGivesNamesDTypesAndShapesInNameOrder) {
  ASSERT_TRUE(Create("b", Wire<int64_t>({2, 1}, {1, 2})).ok());
  ASSERT_TRUE(Create("a", Wire<float>({}, {1})).ok());
  proto::ListVariablesResponse listed;
  store_.List(&listed);
  ASSERT_EQ(listed.variables_size(), 2);
  EXPECT_EQ(listed.variables(0).name(), "a");
  EXPECT_EQ(listed.variables(0).dtype(), static_cast<uint32_t>(DType::kF32));
  EXPECT_EQ(listed.variables(0).dims_size(), 0);
  EXPECT_EQ(listed.variables(1).name(), "b");
  EXPECT_EQ(listed.variables(1).dtype(), static_cast<uint32_t>(DType::kI64));
  EXPECT_THAT(listed.variables(1).dims(), ElementsAre(2, 1));
}

TEST_F(VariableStoreTest, ConcurrentUpdatesAreEachAppliedWhole) {
  constexpr int kThreads = 8;
  constexpr int kUpdates = 500;
  constexpr int kElements = 1024;
  DenseHostTensor zeros = *DenseHostTensor::Create(
      DType::kI64, TensorShape({kElements}), &allocator_);
  std::fill(zeros.mutable_values<int64_t>().begin(),
            zeros.mutable_values<int64_t>().end(), 0);
  proto::Tensor wire;
  ASSERT_TRUE(EncodeTensor(zeros, &wire).ok());
  ASSERT_TRUE(Create("w", wire).ok());
  std::fill(zeros.mutable_values<int64_t>().begin(),
            zeros.mutable_values<int64_t>().end(), 1);
  proto::Tensor ones;
  ASSERT_TRUE(EncodeTensor(zeros, &ones).ok());

  std::atomic<int> torn{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kUpdates; ++i) {
        ASSERT_TRUE(AssignAdd("w", ones).ok());
        if (i % 50 == 0) {
          // A read sees every element with the same count of updates.
          std::vector<int64_t> seen = Read<int64_t>("w");
          if (std::count(seen.begin(), seen.end(), seen.front()) != kElements) {
            torn.fetch_add(1);
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(torn.load(), 0);
  std::vector<int64_t> final_value = Read<int64_t>("w");
  ASSERT_EQ(final_value.size(), static_cast<size_t>(kElements));
  for (int64_t element : final_value) {
    ASSERT_EQ(element, kThreads * kUpdates);
  }
}

// Limits (docs/variables.md#limits): names, bytes, restored Adam state.

TEST_F(VariableStoreTest, CreatesWithANameOutsideTheRulesAreRefused) {
  const std::string huge(4 << 20, 'n');
  absl::StatusOr<bool> too_long = Create(huge, Wire<float>({1}, {1}));
  EXPECT_EQ(too_long.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_long.status().message(),
              HasSubstr("creating a variable on task /job:ps/task:0: the name "
                        "'nnnn"));
  EXPECT_THAT(too_long.status().message(),
              HasSubstr("(4194304 bytes) is longer than 256 bytes"));
  EXPECT_LT(too_long.status().message().size(), 400u);

  absl::StatusOr<bool> odd = Create("w\n", Wire<float>({1}, {1}));
  EXPECT_EQ(odd.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(odd.status().message(),
              HasSubstr("the name 'w\\n' has '\\n' at byte 1"));

  EXPECT_TRUE(Create(std::string(256, 'x'), Wire<float>({1}, {1})).ok());
  EXPECT_FALSE(Create(std::string(257, 'x'), Wire<float>({1}, {1})).ok());
  proto::ListVariablesResponse listed;
  store_.List(&listed);
  ASSERT_EQ(listed.variables_size(), 1);
  EXPECT_EQ(listed.variables(0).name(), std::string(256, 'x'));
}

TEST_F(VariableStoreTest, ReadsAndUpdatesNamingNoPossibleVariableAreRefused) {
  const std::string huge(4 << 20, 'n');
  proto::ReadVariableRequest read;
  read.set_name(huge);
  proto::ReadVariableResponse response;
  absl::Status refused = store_.Read(read, &response);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("longer than 256 bytes"));
  EXPECT_LT(refused.message().size(), 400u);

  absl::Status update = AssignAdd("a b", Wire<float>({1}, {1}));
  EXPECT_EQ(update.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(update.message(), HasSubstr("the name 'a b' has ' ' at byte 1"));
}

TEST_F(VariableStoreTest, TheByteBoundRefusesACreatePastItNamingBoth) {
  VariableStore bounded(kTask, &allocator_, /*max_variable_bytes=*/64);
  ASSERT_TRUE(CreateIn(bounded, "w", Filled<float>(8)).ok());  // 32 bytes
  EXPECT_EQ(bounded.bytes_held(), 32);

  absl::StatusOr<bool> big = CreateIn(bounded, "big", Filled<double>(8));
  EXPECT_EQ(big.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(
      big.status().message(),
      HasSubstr("creating variable 'big' on task /job:ps/task:0: its "
                "value (f64 [8]) would take 64 more bytes, and the task's "
                "variables already hold 32 of the 64 bytes it allows "
                "them (--max_variable_bytes)"));
  EXPECT_EQ(bounded.bytes_held(), 32);
  proto::ListVariablesResponse listed;
  bounded.List(&listed);
  EXPECT_EQ(listed.variables_size(), 1);

  // Up to the bound exactly; a repeated create counts nothing again, even
  // with the store full.
  ASSERT_TRUE(CreateIn(bounded, "v", Filled<int64_t>(4)).ok());
  EXPECT_EQ(bounded.bytes_held(), 64);
  absl::StatusOr<bool> again = CreateIn(bounded, "w", Filled<float>(8));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(*again);
  EXPECT_EQ(bounded.bytes_held(), 64);
  EXPECT_EQ(CreateIn(bounded, "one", Wire<int32_t>({1}, {1})).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST_F(VariableStoreTest, AdamMomentsCountAgainstTheByteBound) {
  // 16 bytes of value and 32 of moments fit 48, not 47.
  for (int64_t bound : {48, 47}) {
    VariableStore bounded(kTask, &allocator_, bound);
    ASSERT_TRUE(CreateIn(bounded, "w", Wire<float>({4}, {1, 2, 3, 4})).ok());
    absl::Status stepped =
        UpdateIn(bounded, "w", [&](proto::UpdateVariableRequest& request) {
          proto::AdamUpdate* adam = request.mutable_adam();
          adam->set_learning_rate(0.1);
          adam->set_beta1(0.9);
          adam->set_beta2(0.999);
          adam->set_epsilon(1e-7);
          *adam->mutable_gradient() = Wire<float>({4}, {1, 1, 1, 1});
        });
    proto::ReadVariableRequest read;
    read.set_name("w");
    read.set_with_optimizer_state(true);
    proto::ReadVariableResponse value;
    ASSERT_TRUE(bounded.Read(read, &value).ok());
    if (bound == 48) {
      EXPECT_TRUE(stepped.ok()) << stepped;
      EXPECT_EQ(bounded.bytes_held(), 48);
      EXPECT_TRUE(value.has_adam());
      continue;
    }
    EXPECT_EQ(stepped.code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(
        stepped.message(),
        HasSubstr("applying Adam to variable 'w' (f32 [4]) on task "
                  "/job:ps/task:0: its Adam moments would take 32 more bytes"));
    EXPECT_EQ(bounded.bytes_held(), 16);
    EXPECT_FALSE(value.has_adam());
    EXPECT_EQ(value.value().data(), Wire<float>({4}, {1, 2, 3, 4}).data());
  }
}

TEST_F(VariableStoreTest, ConcurrentCreatesNeverPassTheByteBound) {
  constexpr int kThreads = 8;
  constexpr int kCreatesEach = 50;
  constexpr int64_t kBound = 100 * 64;  // room for 100 of the 400
  VariableStore bounded(kTask, &allocator_, kBound);
  const proto::Tensor initial = Filled<double>(8);
  std::atomic<int> created{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCreatesEach; ++i) {
        absl::StatusOr<bool> made =
            CreateIn(bounded, absl::StrCat("v", t, "_", i), initial);
        if (made.ok()) {
          created.fetch_add(1);
        } else if (made.status().code() ==
                   absl::StatusCode::kResourceExhausted) {
          refused.fetch_add(1);
        }
        EXPECT_LE(bounded.bytes_held(), kBound);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(created.load(), 100);
  EXPECT_EQ(refused.load(), kThreads * kCreatesEach - 100);
  EXPECT_EQ(bounded.bytes_held(), kBound);
}

TEST_F(VariableStoreTest,
       RestoredAdamStateOutOfRangeIsRefusedAndChangesNothing) {
  ASSERT_TRUE(Create("w", Wire<float>({2}, {1, 2})).ok());
  ASSERT_TRUE(Adam("w", Wire<float>({2}, {0.5f, -1})).ok());
  const std::optional<proto::AdamState> before = AdamStateOf("w");
  ASSERT_TRUE(before.has_value());
  const std::vector<float> value_before = Read<float>("w");
  const proto::Tensor good = Wire<float>({2}, {0.1f, 0.2f});
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();

  struct Case {
    int64_t step;
    proto::Tensor m;
    proto::Tensor v;
    std::string says;
  };
  const std::vector<Case> cases = {
      {std::numeric_limits<int64_t>::max(), good, good,
       "the step is 9223372036854775807, not in [1, 2^53 = "
       "9007199254740992]"},
      {kMaxAdamStep + 1, good, good, "the step is 9007199254740993"},
      {-5, good, good, "the step is -5"},
      {0, good, good, "the step is 0"},
      {3, Wire<float>({2}, {0, nan}), good,
       "the first moment's element 1 is nan, not finite"},
      {3, Wire<float>({2}, {-inf, 0}), good,
       "the first moment's element 0 is -inf, not finite"},
      {3, good, Wire<float>({2}, {0.5f, -1}),
       "the second moment's element 1 is -1, not finite and at least 0"},
      {3, good, Wire<float>({2}, {nan, 1}),
       "the second moment's element 0 is nan, not finite and at least 0"},
      {3, good, Wire<float>({2}, {inf, 1}), "element 0 is inf"},
      {3, good, Wire<float>({3}, {1, 1, 1}),
       "the second moment is f32 [3], not f32 [2]"},
      {3, Wire<double>({2}, {1, 1}), good,
       "the first moment is f64 [2], not f32 [2]"},
  };
  for (const Case& c : cases) {
    absl::Status refused = RestoreAdam("w", c.step, c.m, c.v);
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << c.says;
    EXPECT_THAT(refused.message(),
                HasSubstr("restoring the Adam state of variable 'w' (f32 "
                          "[2]) on task /job:ps/task:0: "));
    EXPECT_THAT(refused.message(), HasSubstr(c.says));
    const std::optional<proto::AdamState> after = AdamStateOf("w");
    ASSERT_TRUE(after.has_value());
    EXPECT_EQ(after->step(), before->step()) << c.says;
    EXPECT_EQ(after->m().data(), before->m().data()) << c.says;
    EXPECT_EQ(after->v().data(), before->v().data()) << c.says;
    EXPECT_EQ(Read<float>("w"), value_before) << c.says;
  }

  // The bound itself, a zero second moment and f64 state are taken.
  ASSERT_TRUE(
      RestoreAdam("w", kMaxAdamStep, good, Wire<float>({2}, {0, 0})).ok());
  EXPECT_EQ(AdamStateOf("w")->step(), kMaxAdamStep);
  ASSERT_TRUE(Create("d", Wire<double>({1}, {1})).ok());
  EXPECT_TRUE(
      RestoreAdam("d", 1, Wire<double>({1}, {-3}), Wire<double>({1}, {2}))
          .ok());
  EXPECT_EQ(
      RestoreAdam("d", 1, Wire<double>({1}, {0}), Wire<double>({1}, {-1e-300}))
          .code(),
      absl::StatusCode::kInvalidArgument);
}

TEST_F(VariableStoreTest,
       RestoringAdamStateIntoAFreshVariableCountsItsMoments) {
  VariableStore bounded(kTask, &allocator_, /*max_variable_bytes=*/16);
  ASSERT_TRUE(CreateIn(bounded, "w", Wire<float>({2}, {1, 2})).ok());
  const proto::Tensor zeros = Wire<float>({2}, {0, 0});
  absl::Status refused =
      UpdateIn(bounded, "w", [&](proto::UpdateVariableRequest& request) {
        proto::AdamState* state = request.mutable_set_adam_state();
        state->set_step(1);
        *state->mutable_m() = zeros;
        *state->mutable_v() = zeros;
      });
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(
      refused.message(),
      HasSubstr("its Adam moments would take 16 more bytes, and the task's "
                "variables already hold 8 of the 16 bytes"));
  EXPECT_EQ(bounded.bytes_held(), 8);
}

}  // namespace
}  // namespace sluice::dist
