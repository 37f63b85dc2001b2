// tfrt_ccl programs compiled from .mlir and run by three ranks, each a
// thread of this process with a HostContext of its own: the values the
// collectives return, and the error values of ranks that disagree, which
// name the kernel, its .mlir location and the generation.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/kernels/ccl_kernels.h"
#include "sluice/support/failure.h"
#include "sluice/tensor/dense_host_tensor.h"
#include "test/util/store_server.h"

namespace sluice {
namespace {

constexpr int kSize = 3;

// Rank r contributes [r, 10 r] (or one more element on the rank named
// MISFIT); the program allreduces it, gathers the sums and broadcasts
// rank 2's row, then waits at a barrier.
constexpr char kProgram[] = R"mlir(
func.func @main(%rank: i64, %t: !t.tensor) -> (!tfrt.chain, !t.tensor, !t.tensor) {
  %c0 = tfrt.new.chain
  %size = tfrt.constant.i64 3
  %gen = tfrt.constant.i64 GENERATION
  %c1, %g = tfrt_ccl.create_group %c0, %rank, %size, %gen {store = "STORE", connect_timeout_ms = 20000 : i64}
  %c2, %sum = tfrt_ccl.allreduce %g, %t, %c1 {reduction = "sum", timeout_ms = 20000 : i64} : !t.tensor
  %c3, %all = tfrt_ccl.allgather %g, %sum, %c2 : !t.tensor
  %c4, %row = tfrt_ccl.broadcast %g, %t, %c3 {root = 2 : i64} : !t.tensor
  %c5 = tfrt_ccl.barrier %g, %c4
  tfrt.return %c5, %all, %row : !tfrt.chain, !t.tensor, !t.tensor
}
)mlir";

struct RankResult {
  std::vector<float> all, row;
  std::vector<int64_t> all_dims;
  absl::Status error;
};

RankResult RunRank(const std::string& source, int rank, int elements) {
  RankResult out;
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   *CreateWorkQueue("mstd:2"));
  KernelRegistry& registry = GetKernelRegistry(&host);
  EXPECT_TRUE(RegisterBasicKernels(&registry).ok());
  EXPECT_TRUE(RegisterCclKernels(&registry).ok());
  absl::StatusOr<std::vector<uint8_t>> sbf = CompileProgram(source, "ccl.mlir");
  EXPECT_TRUE(sbf.ok()) << sbf.status();
  if (!sbf.ok()) return out;
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::Load(*sbf, registry);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok()) return out;
  std::vector<float> values(elements, 0.0f);
  values[0] = static_cast<float>(rank);
  values[1] = 10.0f * rank;
  auto tensor =
      DenseHostTensor::FromValues<float>({elements}, values, host.allocator());
  EXPECT_TRUE(tensor.ok());
  AsyncValueRef<int64_t> rank_value = MakeAvailableAsyncValueRef<int64_t>(rank);
  AsyncValueRef<DenseHostTensor> tensor_value =
      MakeAvailableAsyncValueRef<DenseHostTensor>(*std::move(tensor));
  ExecutionContext context(RequestContext::Create(&host));
  std::vector<RCReference<AsyncValue>> results =
      CallFunction(*(*program)->GetFunction("main"), context,
                   {rank_value.GetAsyncValue(), tensor_value.GetAsyncValue()});
  host.Await(results);
  for (const RCReference<AsyncValue>& result : results) {
    if (result->IsError()) {
      out.error = result->GetError();
      return out;
    }
  }
  const DenseHostTensor& all = results[1]->get<DenseHostTensor>();
  out.all.assign(all.values<float>().begin(), all.values<float>().end());
  out.all_dims.assign(all.shape().dims().begin(), all.shape().dims().end());
  const DenseHostTensor& row = results[2]->get<DenseHostTensor>();
  out.row.assign(row.values<float>().begin(), row.values<float>().end());
  return out;
}

std::vector<RankResult> RunRanks(const std::string& store, int generation,
                                 int misfit) {
  std::string source = absl::StrReplaceAll(
      kProgram, {{"STORE", store}, {"GENERATION", absl::StrCat(generation)}});
  std::vector<RankResult> results(kSize);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < kSize; ++rank) {
    threads.emplace_back([&, rank] {
      results[rank] = RunRank(source, rank, rank == misfit ? 3 : 2);
    });
  }
  for (std::thread& thread : threads) thread.join();
  return results;
}

TEST(CclProgramTest, CollectivesOfAProgramReturnTheirValues) {
  testing::StoreServer store;
  std::vector<RankResult> results = RunRanks(store.address(), 1, -1);
  for (int rank = 0; rank < kSize; ++rank) {
    ASSERT_TRUE(results[rank].error.ok()) << results[rank].error;
    // Every rank's sum [3, 30], stacked three times.
    EXPECT_EQ(results[rank].all_dims, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(results[rank].all, (std::vector<float>{3, 30, 3, 30, 3, 30}));
    EXPECT_EQ(results[rank].row, (std::vector<float>{2, 20}));
  }
}

TEST(CclProgramTest, RanksThatDisagreeGetErrorValuesNamingTheKernel) {
  testing::StoreServer store;
  std::vector<RankResult> results = RunRanks(store.address(), 8, 1);
  for (int rank = 0; rank < kSize; ++rank) {
    const absl::Status& error = results[rank].error;
    ASSERT_FALSE(error.ok()) << "rank " << rank;
    EXPECT_EQ(error.code(), absl::StatusCode::kInvalidArgument) << error;
    EXPECT_NE(error.message().find("rank 1 runs allreduce #1 (0) of f32[3]"),
              std::string::npos)
        << error;
    ErrorContext context = GetErrorContext(error);
    EXPECT_EQ(context.kernel, "tfrt_ccl.allreduce") << error;
    EXPECT_EQ(context.location.rfind("ccl.mlir:7:", 0), 0u) << error;
    EXPECT_EQ(context.generation, 8) << error;
    EXPECT_EQ(Classify(error), FailureClass::kFatal) << error;
  }
}

TEST(CclProgramTest, AGroupWithoutItsPeersIsARetryableErrorValue) {
  testing::StoreServer store;
  std::string source = absl::StrReplaceAll(
      kProgram, {{"STORE", store.address()},
                 {"GENERATION", "3"},
                 {"connect_timeout_ms = 20000", "connect_timeout_ms = 300"}});
  RankResult result = RunRank(source, 0, 2);
  ASSERT_FALSE(result.error.ok());
  EXPECT_EQ(result.error.code(), absl::StatusCode::kDeadlineExceeded)
      << result.error;
  ErrorContext context = GetErrorContext(result.error);
  EXPECT_EQ(context.kernel, "tfrt_ccl.create_group") << result.error;
  EXPECT_EQ(context.generation, 3);
  EXPECT_EQ(Classify(result.error), FailureClass::kRetryable);
}

// An allreduce that falls back on the rank's own tensor when it fails
// (on_failure, docs/tfrt_dist.md).
constexpr char kFallbackProgram[] = R"mlir(
func.func @keep_own(%g: !tfrt_ccl.group, %t: !t.tensor, %c: !tfrt.chain) -> (!tfrt.chain, !t.tensor) {
  tfrt.return %c, %t : !tfrt.chain, !t.tensor
}

func.func @main(%rank: i64, %t: !t.tensor) -> (!tfrt.chain, !t.tensor, !t.tensor) {
  %c0 = tfrt.new.chain
  %size = tfrt.constant.i64 3
  %gen = tfrt.constant.i64 GENERATION
  %c1, %g = tfrt_ccl.create_group %c0, %rank, %size, %gen {store = "STORE", connect_timeout_ms = 20000 : i64}
  %c2, %sum = tfrt_ccl.allreduce %g, %t, %c1 {reduction = "sum", timeout_ms = 20000 : i64, on_failure = #tfrt_dist.fallback<@keep_own>} : !t.tensor
  tfrt.return %c2, %sum, %sum : !tfrt.chain, !t.tensor, !t.tensor
}
)mlir";

TEST(CclProgramTest, AFallbackStandsInForAFailedCollective) {
  testing::StoreServer store;
  std::string source = absl::StrReplaceAll(
      kFallbackProgram, {{"STORE", store.address()}, {"GENERATION", "4"}});
  // Every rank fits: the fallback is not used.
  std::vector<RankResult> results(kSize);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < kSize; ++rank) {
    threads.emplace_back(
        [&, rank] { results[rank] = RunRank(source, rank, 2); });
  }
  for (std::thread& thread : threads) thread.join();
  for (int rank = 0; rank < kSize; ++rank) {
    ASSERT_TRUE(results[rank].error.ok()) << results[rank].error;
    EXPECT_EQ(results[rank].all, (std::vector<float>{3, 30}));
  }

  // Rank 1 does not fit, so the allreduce fails (fatally) on every rank,
  // and each keeps its own tensor instead of an error.
  source = absl::StrReplaceAll(
      kFallbackProgram, {{"STORE", store.address()}, {"GENERATION", "5"}});
  threads.clear();
  for (int rank = 0; rank < kSize; ++rank) {
    threads.emplace_back([&, rank] {
      results[rank] = RunRank(source, rank, rank == 1 ? 3 : 2);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(results[0].all, (std::vector<float>{0, 0}));
  EXPECT_EQ(results[1].all, (std::vector<float>{1, 10, 0}));
  EXPECT_EQ(results[2].all, (std::vector<float>{2, 20}));
  for (int rank = 0; rank < kSize; ++rank) {
    EXPECT_TRUE(results[rank].error.ok()) << results[rank].error;
  }
}

}  // namespace
}  // namespace sluice
