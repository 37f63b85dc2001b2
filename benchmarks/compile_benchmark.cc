// Compile and load time of a generated program of N ops: a chain of adds
// with a print every 100, the shape of a large host program.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/executor/program.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/support/logging.h"

namespace sluice {
namespace {

std::string GenerateProgram(int num_ops) {
  std::string text = "func.func @main() -> i32 {\n";
  absl::StrAppend(&text, "  %ch0 = tfrt.new.chain\n");
  absl::StrAppend(&text, "  %one = tfrt.constant.i32 1\n");
  absl::StrAppend(&text, "  %v0 = tfrt.constant.i32 0\n");
  int chains = 0;
  for (int i = 1; i < num_ops - 3; ++i) {
    if (i % 100 == 0) {
      absl::StrAppend(&text, "  %ch", chains + 1, " = tfrt.print.i32 %v", i - 1,
                      ", %ch", chains, "\n");
      ++chains;
      absl::StrAppend(&text, "  %v", i, " = tfrt.add.i32 %v", i - 1,
                      ", %one\n");
    } else {
      absl::StrAppend(&text, "  %v", i, " = tfrt.add.i32 %v", i - 1,
                      ", %one\n");
    }
  }
  absl::StrAppend(&text, "  tfrt.return %v", num_ops - 4, " : i32\n}\n");
  return text;
}

void BM_CompileAndLoad(benchmark::State& state) {
  const std::string text = GenerateProgram(static_cast<int>(state.range(0)));
  KernelRegistry registry;
  SLUICE_CHECK(RegisterBasicKernels(&registry).ok());
  for (auto _ : state) {
    absl::StatusOr<std::vector<uint8_t>> sbf = CompileProgram(text, "gen.mlir");
    if (!sbf.ok()) {
      state.SkipWithError(std::string(sbf.status().message()).c_str());
      return;
    }
    absl::StatusOr<std::unique_ptr<Program>> program =
        Program::Load(*sbf, registry);
    if (!program.ok()) {
      state.SkipWithError(std::string(program.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(program->get());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_CompileAndLoad)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sluice
