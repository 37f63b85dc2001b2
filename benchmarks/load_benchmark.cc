// What loading a program costs: time, and the memory it adds per byte of the
// file. The program is the chain the executor benchmarks run (as
// sluice_translate compiles it: one location per op, in a file with a
// realistic path), built directly in the binary format.
//
// Counters: rss_per_file_byte is the resident memory the first load adds
// (the program's copy of the bytes included) over the file's size;
// heap_per_kernel is what malloc hands out for it, per kernel. Both are
// taken on one load before the timed ones, which reuse freed memory.

#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "benchmark/benchmark.h"
#include "sluice/bef/sbf_writer.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/host_context.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/support/logging.h"

namespace sluice {
namespace {

// %one = 1, %x0 = 0, then x[k+1] = x[k] + %one, each op on its own line.
std::vector<uint8_t> BuildChain(int n) {
  bef::SbfWriter w;
  const uint32_t i32 = w.AddType("i32");
  const uint32_t f =
      w.DeclareFunction("chain", bef::FunctionKind::kFunction, {}, {i32});
  constexpr char kFile[] = "benchmarks/programs/chain_200000.mlir";
  const uint32_t constant = w.AddKernelName("tfrt.constant.i32");
  const uint32_t add = w.AddKernelName("tfrt.add.i32");
  const uint32_t value_name = w.AddString("value");
  bef::BodyDescription body;
  uint32_t line = 3;
  auto kernel = [&](uint32_t name, std::vector<uint32_t> operands,
                    std::vector<uint32_t> attributes) {
    bef::KernelDescription k;
    k.name_index = name;
    k.location_index = w.AddLocation(kFile, line++, 10, std::nullopt);
    k.operands = std::move(operands);
    k.results = {body.num_registers++};
    k.attribute_names.assign(attributes.size(), value_name);
    k.attributes = std::move(attributes);
    body.register_types.push_back(i32);
    body.kernels.push_back(std::move(k));
    return body.kernels.back().results[0];
  };
  auto constant_i32 = [&](int32_t value) {
    return kernel(constant, {},
                  {w.AddScalar<int32_t>(bef::AttributeType::kI32, value)});
  };
  const uint32_t one = constant_i32(1);
  uint32_t last = constant_i32(0);
  for (int i = 0; i < n; ++i) last = kernel(add, {last, one}, {});
  body.result_registers = {last};
  w.DefineFunction(f, std::move(body));
  return w.Finish();
}

int64_t ResidentBytes() {
  long pages = 0;
  long resident = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  SLUICE_CHECK(statm != nullptr) << "cannot open /proc/self/statm";
  SLUICE_CHECK(std::fscanf(statm, "%ld %ld", &pages, &resident) == 2)
      << "cannot read /proc/self/statm";
  std::fclose(statm);
  return int64_t{resident} * sysconf(_SC_PAGESIZE);
}

int64_t HeapBytes() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

void BM_LoadChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   CreateSingleThreadedWorkQueue());
  KernelRegistry& registry = GetKernelRegistry(&host);
  SLUICE_CHECK(RegisterBasicKernels(&registry).ok());
  const std::vector<uint8_t> bytes = BuildChain(n);

  const int64_t rss_before = ResidentBytes();
  const int64_t heap_before = HeapBytes();
  std::unique_ptr<Program> first = *Program::Load(bytes, registry);
  const int64_t rss_growth = ResidentBytes() - rss_before;
  const int64_t heap_growth = HeapBytes() - heap_before;
  first.reset();

  for (auto _ : state) {
    std::unique_ptr<Program> program = *Program::Load(bytes, registry);
    benchmark::DoNotOptimize(program.get());
  }
  state.SetItemsProcessed(state.iterations() * (n + 2));
  state.counters["file_bytes"] = static_cast<double>(bytes.size());
  state.counters["rss_per_file_byte"] =
      static_cast<double>(rss_growth) / bytes.size();
  state.counters["heap_per_kernel"] =
      static_cast<double>(heap_growth) / (n + 2);
}
BENCHMARK(BM_LoadChain)->Arg(200000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sluice
