// Kernel debug info built on first use: errors still name the kernel and its
// location, every caller gets the one entry per kernel, and frames built by
// hand keep the entry they were given.
#include "lib/executor/kernel_debug_infos.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "sluice/bef/sbf_reader.h"
#include "sluice/bef/sbf_writer.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_frame.h"
#include "sluice/support/error_util.h"

namespace sluice {
namespace executor_internal {
namespace {

int32_t Constant(Attribute<int32_t> value) { return *value; }
absl::StatusOr<int32_t> Fail(int32_t) {
  return absl::InternalError("always fails");
}

// More kernels than one chunk of entries holds.
constexpr uint32_t kConstants = 1500;

// main() -> fail(constant 1499): constant k sits at chain.mlir:(10 + k):3,
// named "c<k>" for even k; the failing op at chain.mlir:(10 + kConstants):7.
// Odd constants share one location entry.
std::vector<uint8_t> BuildChain() {
  bef::SbfWriter w;
  const uint32_t i32 = w.AddType("i32");
  const uint32_t f =
      w.DeclareFunction("main", bef::FunctionKind::kFunction, {}, {i32});
  const uint32_t constant = w.AddKernelName("test.constant");
  const uint32_t value = w.AddString("value");
  const uint32_t shared = w.AddLocation("chain.mlir", 5, 1, std::nullopt);
  bef::BodyDescription body;
  for (uint32_t k = 0; k < kConstants; ++k) {
    bef::KernelDescription op;
    op.name_index = constant;
    op.location_index = k % 2 == 0 ? w.AddLocation("chain.mlir", 10 + k, 3,
                                                   "c" + std::to_string(k))
                                   : shared;
    op.results = {body.num_registers++};
    op.attributes = {w.AddScalar<int32_t>(bef::AttributeType::kI32, 1)};
    op.attribute_names = {value};
    body.kernels.push_back(op);
  }
  bef::KernelDescription fail;
  fail.name_index = w.AddKernelName("test.fail");
  fail.location_index =
      w.AddLocation("chain.mlir", 10 + kConstants, 7, std::nullopt);
  fail.operands = {kConstants - 1};
  fail.results = {body.num_registers++};
  body.kernels.push_back(fail);
  body.result_registers = {kConstants};
  w.DefineFunction(f, std::move(body));
  return w.Finish();
}

class KernelDebugInfosTest : public ::testing::Test {
 protected:
  KernelDebugInfosTest()
      : host_([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
              CreateSingleThreadedWorkQueue()),
        bytes_(BuildChain()) {
    EXPECT_TRUE(GetKernelRegistry(&host_)
                    .AddKernels({{"test.constant", SLUICE_KERNEL(Constant)},
                                 {"test.fail", SLUICE_KERNEL(Fail)}})
                    .ok());
    absl::StatusOr<bef::SbfProgram> sbf = bef::ReadSbf(bytes_);
    EXPECT_TRUE(sbf.ok()) << sbf.status();
    sbf_ = *std::move(sbf);
    const std::vector<bef::SbfKernel>& kernels = sbf_.functions[0].kernels;
    infos_.Reset(&sbf_, kernels.size());
    for (uint32_t k = 0; k < kernels.size(); ++k) {
      infos_.Set(k, kernels[k].name_index, kernels[k].location_index);
    }
  }

  HostContext host_;
  const std::vector<uint8_t> bytes_;
  bef::SbfProgram sbf_;
  KernelDebugInfos infos_;
};

TEST_F(KernelDebugInfosTest, AKernelErrorNamesTheKernelAndItsLocation) {
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::Load(bytes_, GetKernelRegistry(&host_));
  ASSERT_TRUE(program.ok()) << program.status();
  ExecutionContext context(RequestContext::Create(&host_));
  std::vector<RCReference<AsyncValue>> results =
      CallFunction(*(*program)->GetFunction("main"), context, {});
  host_.Await(results);
  ASSERT_TRUE(results[0]->IsError());
  const ErrorContext where = GetErrorContext(results[0]->GetError());
  EXPECT_EQ(where.kernel, "test.fail");
  EXPECT_EQ(where.location, "chain.mlir:1510:7");
}

TEST_F(KernelDebugInfosTest, BuildsEachKernelsEntryFromTheProgram) {
  const KernelDebugInfo& named = infos_.Get(1200);
  EXPECT_EQ(named.name, "test.constant");
  ASSERT_TRUE(named.location.has_value());
  EXPECT_EQ(named.location->ToString(), "chain.mlir:1210:3");
  EXPECT_EQ(named.debug_name, std::optional<std::string_view>("c1200"));

  const KernelDebugInfo& last = infos_.Get(kConstants);
  EXPECT_EQ(last.name, "test.fail");
  ASSERT_TRUE(last.location.has_value());
  EXPECT_EQ(last.location->ToString(), "chain.mlir:1510:7");
  EXPECT_EQ(last.debug_name, std::nullopt);

  // Kernels that point at one location entry share its record, not an entry.
  const KernelDebugInfo& first_odd = infos_.Get(1);
  const KernelDebugInfo& later_odd = infos_.Get(1301);
  EXPECT_NE(&first_odd, &later_odd);
  EXPECT_EQ(first_odd.location_record, later_odd.location_record);
  EXPECT_NE(first_odd.location_record, named.location_record);
  EXPECT_EQ(later_odd.location->ToString(), "chain.mlir:5:1");
}

TEST_F(KernelDebugInfosTest, ThreadsAskingForOneKernelGetOneEntry) {
  constexpr int kThreads = 8;
  const uint32_t num_kernels = static_cast<uint32_t>(infos_.size());
  std::vector<std::vector<const KernelDebugInfo*>> seen(
      kThreads, std::vector<const KernelDebugInfo*>(num_kernels));
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      // Half the threads walk backwards, so that first uses meet in the
      // middle as well as at the start.
      for (uint32_t i = 0; i < num_kernels; ++i) {
        const uint32_t k = t % 2 == 0 ? i : num_kernels - 1 - i;
        seen[t][k] = &infos_.Get(k);
      }
    });
  }
  go.store(true, std::memory_order_release);
  for (std::thread& thread : threads) thread.join();
  for (uint32_t k = 0; k < num_kernels; ++k) {
    for (int t = 1; t < kThreads; ++t) {
      ASSERT_EQ(seen[t][k], seen[0][k]) << "kernel " << k << ", thread " << t;
    }
    ASSERT_EQ(seen[0][k], &infos_.Get(k)) << "kernel " << k;
  }
  EXPECT_EQ(seen[0][kConstants]->name, "test.fail");
}

TEST_F(KernelDebugInfosTest, AFrameGivesTheEntryItWasBuiltWith) {
  ExecutionContext context(RequestContext::Create(&host_));
  KernelDebugInfo built;
  built.name = "test.by_hand";
  KernelFrame eager(&context, &built);
  EXPECT_EQ(&eager.debug_info(), &built);

  KernelFrame lazy(&context, &infos_, 1200);
  EXPECT_EQ(&lazy.debug_info(), &infos_.Get(1200));
  EXPECT_EQ(lazy.debug_info().location->ToString(), "chain.mlir:1210:3");
}

}  // namespace
}  // namespace executor_internal
}  // namespace sluice
