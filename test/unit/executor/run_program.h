// Loading a test program and running one of its functions to the end, for
// executor tests.
#ifndef SLUICE_TEST_UNIT_EXECUTOR_RUN_PROGRAM_H_
#define SLUICE_TEST_UNIT_EXECUTOR_RUN_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_registry.h"

namespace sluice {
namespace testing_util {

// The program `bytes` hold, loaded against `host`'s kernels; null, with the
// test failed, if it does not load.
inline std::unique_ptr<Program> LoadProgram(HostContext& host,
                                            const std::vector<uint8_t>& bytes) {
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::Load(bytes, GetKernelRegistry(&host));
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *std::move(program) : nullptr;
}

// Calls `name` with `arguments` on `request` (a fresh one if null), then
// waits for its results and for all work on `host` to finish.
inline std::vector<RCReference<AsyncValue>> RunToEnd(
    HostContext& host, const Program& program, std::string_view name,
    RCReference<RequestContext> request = nullptr,
    absl::Span<AsyncValue* const> arguments = {}) {
  if (!request) request = RequestContext::Create(&host);
  const Function* function = program.GetFunction(name);
  EXPECT_NE(function, nullptr);
  if (function == nullptr) return {};
  std::vector<RCReference<AsyncValue>> results =
      CallFunction(*function, ExecutionContext(std::move(request)), arguments);
  host.Await(results);
  host.Quiesce();
  return results;
}

}  // namespace testing_util
}  // namespace sluice

#endif  // SLUICE_TEST_UNIT_EXECUTOR_RUN_PROGRAM_H_
