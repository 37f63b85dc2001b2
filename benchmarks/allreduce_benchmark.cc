// Allreduce of 4 MB of f32 among 3 processes on this machine, several ways
// in the same run, interleaved: through Sluice (a compiled .mlir function
// whose tfrt_ccl.allreduce kernel calls a Gloo CollectiveGroup: the
// executor, the blocking pool, the group's thread, the ranks' agreement
// check and a new result tensor per call; the group alone; its partial
// allreduce, which adds the agreement on the contributors) and through Gloo
// called directly (gloo::allreduce on buffers allocated once). Prints the
// median time of one allreduce each way and their ratio (Gloo's time /
// Sluice's: 1.0 means no overhead), and what the contributors' agreement
// adds to an allreduce.
//
//   bazel run -c opt //benchmarks:allreduce_benchmark -- --rounds=10
//
// Run without --rank it is rank 0: it serves the rendezvous store, starts
// ranks 1 and 2 (this binary again) and reports. Every rank runs the same
// rounds, each of --iterations allreduces one way then the other (the
// order alternates from round to round).
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "gloo/allreduce.h"
#include "gloo/math.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/rendezvous/prefix_store.h"
#include "gloo/transport/tcp/device.h"
#include "grpcpp/grpcpp.h"
#include "lib/collective/store_service.h"
#include "sluice/collective/gloo_group.h"
#include "sluice/compiler/compile_program.h"
#include "sluice/executor/program.h"
#include "sluice/host_context/async_value_ref.h"
#include "sluice/host_context/host_context.h"
#include "sluice/host_context/request_context.h"
#include "sluice/kernels/basic_kernels.h"
#include "sluice/kernels/ccl_kernels.h"
#include "sluice/support/logging.h"

extern char** environ;

namespace sluice {
namespace {

constexpr int kSize = 3;
constexpr int64_t kElements = int64_t{1} << 20;  // 4 MB of f32

constexpr char kProgram[] = R"mlir(
func.func @allreduce(%g: !tfrt_ccl.group, %t: !t.tensor) -> !t.tensor {
  %c0 = tfrt.new.chain
  %c1, %sum = tfrt_ccl.allreduce %g, %t, %c0 {reduction = "sum", timeout_ms = 60000 : i64} : !t.tensor
  tfrt.return %sum : !t.tensor
}
)mlir";

struct Flags {
  int64_t rank = -1, rounds = 10, iterations = 20;
  std::string store, file_store;
};

// Sluice's way: one call of the compiled function per allreduce.
class SluicePath {
 public:
  // `check_agreement`: GlooGroupOptions::check_agreement.
  SluicePath(const Flags& flags, int64_t generation, bool check_agreement)
      : host_([](const DecodedDiagnostic&) {}, CreateMallocAllocator(),
              *CreateWorkQueue("mstd:2")) {
    KernelRegistry& registry = GetKernelRegistry(&host_);
    SLUICE_CHECK(RegisterBasicKernels(&registry).ok());
    SLUICE_CHECK(RegisterCclKernels(&registry).ok());
    program_ =
        *Program::Load(*CompileProgram(kProgram, "allreduce.mlir"), registry);
    ccl::GlooGroupOptions options;
    options.store_address = flags.store;
    options.rank = static_cast<int>(flags.rank);
    options.size = kSize;
    options.generation = generation;
    options.check_agreement = check_agreement;
    absl::StatusOr<GroupValue> group = ccl::CreateGlooGroup(options);
    SLUICE_CHECK(group.ok()) << group.status();
    group_ = MakeAvailableAsyncValueRef<GroupValue>(*std::move(group));
    std::vector<float> values(kElements, 1.0f + flags.rank);
    input_ = MakeAvailableAsyncValueRef<DenseHostTensor>(
        *DenseHostTensor::FromValues<float>({kElements}, values,
                                            host_.allocator()));
  }

  // The group's AllReduce called directly, without the kernel.
  float RunGroup() {
    absl::StatusOr<DenseHostTensor> sum = group_.get()->AllReduce(
        input_.get(), ccl::ReduceOp::kSum, absl::Seconds(60));
    SLUICE_CHECK(sum.ok()) << sum.status();
    return sum->values<float>()[0];
  }

  // The group's AllReducePartial: the allreduce, then the ranks'
  // agreement on who contributed through the store.
  float RunPartial() {
    absl::StatusOr<ccl::PartialResult> sum = group_.get()->AllReducePartial(
        input_.get(), ccl::ReduceOp::kSum, ccl::PartialOptions());
    SLUICE_CHECK(sum.ok()) << sum.status();
    SLUICE_CHECK(sum->contributors.size() == kSize);
    return sum->value.values<float>()[0];
  }

  // Returns the first element of the sum.
  float Run() {
    ExecutionContext context(RequestContext::Create(&host_));
    std::vector<RCReference<AsyncValue>> results =
        CallFunction(*program_->GetFunction("allreduce"), context,
                     {group_.GetAsyncValue(), input_.GetAsyncValue()});
    host_.Await(results);
    SLUICE_CHECK(!results[0]->IsError()) << results[0]->GetError();
    return results[0]->get<DenseHostTensor>().values<float>()[0];
  }

 private:
  HostContext host_;
  std::unique_ptr<Program> program_;
  AsyncValueRef<GroupValue> group_;
  AsyncValueRef<DenseHostTensor> input_;
};

// Gloo's way, as a user of Gloo alone writes it.
class GlooPath {
 public:
  explicit GlooPath(const Flags& flags)
      : input_(kElements, 1.0f + flags.rank), output_(kElements) {
    gloo::rendezvous::FileStore files(flags.file_store);
    gloo::rendezvous::PrefixStore store("direct", files);
    gloo::transport::tcp::attr attr("127.0.0.1");
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(
        static_cast<int>(flags.rank), kSize);
    context->connectFullMesh(store, device);
    context_ = context;
  }

  float Run() {
    gloo::AllreduceOptions options(context_);
    options.setInput(input_.data(), input_.size());
    options.setOutput(output_.data(), output_.size());
    options.setReduceFunction(
        static_cast<void (*)(void*, const void*, const void*, size_t)>(
            &gloo::sum<float>));
    gloo::allreduce(options);
    return output_[0];
  }

 private:
  std::vector<float> input_, output_;
  std::shared_ptr<gloo::Context> context_;
};

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

int RunRank(const Flags& flags) {
  SluicePath sluice(flags, 1, /*check_agreement=*/true);
  SluicePath unchecked(flags, 2, /*check_agreement=*/false);
  GlooPath gloo(flags);
  const float expected = kSize * (kSize + 1) / 2.0f;
  // The ways, in this order in even rounds and the reverse in odd ones.
  enum Way {
    kKernel = 0,
    kGroup = 1,
    kPartial = 2,
    kUnchecked = 3,
    kGloo = 4,
    kWays = 5
  };
  std::vector<std::vector<double>> ms(kWays);
  for (int64_t round = 0; round < flags.rounds; ++round) {
    for (int step = 0; step < kWays; ++step) {
      const int way = round % 2 == 0 ? step : kWays - 1 - step;
      absl::Time start = absl::Now();
      for (int64_t i = 0; i < flags.iterations; ++i) {
        float sum = way == kKernel      ? sluice.Run()
                    : way == kGroup     ? sluice.RunGroup()
                    : way == kPartial   ? sluice.RunPartial()
                    : way == kUnchecked ? unchecked.Run()
                                        : gloo.Run();
        SLUICE_CHECK(sum == expected) << sum << " != " << expected;
      }
      ms[way].push_back(absl::ToDoubleMilliseconds(absl::Now() - start) /
                        static_cast<double>(flags.iterations));
    }
  }
  if (flags.rank == 0) {
    const double gloo_ms = Median(ms[kGloo]);
    std::printf(
        "allreduce of 4 MB f32 among %d processes, median of %lld rounds of "
        "%lld (ratio: gloo's time / this way's):\n",
        kSize, static_cast<long long>(flags.rounds),
        static_cast<long long>(flags.iterations));
    const char* names[kWays] = {
        "tfrt_ccl.allreduce kernel", "CollectiveGroup::AllReduce",
        "CollectiveGroup::AllReducePartial", "kernel, check_agreement off",
        "gloo::allreduce directly"};
    for (int way = 0; way < kWays; ++way) {
      const double way_ms = Median(ms[way]);
      std::printf("  %-34s %6.2f ms  %4.0f MB/s  ratio %.3f\n", names[way],
                  way_ms, 4000 / way_ms, gloo_ms / way_ms);
    }
    const double group_ms = Median(ms[kGroup]);
    const double agreement_ms = Median(ms[kPartial]) - group_ms;
    std::printf(
        "  the contributors' agreement: %.0f us per allreduce, %.3f of the "
        "allreduce's time\n",
        agreement_ms * 1000, agreement_ms / group_ms);
  }
  return 0;
}

pid_t StartRank(const Flags& flags, int rank) {
  std::vector<std::string> arguments = {
      "/proc/self/exe",
      absl::StrCat("--rank=", rank),
      absl::StrCat("--rounds=", flags.rounds),
      absl::StrCat("--iterations=", flags.iterations),
      absl::StrCat("--store=", flags.store),
      absl::StrCat("--file_store=", flags.file_store)};
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  SLUICE_CHECK(
      posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) == 0);
  return pid;
}

int Main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto number = [&](const char* name, int64_t* out) {
      std::string prefix = absl::StrCat("--", name, "=");
      return arg.rfind(prefix, 0) == 0 &&
             absl::SimpleAtoi(arg.substr(prefix.size()), out);
    };
    auto text = [&](const char* name, std::string* out) {
      std::string prefix = absl::StrCat("--", name, "=");
      if (arg.rfind(prefix, 0) != 0) return false;
      *out = arg.substr(prefix.size());
      return true;
    };
    if (!number("rank", &flags.rank) && !number("rounds", &flags.rounds) &&
        !number("iterations", &flags.iterations) &&
        !text("store", &flags.store) &&
        !text("file_store", &flags.file_store)) {
      std::fprintf(stderr, "allreduce_benchmark: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  if (flags.rank >= 0) return RunRank(flags);

  // Rank 0: the store, a folder for Gloo's own file store, the other ranks.
  std::unique_ptr<grpc::Service> service = ccl::NewStoreService();
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(service.get());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  SLUICE_CHECK(server != nullptr && port != 0);
  flags.store = absl::StrCat("127.0.0.1:", port);
  char folder[] = "/tmp/allreduce_benchmark.XXXXXX";
  SLUICE_CHECK(mkdtemp(folder) != nullptr);
  flags.file_store = folder;
  std::vector<pid_t> children = {StartRank(flags, 1), StartRank(flags, 2)};
  flags.rank = 0;
  int result = RunRank(flags);
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) result = 1;
  }
  server->Shutdown(std::chrono::system_clock::now());
  std::filesystem::remove_all(folder);
  return result;
}

}  // namespace
}  // namespace sluice

int main(int argc, char** argv) { return sluice::Main(argc, argv); }
