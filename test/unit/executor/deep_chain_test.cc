// A 10^6-deep chain of synchronous kernels runs in constant native stack on
// both queues (each kernel only pushes its user on the worklist), and its
// values are recycled as it goes. Its own target: under sanitizers it takes
// longer than a small test may.
#include <cstdint>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernel/kernel_registry.h"
#include "test/unit/executor/program_builder.h"

namespace sluice {
namespace {

int32_t Constant(Attribute<int32_t> value) { return *value; }
int32_t Add(int32_t a, int32_t b) { return a + b; }

class DeepChainTest : public ::testing::TestWithParam<const char*> {};

TEST_P(DeepChainTest, MillionKernelsDeep) {
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   *CreateWorkQueue(GetParam()));
  ASSERT_TRUE(GetKernelRegistry(&host)
                  .AddKernels({{"test.constant.i32", SLUICE_KERNEL(Constant)},
                               {"test.add.i32", SLUICE_KERNEL(Add)}})
                  .ok());
  constexpr int kDepth = 1000000;
  testing_util::ProgramBuilder b;
  uint32_t f = b.Declare("main", 0, 1);
  b.Begin(0);
  uint32_t one = b.Constant(1);
  uint32_t sum = b.Constant(0);
  for (int i = 0; i < kDepth; ++i) sum = b.Kernel("test.add.i32", {sum, one});
  b.End(f, {sum});
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::Load(b.Finish(), GetKernelRegistry(&host));
  ASSERT_TRUE(program.ok()) << program.status();
  std::vector<RCReference<AsyncValue>> results =
      CallFunction(*(*program)->GetFunction("main"),
                   ExecutionContext(RequestContext::Create(&host)), {});
  host.Await(results);
  ASSERT_TRUE(results[0]->IsConcrete());
  EXPECT_EQ(results[0]->get<int32_t>(), kDepth);
}

INSTANTIATE_TEST_SUITE_P(Queues, DeepChainTest,
                         ::testing::Values("s", "mstd:2,2"),
                         [](const auto& info) {
                           return std::string(info.param) == "s" ? "single"
                                                                 : "multi";
                         });

}  // namespace
}  // namespace sluice
