// Per-kernel cost of the executor on the programs peers are compared on: a
// chain of dependent adds, a fan of independent adds joined by one merge, a
// wavefront of adds over a grid, and a recursive fib, built directly in the
// binary format.

#include <cstdint>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "sluice/bef/sbf_writer.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernel/kernel_binding.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/support/logging.h"

namespace sluice {
namespace {

int32_t Constant(Attribute<int32_t> value) { return *value; }
int32_t Add(int32_t a, int32_t b) { return a + b; }
Chain Merge(RemainingArguments) { return Chain{}; }

enum class Shape {
  kChain,  // each add uses the previous sum
  kFan,    // every add uses the constant; one merge waits for them all
  kWave,   // v[i][j] = v[i-1][j] + v[i][j-1] on a sqrt(n) x sqrt(n) grid
};

// `main` computes `n` adds of the given shape.
std::vector<uint8_t> BuildProgram(int n, Shape shape) {
  bef::SbfWriter w;
  const uint32_t i32 = w.AddType("i32");
  const uint32_t f =
      w.DeclareFunction("main", bef::FunctionKind::kFunction, {}, {i32});
  const uint32_t loc = w.AddLocation("bench.mlir", 1, 1, std::nullopt);
  const uint32_t constant = w.AddKernelName("test.constant.i32");
  const uint32_t add = w.AddKernelName("tfrt.add.i32");
  const uint32_t merge = w.AddKernelName("tfrt.merge.chains");
  const uint32_t value_name = w.AddString("value");
  bef::BodyDescription body;
  auto kernel = [&](uint32_t name, std::vector<uint32_t> operands,
                    std::vector<uint32_t> attributes = {}) {
    bef::KernelDescription k;
    k.name_index = name;
    k.location_index = loc;
    k.operands = std::move(operands);
    k.results = {body.num_registers++};
    for (size_t i = 0; i < attributes.size(); ++i) {
      k.attribute_names.push_back(value_name);
    }
    k.attributes = std::move(attributes);
    body.kernels.push_back(std::move(k));
    return body.kernels.back().results[0];
  };
  const uint32_t one =
      kernel(constant, {}, {w.AddScalar<int32_t>(bef::AttributeType::kI32, 1)});
  uint32_t last = one;
  if (shape == Shape::kChain) {
    for (int i = 0; i < n; ++i) last = kernel(add, {last, one});
  } else if (shape == Shape::kFan) {
    std::vector<uint32_t> fan;
    for (int i = 0; i < n; ++i) fan.push_back(kernel(add, {one, one}));
    last = kernel(merge, fan);
  } else {
    int side = 1;
    while ((side + 1) * (side + 1) <= n) ++side;
    std::vector<uint32_t> row(side, one);  // the row above, then this one
    for (int i = 0; i < side; ++i) {
      uint32_t left = one;
      for (int j = 0; j < side; ++j)
        row[j] = left = kernel(add, {row[j], left});
    }
    last = row.back();
  }
  body.result_registers = {last};
  w.DefineFunction(f, std::move(body));
  return w.Finish();
}

void RunProgram(benchmark::State& state, const char* queue, Shape shape) {
  const int n = static_cast<int>(state.range(0));
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   *CreateWorkQueue(queue));
  KernelRegistry& registry = GetKernelRegistry(&host);
  SLUICE_CHECK(registry
                   .AddKernels({{"test.constant.i32", SLUICE_KERNEL(Constant)},
                                {"tfrt.add.i32", SLUICE_KERNEL(Add)},
                                {"tfrt.merge.chains", SLUICE_KERNEL(Merge)}})
                   .ok());
  std::unique_ptr<Program> program =
      *Program::Load(BuildProgram(n, shape), registry);
  const Function& main = *program->GetFunction("main");
  for (auto _ : state) {
    ExecutionContext context(RequestContext::Create(&host));
    std::vector<RCReference<AsyncValue>> results =
        CallFunction(main, context, {});
    host.Await(results);
  }
  state.SetItemsProcessed(state.iterations() * n);
}

// fib(n) through tfrt.call and tfrt.if, as the peers measure it:
//   fib(n) = n <= 1 ? n : fib(n - 1) + fib(n - 2)
std::vector<uint8_t> BuildFib() {
  bef::SbfWriter w;
  const uint32_t i32 = w.AddType("i32");
  const uint32_t loc = w.AddLocation("fib.mlir", 1, 1, std::nullopt);
  const uint32_t value_name = w.AddString("value");
  const uint32_t fib =
      w.DeclareFunction("fib", bef::FunctionKind::kFunction, {i32}, {i32});
  const uint32_t then_region =
      w.DeclareFunction("", bef::FunctionKind::kRegion, {i32}, {i32});
  const uint32_t else_region =
      w.DeclareFunction("", bef::FunctionKind::kRegion, {i32}, {i32});
  auto kernel = [&](bef::BodyDescription& body, std::string_view name,
                    std::vector<uint32_t> operands,
                    std::vector<uint32_t> attributes = {},
                    std::vector<uint32_t> functions = {}) {
    bef::KernelDescription k;
    k.name_index = w.AddKernelName(name);
    k.location_index = loc;
    k.operands = std::move(operands);
    k.results = {body.num_registers++};
    for (size_t i = 0; i < attributes.size(); ++i) {
      k.attribute_names.push_back(value_name);
    }
    k.attributes = std::move(attributes);
    k.functions = std::move(functions);
    body.kernels.push_back(std::move(k));
    return body.kernels.back().results[0];
  };
  auto constant = [&](bef::BodyDescription& body, int32_t value) {
    return kernel(body, "tfrt.constant.i32", {},
                  {w.AddScalar<int32_t>(bef::AttributeType::kI32, value)});
  };

  bef::BodyDescription main;
  main.argument_registers = {main.num_registers++};
  const uint32_t one = constant(main, 1);
  const uint32_t small = kernel(main, "tfrt.lessequal.i32", {0, one});
  const uint32_t result =
      kernel(main, "tfrt.if", {small, 0}, {}, {then_region, else_region});
  main.result_registers = {result};
  w.DefineFunction(fib, std::move(main));

  bef::BodyDescription then_body;
  then_body.argument_registers = {then_body.num_registers++};
  then_body.result_registers = {0};
  w.DefineFunction(then_region, std::move(then_body));

  bef::BodyDescription else_body;
  else_body.argument_registers = {else_body.num_registers++};
  const uint32_t c1 = constant(else_body, 1);
  const uint32_t c2 = constant(else_body, 2);
  const uint32_t n1 = kernel(else_body, "tfrt.minus.i32", {0, c1});
  const uint32_t n2 = kernel(else_body, "tfrt.minus.i32", {0, c2});
  const uint32_t f1 = kernel(else_body, "tfrt.call", {n1}, {}, {fib});
  const uint32_t f2 = kernel(else_body, "tfrt.call", {n2}, {}, {fib});
  else_body.result_registers = {kernel(else_body, "tfrt.add.i32", {f1, f2})};
  w.DefineFunction(else_region, std::move(else_body));
  return w.Finish();
}

// Calls per fib(n): fib(n) calls fib 2*fib(n+1)-1 times.
int64_t FibCalls(int n) {
  int64_t a = 0, b = 1;
  for (int i = 0; i < n + 1; ++i) {
    const int64_t next = a + b;
    a = b;
    b = next;
  }
  return 2 * a - 1;
}

void BM_Fib(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  HostContext host([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
                   CreateSingleThreadedWorkQueue());
  SLUICE_CHECK(RegisterBasicKernels(&GetKernelRegistry(&host)).ok());
  std::unique_ptr<Program> program =
      *Program::Load(BuildFib(), GetKernelRegistry(&host));
  const Function& fib = *program->GetFunction("fib");
  for (auto _ : state) {
    ExecutionContext context(RequestContext::Create(&host));
    AsyncValueRef<int32_t> argument = MakeAvailableAsyncValueRef<int32_t>(n);
    AsyncValue* arguments[] = {argument.GetAsyncValue()};
    std::vector<RCReference<AsyncValue>> results =
        CallFunction(fib, context, arguments);
    host.Await(results);
    benchmark::DoNotOptimize(results[0]->get<int32_t>());
  }
  // Items are calls of fib (each one a tfrt.if and, for n > 1, two
  // tfrt.calls of a region body).
  state.SetItemsProcessed(state.iterations() * FibCalls(n));
}
BENCHMARK(BM_Fib)->Arg(25)->Unit(benchmark::kMillisecond);

void BM_Chain(benchmark::State& state) {
  RunProgram(state, "s", Shape::kChain);
}
BENCHMARK(BM_Chain)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_Fan(benchmark::State& state) { RunProgram(state, "s", Shape::kFan); }
BENCHMARK(BM_Fan)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_Wave(benchmark::State& state) { RunProgram(state, "s", Shape::kWave); }
BENCHMARK(BM_Wave)->Arg(90000)->Arg(1000000)->Unit(benchmark::kMillisecond);

// The wave on two worker threads: wide enough to split (see SplitPlan).
void BM_WaveTwoThreads(benchmark::State& state) {
  RunProgram(state, "mstd:2", Shape::kWave);
}
BENCHMARK(BM_WaveTwoThreads)
    ->Arg(90000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace sluice
